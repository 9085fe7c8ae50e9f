// Reads of milestones (14.x MilestonesFinder as the API drives it): a project's own, with its
// group's and the groups' above (include_parent_milestones); a group's own, with the groups' above
// that the caller may read. Lists are ordered by due date (none last), then newest first, and cut
// in the database. Also what a title must not collide with, and the issues a burndown chart counts.
import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { groupVisibleTo } from '../../core/access/visibility.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { fuzzyMatch } from '../../core/search.ts';
import type { DB, MilestoneRow, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { issueVisibleTo } from '../../domain/issue-visibility.ts';
import type { MilestoneFilters } from './milestones.schemas.ts';

/** Whose milestones: a project (with its namespace) or a group. */
export type MilestoneParent = { project: ProjectRow; namespace: NamespaceRow } | { group: NamespaceRow };

/** A milestone of a list, with its group's full path when it is a group's (null for a project's). */
export type ListedMilestone = MilestoneRow & { group_full_path: string | null };

type MilestonesQuery = SelectQueryBuilder<DB, 'milestones' | 'namespaces', ListedMilestone>;

/** The group a project is directly in; none for a project of a personal namespace. */
export const groupOf = (namespace: NamespaceRow): NamespaceRow | null => (namespace.type === 'Group' ? namespace : null);

/** Milestones look for words of two characters or more (Milestone.min_chars_for_partial_matching). */
const SEARCH_MINIMUM_WORD = 2;

/** The list of the parent's milestones, filtered as asked. */
export function listMilestones(db: Kysely<DB>, actor: Actor | null, parent: MilestoneParent, f: MilestoneFilters, now: Date): MilestonesQuery {
  const withParents = f.include_parent_milestones ?? false;
  let q: MilestonesQuery = db
    .selectFrom('milestones')
    .leftJoin('namespaces', 'namespaces.id', 'milestones.group_id')
    .selectAll('milestones')
    .select('namespaces.full_path as group_full_path');
  if ('project' in parent) {
    const group = groupOf(parent.namespace);
    const groupIds = withParents && group ? ancestorIds(group.traversal_path) : [];
    const own = (eb: ExpressionBuilder<DB, 'milestones' | 'namespaces'>) => eb('milestones.project_id', '=', parent.project.id);
    q = q.where((eb) => (groupIds.length > 0 ? eb.or([own(eb), eb('milestones.group_id', 'in', groupIds)]) : own(eb)));
  } else if (withParents) {
    // Groups above that the caller may not read keep their milestones to themselves.
    const readable = db
      .selectFrom('namespaces as g')
      .select('g.id')
      .where('g.id', 'in', ancestorIds(parent.group.traversal_path))
      .where(groupVisibleTo(actor, now, 'g'));
    q = q.where('milestones.group_id', 'in', readable);
  } else {
    q = q.where('milestones.group_id', '=', parent.group.id);
  }
  if (f.iids && f.iids.length > 0 && !withParents) q = q.where('milestones.iid', 'in', f.iids);
  if (f.title !== undefined) q = q.where('milestones.title', '=', f.title);
  const match = f.search === undefined ? null : fuzzyMatch(f.search, ['milestones.title', 'milestones.description'], SEARCH_MINIMUM_WORD);
  if (match) q = q.where(match);
  if (f.state === 'active' || f.state === 'closed') q = q.where('milestones.state', '=', f.state);
  return q.orderBy((eb) => eb('milestones.due_date', 'is', null)).orderBy('milestones.due_date').orderBy('milestones.id', 'desc');
}

/** The parent's own milestone of this id. */
export async function findMilestone(db: Kysely<DB>, parent: MilestoneParent, id: number): Promise<MilestoneRow | undefined> {
  const q = db.selectFrom('milestones').selectAll().where('id', '=', id);
  return ('project' in parent ? q.where('project_id', '=', parent.project.id) : q.where('group_id', '=', parent.group.id)).executeTakeFirst();
}

/**
 * Whether another milestone has the title where it must be unique: for a project's, among the
 * project's and its group's; for a group's, among the group's and those of the projects directly in it.
 */
export async function titleTaken(db: Kysely<DB>, parent: MilestoneParent, title: string, exceptId: number | null): Promise<boolean> {
  let q = db.selectFrom('milestones').select('id').where('title', '=', title);
  if ('project' in parent) {
    const group = groupOf(parent.namespace);
    q = q.where((eb) => eb.or([eb('project_id', '=', parent.project.id), ...(group ? [eb('group_id', '=', group.id)] : [])]));
  } else {
    const groupId = parent.group.id;
    q = q.where((eb) => eb.or([eb('group_id', '=', groupId), eb('project_id', 'in', eb.selectFrom('projects').select('projects.id').where('projects.namespace_id', '=', groupId))]));
  }
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** The milestones of this title of the projects directly in the group, in any state: what a promotion merges. */
export async function projectMilestonesInGroup(db: Kysely<DB>, groupId: number, title: string): Promise<number[]> {
  const rows = await db
    .selectFrom('milestones')
    .select('id')
    .where('title', '=', title)
    .where('project_id', 'in', db.selectFrom('projects').select('projects.id').where('projects.namespace_id', '=', groupId))
    .execute();
  return rows.map((row) => row.id);
}

/** Whether the group itself has a milestone of this title. */
export async function groupHasTitle(db: Kysely<DB>, groupId: number, title: string): Promise<boolean> {
  return (await db.selectFrom('milestones').select('id').where('group_id', '=', groupId).where('title', '=', title).executeTakeFirst()) !== undefined;
}

// ---- Burndown charts -----------------------------------------------------------------------------

export interface BurndownIssue {
  id: number;
  state: string;
  weight: number | null;
  created_at: string;
}

export interface BurndownIssueEvent {
  target_id: number;
  action: string;
  created_at: string;
}

/** The milestone's issues the caller sees, created by `until` (an end of day), newest first; and their closings and reopenings by then, oldest first. */
export async function burndownParts(db: Kysely<DB>, actor: Actor | null, milestoneId: number, until: string): Promise<{ issues: BurndownIssue[]; events: BurndownIssueEvent[] }> {
  const issues = db
    .selectFrom('issues')
    .innerJoin('projects', 'projects.id', 'issues.project_id')
    .where('issues.milestone_id', '=', milestoneId)
    .where('issues.created_at', '<=', until)
    .where((eb) => issueVisibleTo(eb, actor, 'issues', 'projects'));
  const [issueRows, events] = await Promise.all([
    issues.select(['issues.id', 'issues.state', 'issues.weight', 'issues.created_at']).orderBy('issues.id', 'desc').execute(),
    db
      .selectFrom('events')
      .select(['events.target_id', 'events.action', 'events.created_at'])
      .where('events.target_type', '=', 'Issue')
      .where('events.action', 'in', ['closed', 'reopened'])
      .where('events.created_at', '<=', until)
      .where('events.target_id', 'in', issues.select('issues.id'))
      .orderBy('events.created_at')
      .orderBy('events.id')
      .execute(),
  ]);
  return { issues: issueRows, events: events.map((e) => ({ target_id: Number(e.target_id), action: e.action, created_at: e.created_at })) };
}
