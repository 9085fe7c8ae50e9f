// What a page of to-dos shows beyond its rows, one query per kind: projects, authors, the notes
// that made them, and their targets, presented as Entities::Todo nests them: the issue entity,
// the merge request entity without the caller, or the alert's iid and title (todo-list.presenter.ts).
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import type { DB, TodoRow } from '../../db/schema.ts';
import { usersById } from '../../domain/issuables.ts';
import { alertsByIds } from '../alert-management/alert-management.finder.ts';
import { alertWebUrl } from '../alert-management/alert-management.presenter.ts';
import { loadIssueRelations } from '../issues/issues.finder.ts';
import { presentIssue } from '../issues/issues.presenter.ts';
import { loadMergeRequestRelations } from '../merge-requests/merge-requests.finder.ts';
import { presentMergeRequestTodoTarget } from '../merge-requests/merge-requests.presenter.ts';
import { type PresentedTarget, type TodoPage, targetKey } from './todo-list.presenter.ts';

const PROJECT_COLUMNS = ['id', 'description', 'name', 'name_with_namespace', 'path', 'full_path', 'created_at'] as const;

const idsOf = (rows: readonly TodoRow[], type: string) => [...new Set(rows.filter((r) => r.target_type === type).map((r) => r.target_id))];

/** The issue targets: subscribed is false, as the platform presents them without the caller. */
async function issueTargets(db: Kysely<DB>, ids: number[], reader: Actor, baseUrl: string, today: string): Promise<[string, PresentedTarget][]> {
  if (ids.length === 0) return [];
  const issues = await db.selectFrom('issues').selectAll().where('id', 'in', ids).execute();
  const relations = await loadIssueRelations(db, issues, reader);
  return issues.map((issue) => {
    const view = { baseUrl, fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true };
    return [targetKey('Issue', issue.id), { entity: presentIssue(issue, relations, view, today), iid: issue.iid, title: issue.title }];
  });
}

async function mergeRequestTargets(db: Kysely<DB>, ids: number[], baseUrl: string, today: string): Promise<[string, PresentedTarget][]> {
  if (ids.length === 0) return [];
  const mrs = await db.selectFrom('merge_requests').selectAll().where('id', 'in', ids).execute();
  const relations = await loadMergeRequestRelations(db, mrs);
  return mrs.map((mr) => {
    const view = { baseUrl, fromProjectId: mr.project_id, withLabelsDetails: false, renderHtml: false };
    return [targetKey('MergeRequest', mr.id), { entity: presentMergeRequestTodoTarget(mr, relations, view, today), iid: mr.iid, title: mr.title }];
  });
}

/** Alert targets, with their details page (the platform's to-do links there). */
async function alertTargets(db: Kysely<DB>, ids: number[], projects: Map<number, { full_path: string }>, baseUrl: string): Promise<[string, PresentedTarget][]> {
  const alerts = await alertsByIds(db, ids);
  return alerts.flatMap((alert) => {
    const project = projects.get(alert.project_id);
    if (!project) return [];
    const url = alertWebUrl(baseUrl, project.full_path, alert.iid);
    return [[targetKey('AlertManagement::Alert', alert.id), { entity: { iid: alert.iid, title: alert.title }, iid: alert.iid, title: alert.title, url }]];
  });
}

export async function loadTodoPage(db: Kysely<DB>, rows: readonly TodoRow[], reader: Actor, baseUrl: string, today: string): Promise<TodoPage> {
  const projectIds = [...new Set(rows.map((r) => r.project_id))];
  const noteIds = [...new Set(rows.flatMap((r) => (r.note_id === null ? [] : [r.note_id])))];
  const [projects, authors, notes, issues, mrs] = await Promise.all([
    projectIds.length > 0 ? db.selectFrom('projects').select(PROJECT_COLUMNS).where('id', 'in', projectIds).execute() : Promise.resolve([]),
    usersById(db, rows.map((r) => r.author_id)),
    noteIds.length > 0 ? db.selectFrom('notes').select(['id', 'body']).where('id', 'in', noteIds).execute() : Promise.resolve([]),
    issueTargets(db, idsOf(rows, 'Issue'), reader, baseUrl, today),
    mergeRequestTargets(db, idsOf(rows, 'MergeRequest'), baseUrl, today),
  ]);
  const projectsById = new Map(projects.map((p) => [p.id, p]));
  const alerts = await alertTargets(db, idsOf(rows, 'AlertManagement::Alert'), projectsById, baseUrl);
  return {
    projects: projectsById,
    authors,
    notes: new Map(notes.map((n) => [n.id, n.body])),
    targets: new Map([...issues, ...mrs, ...alerts]),
  };
}
