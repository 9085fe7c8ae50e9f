// Reading merge requests: one project's, every project's the caller may read (/merge_requests), or
// a group's and its subgroups'. Who sees which is one SQL condition (domain/merge-request-visibility),
// so lists are filtered, ordered and cut in the database; what a page shows comes in one query per kind.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, MergeRequestRow } from '../../db/schema.ts';
import {
  type IssuableMilestone,
  type IssuableProject,
  type IssuableUser,
  inProjectsOf,
  inProjectsUnder,
  issuableProjects,
  issuableUsers,
  labelPriorityOrder,
  labelsOf,
  milestoneTitledIn,
  milestonesById,
  subscriptionChoices,
  userNoteCounts,
  usersPer,
} from '../../domain/issuables.ts';
import type { LabelRow } from '../../domain/labels.ts';
import { mergeRequestsOpenTo } from '../../domain/merge-request-visibility.ts';

export type MergeRequestsQuery = SelectQueryBuilder<DB, 'merge_requests', MergeRequestRow>;

export function readableMergeRequests(db: Kysely<DB>, actor: Actor | null): MergeRequestsQuery {
  return db
    .selectFrom('merge_requests')
    .selectAll('merge_requests')
    .where((eb) => eb.exists(eb.selectFrom('projects').select(sql`1`.as('one')).whereRef('projects.id', '=', 'merge_requests.project_id').where((pe) => mergeRequestsOpenTo(pe, actor))));
}

/** One project's (whose merge requests the route has already found readable). */
export function projectMergeRequests(db: Kysely<DB>, projectId: number): MergeRequestsQuery {
  return db.selectFrom('merge_requests').selectAll('merge_requests').where('merge_requests.project_id', '=', projectId);
}

export function groupMergeRequests(db: Kysely<DB>, actor: Actor | null, traversalPath: string): MergeRequestsQuery {
  return readableMergeRequests(db, actor).where(inProjectsUnder('merge_requests.project_id', traversalPath));
}

/**
 * A milestone's merge requests (MergeRequestsFinder by the milestone's title, ordered by label
 * priority), found as milestoneIssues finds issues, among those the actor may read.
 */
export function milestoneMergeRequests(db: Kysely<DB>, actor: Actor | null, title: string, places: { projectId: number; groupId: number | null } | { groupId: number }): MergeRequestsQuery {
  const readable = readableMergeRequests(db, actor);
  const mergeRequests = 'projectId' in places ? readable.where('merge_requests.project_id', '=', places.projectId) : readable.where(inProjectsOf('merge_requests.project_id', places.groupId));
  return mergeRequests.where(milestoneTitledIn('merge_requests.milestone_id', title, places)).orderBy(labelPriorityOrder('MergeRequest', 'merge_requests'));
}

export async function findMergeRequestByIid(db: Kysely<DB>, projectId: number, iid: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
}

export async function findOpenMergeRequest(db: Kysely<DB>, id: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('id', '=', id).where('state', '=', 'opened').executeTakeFirst();
}

/** The open merge request of the project from this source into this target, but `exceptId`. */
export async function findOpenDuplicate(db: Kysely<DB>, projectId: number, source: string, target: string, exceptId: number | null): Promise<MergeRequestRow | undefined> {
  return db
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('source_branch', '=', source)
    .where('target_branch', '=', target)
    .where('state', '=', 'opened')
    .$if(exceptId !== null, (q) => q.where('id', '!=', exceptId!))
    .orderBy('id')
    .executeTakeFirst();
}

/** Open merge requests of a project from or into one of these branches. */
export async function openMergeRequestsOnBranches(db: Kysely<DB>, projectId: number, branches: readonly string[]): Promise<MergeRequestRow[]> {
  if (branches.length === 0) return [];
  return db
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('state', '=', 'opened')
    .where((eb) => eb.or([eb('source_branch', 'in', branches), eb('target_branch', 'in', branches)]))
    .orderBy('id')
    .execute();
}

export interface MergeRequestRelations {
  users: Map<number, IssuableUser>;
  assignees: Map<number, number[]>;
  reviewers: Map<number, number[]>;
  labels: Map<number, LabelRow[]>;
  /** With the full path of a group milestone's group (null for a project's). */
  milestones: Map<number, IssuableMilestone>;
  userNotes: Map<number, number>;
  projects: Map<number, IssuableProject>;
  /** Merge requests the subscriber follows (single merge requests only). */
  subscribed: Set<number>;
}

/** What only merge requests show of what a page names (labels, comments, milestones, users and projects are the issuables'). */
export type MergeRequestLinks = Pick<MergeRequestRelations, 'assignees' | 'reviewers'>;

const peopleRows = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('merge_request_assignees')
    .select(['merge_request_id as key', 'user_id', sql<number>`1`.as('assigned')])
    .where('merge_request_id', 'in', ids)
    .unionAll(db.selectFrom('merge_request_reviewers').select(['merge_request_id as key', 'user_id', sql<number>`0`.as('assigned')]).where('merge_request_id', 'in', ids))
    .orderBy('user_id'),
);

/** The assignees and reviewers of these merge requests, from their ids alone, in one query. */
export async function loadMergeRequestLinks(db: Kysely<DB>, ids: readonly number[]): Promise<MergeRequestLinks> {
  if (ids.length === 0) return { assignees: new Map(), reviewers: new Map() };
  const rows = await peopleRows(db, ids);
  return { assignees: usersPer(rows.filter((row) => Number(row.assigned) === 1)), reviewers: usersPer(rows.filter((row) => Number(row.assigned) === 0)) };
}

/** The users these merge requests show: authors, mergers, closers, merge users, assignees and reviewers. */
export function mergeRequestUserIds(mrs: readonly MergeRequestRow[], links: MergeRequestLinks): number[] {
  const ids = [...links.assignees.values(), ...links.reviewers.values()].flat();
  for (const mr of mrs) for (const id of [mr.author_id, mr.merged_by_id, mr.closed_by_id, mr.merge_user_id]) if (id !== null) ids.push(id);
  return ids;
}

export async function loadMergeRequestRelations(db: Kysely<DB>, mrs: readonly MergeRequestRow[], subscriber: number | null = null): Promise<MergeRequestRelations> {
  const ids = mrs.map((m) => m.id);
  const [links, labels, userNotes, projects, milestones, choices] = await Promise.all([
    loadMergeRequestLinks(db, ids),
    labelsOf(db, 'MergeRequest', ids),
    userNoteCounts(db, 'MergeRequest', ids),
    issuableProjects(db, mrs.map((m) => m.project_id)),
    milestonesById(db, mrs.map((m) => m.milestone_id)),
    subscriber === null ? Promise.resolve(new Map<number, boolean>()) : subscriptionChoices(db, 'MergeRequest', ids, subscriber),
  ]);
  const users = await issuableUsers(db, mergeRequestUserIds(mrs, links));
  const out: MergeRequestRelations = { ...links, users, labels, milestones, userNotes, projects, subscribed: new Set() };
  if (subscriber !== null) {
    // An explicit choice wins; without one, the author, assignees and reviewers follow it.
    for (const mr of mrs) {
      const participant = mr.author_id === subscriber || (out.assignees.get(mr.id) ?? []).includes(subscriber) || (out.reviewers.get(mr.id) ?? []).includes(subscriber);
      if (choices.get(mr.id) ?? participant) out.subscribed.add(mr.id);
    }
  }
  return out;
}

/** first_contribution: the author is no member above Guest and has had no merge request merged into the project. */
export async function isFirstContribution(db: Kysely<DB>, mr: MergeRequestRow): Promise<boolean> {
  if (mr.author_id === null) return false;
  const [member, merged] = await Promise.all([
    db.selectFrom('project_authorizations').select('access_level').where('project_id', '=', mr.project_id).where('user_id', '=', mr.author_id).where('access_level', '>', 10).executeTakeFirst(),
    db.selectFrom('merge_requests').select('id').where('project_id', '=', mr.project_id).where('author_id', '=', mr.author_id).where('state', '=', 'merged').limit(1).executeTakeFirst(),
  ]);
  return member === undefined && merged === undefined;
}
