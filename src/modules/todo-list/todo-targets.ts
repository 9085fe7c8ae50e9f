// What a page of to-dos shows beyond its rows, presented as Entities::Todo nests them: the issue
// entity, the merge request entity without the caller, or the alert's iid and title
// (todo-list.presenter.ts). What the targets of both kinds name is read once for the page, each
// kind of row in one query (the users of the to-dos and of their issues and merge requests
// together, their labels together, …), rather than once per kind of target.
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, IssueRow, MergeRequestRow, TodoRow } from '../../db/schema.ts';
import { type IssuableProject, issuableUsers, labelsOfEach, milestonesById, userNoteCountsOfEach } from '../../domain/issuables.ts';
import { alertsByIds } from '../alert-management/alert-management.finder.ts';
import { alertWebUrl } from '../alert-management/alert-management.presenter.ts';
import { type IssueRelations, issueUserIds, loadIssueLinks } from '../issues/issues.finder.ts';
import { presentIssue } from '../issues/issues.presenter.ts';
import { type MergeRequestRelations, loadMergeRequestLinks, mergeRequestUserIds } from '../merge-requests/merge-requests.finder.ts';
import { presentMergeRequestTodoTarget } from '../merge-requests/merge-requests.presenter.ts';
import { type PresentedTarget, type TodoPage, type TodoProject, targetKey } from './todo-list.presenter.ts';

const idsOf = (rows: readonly TodoRow[], type: string) => [...new Set(rows.filter((r) => r.target_type === type).map((r) => r.target_id))];

const projectRows = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select([
      'projects.id',
      'projects.description',
      'projects.name',
      'projects.name_with_namespace',
      'projects.path',
      'projects.full_path',
      'projects.created_at',
      'projects.namespace_id',
      'namespaces.full_path as namespace_full_path',
      'namespaces.type as namespace_type',
    ])
    .where('projects.id', 'in', ids),
);

/** The projects as a to-do shows them and as its issue or merge request does, in one query. */
async function pageProjects(db: Kysely<DB>, ids: readonly number[]): Promise<Map<number, TodoProject & IssuableProject>> {
  if (ids.length === 0) return new Map();
  return new Map((await projectRows(db, ids)).map((row) => [row.id, row]));
}

const noteRows = prepared((db, ids: readonly number[]) => db.selectFrom('notes').select(['id', 'body']).where('id', 'in', ids));
const issueRows = prepared((db, ids: readonly number[]) => db.selectFrom('issues').selectAll().where('id', 'in', ids));
const mergeRequestRows = prepared((db, ids: readonly number[]) => db.selectFrom('merge_requests').selectAll().where('id', 'in', ids));

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
  const issueIds = idsOf(rows, 'Issue');
  const mrIds = idsOf(rows, 'MergeRequest');
  const noteIds = [...new Set(rows.flatMap((r) => (r.note_id === null ? [] : [r.note_id])))];
  // What the to-dos and their targets' ids name; then what the targets' rows name.
  const [projects, notes, issues, mrs, issueLinks, mrLinks, labels, userNotes] = await Promise.all([
    pageProjects(db, [...new Set(rows.map((r) => r.project_id))]),
    noteIds.length > 0 ? noteRows(db, noteIds) : Promise.resolve([]),
    issueIds.length > 0 ? issueRows(db, issueIds) : Promise.resolve([] as IssueRow[]),
    mrIds.length > 0 ? mergeRequestRows(db, mrIds) : Promise.resolve([] as MergeRequestRow[]),
    loadIssueLinks(db, issueIds, reader),
    loadMergeRequestLinks(db, mrIds),
    labelsOfEach(db, { Issue: issueIds, MergeRequest: mrIds }),
    userNoteCountsOfEach(db, { Issue: issueIds, MergeRequest: mrIds }),
  ]);
  // A target is in its to-do's project but when it has moved since: those projects are read then.
  const elsewhere = [...new Set([...issues, ...mrs].map((target) => target.project_id))].filter((id) => !projects.has(id));
  const [users, milestones, moved] = await Promise.all([
    issuableUsers(db, [...rows.map((r) => r.author_id), ...issueUserIds(issues, issueLinks), ...mergeRequestUserIds(mrs, mrLinks)]),
    milestonesById(db, [...issues, ...mrs].map((target) => target.milestone_id)),
    pageProjects(db, elsewhere),
  ]);
  const allProjects = new Map([...projects, ...moved]);
  const shared = { users, milestones, projects: allProjects, subscribed: new Set<number>() };
  // Targets are presented without the caller: subscribed is false.
  const issueRelations: IssueRelations = { ...shared, ...issueLinks, labels: labels.Issue, userNotes: userNotes.Issue };
  const mrRelations: MergeRequestRelations = { ...shared, ...mrLinks, labels: labels.MergeRequest, userNotes: userNotes.MergeRequest };
  const targets: [string, PresentedTarget][] = [
    ...issues.map((issue): [string, PresentedTarget] => {
      const view = { baseUrl, fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true };
      return [targetKey('Issue', issue.id), { entity: presentIssue(issue, issueRelations, view, today), iid: issue.iid, title: issue.title }];
    }),
    ...mrs.map((mr): [string, PresentedTarget] => {
      const view = { baseUrl, fromProjectId: mr.project_id, withLabelsDetails: false, renderHtml: false };
      return [targetKey('MergeRequest', mr.id), { entity: presentMergeRequestTodoTarget(mr, mrRelations, view, today), iid: mr.iid, title: mr.title }];
    }),
    ...(await alertTargets(db, idsOf(rows, 'AlertManagement::Alert'), projects, baseUrl)),
  ];
  return { projects, authors: users, notes: new Map(notes.map((n) => [n.id, n.body])), targets: new Map(targets) };
}
