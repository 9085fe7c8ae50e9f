// Reading issues: one project's, every project's the caller may read (/issues), or a group's and
// its subgroups'. Who sees which issue is one SQL condition (domain/issue-visibility), so lists are
// filtered, ordered and cut in the database.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ACCESS } from '../../core/access/levels.ts';
import type { Countable } from '../../core/pagination.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, IssueRow } from '../../db/schema.ts';
import type { LabelRow, LabelScope } from '../../domain/labels.ts';
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
import { type FeatureReader, confidentialityCheck, issueVisibleTo, projectFeatureOpenTo, projectIssuesOpenTo } from '../../domain/issue-visibility.ts';

export type IssuesQuery = SelectQueryBuilder<DB, 'issues', IssueRow>;

/** Issues of projects the actor may read, whose issues the actor may read. */
export function readableIssues(db: Kysely<DB>, actor: Actor | null): IssuesQuery {
  return db
    .selectFrom('issues')
    .selectAll('issues')
    .where((eb) => eb.exists(eb.selectFrom('projects').select(sql`1`.as('one')).whereRef('projects.id', '=', 'issues.project_id').where((pe) => issueVisibleTo(pe, actor))));
}

/**
 * Narrowed to one project. Whether the actor reads the project's issues is asked of the project
 * once (a subquery that names no issue column), not again for each issue a list walks or counts.
 */
export function projectIssues(db: Kysely<DB>, actor: Actor | null, projectId: number): IssuesQuery {
  return db
    .selectFrom('issues')
    .selectAll('issues')
    .where('issues.project_id', '=', projectId)
    .where((eb) => eb.exists(eb.selectFrom('projects').select(sql`1`.as('one')).where('projects.id', '=', projectId).where((pe) => projectIssuesOpenTo(pe, actor))))
    .where(confidentialityCheck(actor, 'issues'));
}

/** Narrowed to the projects of a group and its subgroups. */
export function groupIssues(db: Kysely<DB>, actor: Actor | null, traversalPath: string): IssuesQuery {
  return readableIssues(db, actor).where(inProjectsUnder('issues.project_id', traversalPath));
}

/**
 * A milestone's issues (IssuesFinder by the milestone's title, ordered by label priority): of a
 * project's milestone, the project's issues under a milestone of that title of the project or its
 * group; of a group's, the issues of the projects directly in the group under a milestone of that
 * title of the group. Highest priority first, then newest first.
 */
export function milestoneIssues(db: Kysely<DB>, actor: Actor | null, title: string, places: { projectId: number; groupId: number | null } | { groupId: number }): IssuesQuery {
  const issues = 'projectId' in places ? projectIssues(db, actor, places.projectId) : readableIssues(db, actor).where(inProjectsOf('issues.project_id', places.groupId));
  return issues
    .where(milestoneTitledIn('issues.milestone_id', title, places))
    .orderBy(labelPriorityOrder('Issue', 'issues'));
}

export async function findIssueByIid(db: Kysely<DB>, projectId: number, iid: number): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
}

/** Whether the actor may read this (already found) issue of a project it may read. */
export async function canReadIssue(db: Kysely<DB>, actor: Actor | null, issue: IssueRow): Promise<boolean> {
  const row = await readableIssues(db, actor).where('issues.id', '=', issue.id).select(sql`1`.as('one')).executeTakeFirst();
  return row !== undefined;
}

/**
 * X-Total of a project's list filtered by one label (and a state), read from the counters the
 * triggers keep (issue_label_counts) when they answer it: at most one label bears the title, and
 * the actor sees every confidential issue of the project or none is counted; the list's own rows
 * otherwise. Counting the rows probes every issue of the project in the state (22 ms for 66,667
 * on SQLite); the counters cost one read.
 */
export function labelTally(db: Kysely<DB>, actor: Actor | null, projectId: number, title: string, state: 'opened' | 'closed' | null, list: IssuesQuery): Countable {
  const label = sql`c.label_id in (select l.id from labels l where l.title = ${title})`;
  const inState = state === null ? sql`1 = 1` : sql`c.state = ${state}`;
  const seesAll = actor?.isAdmin
    ? sql<SqlBool>`1 = 1`
    : actor
      ? sql<SqlBool>`exists (select 1 from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.project_id = ${projectId} and pa.access_level >= ${ACCESS.REPORTER})`
      : sql<SqlBool>`1 = 0`;
  const counted = sql`from issue_label_counts c where c.project_id = ${projectId} and ${inState} and ${label}`;
  const open = db.selectFrom('projects').select(sql`1`.as('one')).where('projects.id', '=', projectId).where((eb) => projectIssuesOpenTo(eb, actor));
  const rows = list.clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('count'));
  return {
    tally: db.selectNoFrom(
      sql<number>`case
        when not exists ${open} then 0
        when (select count(*) from labels l where l.title = ${title}) <= 1
          and (${seesAll} or not exists (select 1 ${counted} and c.confidential = ${true} and c.issues > 0))
          then coalesce((select sum(c.issues) ${counted} and (${seesAll} or c.confidential = ${false})), 0)
        else ${rows}
      end`.as('count'),
    ),
  };
}

// ---- What a page of issues shows, in one query per kind ----------------------------------------

export interface IssueRelations {
  users: Map<number, IssuableUser>;
  assignees: Map<number, number[]>;
  labels: Map<number, LabelRow[]>;
  /** With the full path of a group milestone's group (null for a project's). */
  milestones: Map<number, IssuableMilestone>;
  userNotes: Map<number, number>;
  /** Merge requests that close the issue, of those the reader may see. */
  closingMergeRequests: Map<number, number>;
  projects: Map<number, IssuableProject>;
  /**
   * Issues the subscriber follows (single issues only): an explicit choice wins; without one, the
   * issue's participants (its author, assignees and commenters) follow it.
   */
  subscribed: Set<number>;
}

/** What only issues show of what a page names (labels, comments, milestones, users and projects are the issuables'). */
export type IssueLinks = Pick<IssueRelations, 'assignees' | 'closingMergeRequests'>;

const assigneeRows = prepared((db, ids: readonly number[]) => db.selectFrom('issue_assignees').select(['issue_id as key', 'user_id']).where('issue_id', 'in', ids).orderBy('user_id'));

/** The assignees of these issues and the merge requests that close them, from their ids alone. */
export async function loadIssueLinks(db: Kysely<DB>, ids: readonly number[], reader: Actor | null): Promise<IssueLinks> {
  if (ids.length === 0) return { assignees: new Map(), closingMergeRequests: new Map() };
  const [assignees, closingMergeRequests] = await Promise.all([
    assigneeRows(db, ids),
    closingMergeRequestCounts(db, reader, ids),
  ]);
  return { assignees: usersPer(assignees), closingMergeRequests };
}

/** The users these issues show: authors, closers and assignees. */
export function issueUserIds(issues: readonly IssueRow[], links: IssueLinks): number[] {
  const ids = [...links.assignees.values()].flat();
  for (const issue of issues) {
    if (issue.author_id !== null) ids.push(issue.author_id);
    if (issue.closed_by_id !== null) ids.push(issue.closed_by_id);
  }
  return ids;
}

export async function loadIssueRelations(db: Kysely<DB>, issues: readonly IssueRow[], reader: Actor | null, subscriber: number | null = null): Promise<IssueRelations> {
  const ids = issues.map((i) => i.id);
  const [links, labels, userNotes, projects, milestones, choices] = await Promise.all([
    loadIssueLinks(db, ids, reader),
    labelsOf(db, 'Issue', ids),
    userNoteCounts(db, 'Issue', ids),
    issuableProjects(db, issues.map((i) => i.project_id)),
    milestonesById(db, issues.map((i) => i.milestone_id)),
    subscriber === null ? Promise.resolve(new Map<number, boolean>()) : subscriptionChoices(db, 'Issue', ids, subscriber),
  ]);
  const users = await issuableUsers(db, issueUserIds(issues, links));
  const out: IssueRelations = { ...links, users, labels, milestones, userNotes, projects, subscribed: new Set() };
  if (subscriber !== null) await followed(db, issues, out, subscriber, choices);
  return out;
}

/** The closing merge requests counted per issue, for one kind of reader (prepared below). */
const closingCounts = (db: Kysely<DB>, ids: readonly number[], reader: FeatureReader | null) =>
  db
    .selectFrom('merge_requests_closing_issues as c')
    .innerJoin('merge_requests', 'merge_requests.id', 'c.merge_request_id')
    .innerJoin('projects', 'projects.id', 'merge_requests.project_id')
    .select(['c.issue_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('c.issue_id', 'in', ids)
    .where(projectFeatureOpenTo(reader, 'merge_requests'))
    .groupBy('c.issue_id');
const closingCountsFor = {
  anonymous: prepared((db, ids: readonly number[]) => closingCounts(db, ids, null)),
  // An administrator's condition names no user.
  admin: prepared((db, ids: readonly number[]) => closingCounts(db, ids, { isAdmin: true, user: { id: 0 } })),
  user: prepared((db, ids: readonly number[], userId: number) => closingCounts(db, ids, { isAdmin: false, user: { id: userId } })),
};

/**
 * Per issue, the merge requests that close it whose project's merge requests the reader may see
 * (14.x MergeRequestsClosingIssues.count_for_collection), in one grouped query.
 */
async function closingMergeRequestCounts(db: Kysely<DB>, reader: Actor | null, ids: readonly number[]): Promise<Map<number, number>> {
  const rows =
    reader === null ? await closingCountsFor.anonymous(db, ids) : reader.isAdmin ? await closingCountsFor.admin(db, ids) : await closingCountsFor.user(db, ids, reader.user.id);
  return new Map(rows.map((row) => [Number(row.issue_id), Number(row.count)]));
}

async function followed(db: Kysely<DB>, issues: readonly IssueRow[], out: IssueRelations, userId: number, chosen: ReadonlyMap<number, boolean>): Promise<void> {
  const undecided = issues.filter((issue) => !chosen.has(issue.id)).map((issue) => issue.id);
  const commented =
    undecided.length > 0
      ? await db.selectFrom('notes').select('noteable_id').distinct().where('noteable_type', '=', 'Issue').where('noteable_id', 'in', undecided).where('author_id', '=', userId).where('system', '=', false).execute()
      : [];
  const commenter = new Set(commented.map((row) => Number(row.noteable_id)));
  for (const issue of issues) {
    const choice = chosen.get(issue.id);
    const participant = issue.author_id === userId || (out.assignees.get(issue.id) ?? []).includes(userId) || commenter.has(issue.id);
    if (choice ?? participant) out.subscribed.add(issue.id);
  }
}

/** The milestone an issue of this project may point at: the project's or an ancestor group's. */
export async function usableMilestone(db: Kysely<DB>, scope: LabelScope, id: number): Promise<{ id: number; iid: number } | null> {
  const row = await db
    .selectFrom('milestones')
    .select(['id', 'iid'])
    .where('id', '=', id)
    .where((eb) => eb.or([eb('project_id', '=', scope.projectId), ...(scope.groupIds.length > 0 ? [eb('group_id', 'in', scope.groupIds)] : [])]))
    .executeTakeFirst();
  return row ? { id: Number(row.id), iid: Number(row.iid) } : null;
}
