// Reading merge requests: one project's, every project's the caller may read (/merge_requests), or
// a group's and its subgroups'. Who sees which is one SQL condition (domain/merge-request-visibility),
// so lists are filtered, ordered and cut in the database; what a page shows comes in one query per kind.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import type { DB, MergeRequestRow, MilestoneRow, UserRow } from '../../db/schema.ts';
import { type IssuableProject, inProjectsUnder, issuableProjects, labelsOf, userNoteCounts } from '../../domain/issuables.ts';
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

export async function findMergeRequestByIid(db: Kysely<DB>, projectId: number, iid: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
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
  users: Map<number, UserRow>;
  assignees: Map<number, number[]>;
  reviewers: Map<number, number[]>;
  labels: Map<number, LabelRow[]>;
  /** With the full path of a group milestone's group (null for a project's). */
  milestones: Map<number, MilestoneRow & { group_full_path: string | null }>;
  userNotes: Map<number, number>;
  projects: Map<number, IssuableProject>;
  /** Merge requests the subscriber follows (single merge requests only). */
  subscribed: Set<number>;
}

function group(rows: { key: number | string; user_id: number | string }[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const row of rows) {
    const list = out.get(Number(row.key)) ?? [];
    list.push(Number(row.user_id));
    out.set(Number(row.key), list);
  }
  return out;
}

export async function loadMergeRequestRelations(db: Kysely<DB>, mrs: readonly MergeRequestRow[], subscriber: number | null = null): Promise<MergeRequestRelations> {
  const ids = mrs.map((m) => m.id);
  const out: MergeRequestRelations = { users: new Map(), assignees: new Map(), reviewers: new Map(), labels: new Map(), milestones: new Map(), userNotes: new Map(), projects: new Map(), subscribed: new Set() };
  if (ids.length === 0) return out;
  const [assigneeRows, reviewerRows, labels, userNotes, projects, subscriptionRows] = await Promise.all([
    db.selectFrom('merge_request_assignees').select(['merge_request_id as key', 'user_id']).where('merge_request_id', 'in', ids).orderBy('user_id').execute(),
    db.selectFrom('merge_request_reviewers').select(['merge_request_id as key', 'user_id']).where('merge_request_id', 'in', ids).orderBy('user_id').execute(),
    labelsOf(db, 'MergeRequest', ids),
    userNoteCounts(db, 'MergeRequest', ids),
    issuableProjects(db, mrs.map((m) => m.project_id)),
    subscriber === null
      ? Promise.resolve([])
      : db.selectFrom('subscriptions').select(['subscribable_id', 'subscribed']).where('subscribable_type', '=', 'MergeRequest').where('subscribable_id', 'in', ids).where('user_id', '=', subscriber).execute(),
  ]);
  Object.assign(out, { labels, userNotes, projects });
  out.assignees = group(assigneeRows);
  out.reviewers = group(reviewerRows);
  const userIds = new Set<number>([...assigneeRows, ...reviewerRows].map((r) => Number(r.user_id)));
  for (const mr of mrs) for (const id of [mr.author_id, mr.merged_by_id, mr.closed_by_id]) if (id !== null) userIds.add(id);
  const milestoneIds = [...new Set(mrs.map((m) => m.milestone_id).filter((id): id is number => id !== null))];
  const [users, milestones] = await Promise.all([
    userIds.size > 0 ? db.selectFrom('users').selectAll().where('id', 'in', [...userIds]).execute() : Promise.resolve([]),
    milestoneIds.length > 0
      ? db
          .selectFrom('milestones')
          .leftJoin('namespaces', 'namespaces.id', 'milestones.group_id')
          .selectAll('milestones')
          .select('namespaces.full_path as group_full_path')
          .where('milestones.id', 'in', milestoneIds)
          .execute()
      : Promise.resolve([]),
  ]);
  for (const u of users) out.users.set(u.id, u);
  for (const m of milestones) out.milestones.set(m.id, m);
  if (subscriber !== null) {
    // An explicit choice wins; without one, the author, assignees and reviewers follow it.
    const chosen = new Map(subscriptionRows.map((row) => [Number(row.subscribable_id), Boolean(row.subscribed)]));
    for (const mr of mrs) {
      const participant = mr.author_id === subscriber || (out.assignees.get(mr.id) ?? []).includes(subscriber) || (out.reviewers.get(mr.id) ?? []).includes(subscriber);
      if (chosen.get(mr.id) ?? participant) out.subscribed.add(mr.id);
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
