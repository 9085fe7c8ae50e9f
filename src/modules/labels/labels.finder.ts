// Reads of labels (the platform's LabelsFinder, 14.x). A project's labels are its own and those of
// its group, with the groups above (include_ancestor_groups). A group's are its own, those of the
// groups above and (include_descendant_groups) below that the actor may read, and unless
// only_group_labels those of the projects in it (or below) that the actor reads, not archived, with
// issues or merge requests open to the actor. Lists are ordered by title; what the entities add
// (priorities, subscriptions, counts) is loaded once per page.
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { groupVisibleTo, projectVisibleTo } from '../../core/access/visibility.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { fuzzyMatch } from '../../core/search.ts';
import type { DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { issueVisibleTo, projectFeatureOpenTo } from '../../domain/issue-visibility.ts';
import type { LabelRow } from '../../domain/labels.ts';
import { mergeRequestsOpenTo } from '../../domain/merge-request-visibility.ts';

/** A label as the routes read it: the fields issues use, and when it last changed. */
export interface StoredLabel extends LabelRow {
  updated_at: string;
}

const COLUMNS = ['labels.id', 'labels.title', 'labels.color', 'labels.description', 'labels.project_id', 'labels.group_id', 'labels.updated_at'] as const;

export type LabelsQuery = SelectQueryBuilder<DB, 'labels', StoredLabel>;

/** Whose labels: a project (with its namespace) or a group. */
export type LabelParent = { project: ProjectRow; namespace: NamespaceRow } | { group: NamespaceRow };

export interface LabelScope {
  includeAncestorGroups: boolean;
  includeDescendantGroups?: boolean;
  /** Groups only; false adds the labels of the projects in the group. */
  onlyGroupLabels?: boolean;
}

/** Every scope option as the platform's finder reads a missing one (false). */
export const NARROW_SCOPE: LabelScope = { includeAncestorGroups: false };

/** The project's group and, with ancestors, the groups above it; none for a personal project. */
function projectGroupIds(namespace: NamespaceRow, scope: LabelScope): number[] {
  if (namespace.type !== 'Group') return [];
  return scope.includeAncestorGroups ? ancestorIds(namespace.traversal_path) : [namespace.id];
}

/**
 * The labels of the parent the actor may use. A project's groups need no check: whoever reads a
 * project reads every group above it (a group is at least as visible as what it holds, and a
 * member of the project reaches it).
 */
export function availableLabels(db: Kysely<DB>, actor: Actor | null, parent: LabelParent, scope: LabelScope, now: Date): LabelsQuery {
  const base = db.selectFrom('labels').select(COLUMNS);
  if ('project' in parent) {
    const groupIds = projectGroupIds(parent.namespace, scope);
    return base.where((eb) => {
      const own = eb('labels.project_id', '=', parent.project.id);
      return groupIds.length === 0 ? own : eb.or([own, eb.and([eb('labels.project_id', 'is', null), eb('labels.group_id', 'in', groupIds)])]);
    });
  }
  const { group } = parent;
  return base.where((eb) => {
    const parts = [eb.and([eb('labels.project_id', 'is', null), eb('labels.group_id', 'in', readableGroupIds(eb, actor, group, scope, now))])];
    if (!(scope.onlyGroupLabels ?? false)) parts.push(eb('labels.project_id', 'in', projectsWithLabels(eb, actor, group, scope)));
    return eb.or(parts);
  });
}

/** The group, and the groups above or below it the scope names that the actor may read. */
function readableGroupIds(eb: ExpressionBuilder<DB, 'labels'>, actor: Actor | null, group: NamespaceRow, scope: LabelScope, now: Date) {
  const above = scope.includeAncestorGroups ? ancestorIds(group.traversal_path) : [group.id];
  return eb
    .selectFrom('namespaces as g')
    .select('g.id')
    .where('g.type', '=', 'Group')
    .where((inner) => {
      const inScope = inner('g.id', 'in', above);
      const related = scope.includeDescendantGroups ? inner.or([inScope, inSubtree('g.traversal_path', group.traversal_path)]) : inScope;
      return inner.and([related, inner.or([inner('g.id', '=', group.id), groupVisibleTo(actor, now, 'g')])]);
    });
}

/** Projects in the group (or below it) whose labels a group's list may show. */
function projectsWithLabels(eb: ExpressionBuilder<DB, 'labels'>, actor: Actor | null, group: NamespaceRow, scope: LabelScope) {
  let projects = eb
    .selectFrom('projects as p')
    .select('p.id')
    .where('p.archived', '=', false)
    .where((inner) => inner.and([projectVisibleTo(inner, actor, 'p'), inner.or([projectFeatureOpenTo(actor, 'issues', 'p'), projectFeatureOpenTo(actor, 'merge_requests', 'p')])]));
  if (scope.includeDescendantGroups) {
    projects = projects.where('p.namespace_id', 'in', eb.selectFrom('namespaces as n').select('n.id').where(inSubtree('n.traversal_path', group.traversal_path)));
  } else {
    projects = projects.where('p.namespace_id', '=', group.id);
  }
  return projects;
}

/** The list of the parent's labels: by title, a search in titles and descriptions narrowing it. */
export function listLabels(query: LabelsQuery, search: string | undefined): LabelsQuery {
  // Labels look for every word of the search, however short (Label.min_chars_for_partial_matching).
  const match = search === undefined ? null : fuzzyMatch(search, ['labels.title', 'labels.description'], 1);
  const filtered = match ? query.where(match) : query;
  return filtered.orderBy('labels.title').orderBy('labels.id');
}

/**
 * The label `idOrTitle` names among the available ones: by id when it is a number that is one,
 * else by title; a project's own label before a group's of the same title.
 */
export async function findLabel(query: LabelsQuery, idOrTitle: string): Promise<StoredLabel | null> {
  if (/^\d+$/.test(idOrTitle) && Number.isSafeInteger(Number(idOrTitle))) {
    const byId = await query.where('labels.id', '=', Number(idOrTitle)).executeTakeFirst();
    if (byId) return byId;
  }
  const byTitle = await query
    .where('labels.title', '=', idOrTitle)
    .orderBy(sql`case when labels.project_id is null then 1 else 0 end`)
    .orderBy('labels.id')
    .limit(1)
    .executeTakeFirst();
  return byTitle ?? null;
}

/** Whether a label of the scope already has this title (a creation's conflict). */
export async function titleInUse(query: LabelsQuery, title: string): Promise<boolean> {
  return (await query.where('labels.title', '=', title).select('labels.id as found').executeTakeFirst()) !== undefined;
}

// ---- What the entities add, for a page of labels ----------------------------------------------

export interface IssueCounts {
  opened: number;
  closed: number;
}

export interface LabelExtras {
  /** Priorities in the project a project's route shows the labels in. */
  priorities: ReadonlyMap<number, number>;
  /** Labels the actor is subscribed to, at the route's level (the project's, or the group's: none). */
  subscribed: ReadonlySet<number>;
  /** With counts only. */
  issueCounts: ReadonlyMap<number, IssueCounts> | null;
  openMergeRequests: ReadonlyMap<number, number> | null;
}

/** Each label's priority in the project. */
export async function loadPriorities(db: Kysely<DB>, projectId: number, labelIds: readonly number[]): Promise<Map<number, number>> {
  if (labelIds.length === 0) return new Map();
  const rows = await db.selectFrom('label_priorities').select(['label_id', 'priority']).where('project_id', '=', projectId).where('label_id', 'in', labelIds).execute();
  return new Map(rows.map((r) => [r.label_id, r.priority]));
}

/** The subscription rows of the user to these labels at one level (a project, or null for none). */
export function subscriptionsOf(db: Kysely<DB>, userId: number, labelIds: readonly number[], projectId: number | null) {
  const q = db.selectFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', 'in', labelIds).where('user_id', '=', userId);
  return projectId === null ? q.where('project_id', 'is', null) : q.where('project_id', '=', projectId);
}

/** The labels the user is subscribed to, at the level of `projectId` (null: the group's). */
export async function loadSubscribed(db: Kysely<DB>, actor: Actor | null, labelIds: readonly number[], projectId: number | null): Promise<Set<number>> {
  if (!actor || labelIds.length === 0) return new Set();
  const rows = await subscriptionsOf(db, actor.user.id, labelIds, projectId).select('subscribable_id').where('subscribed', '=', true).execute();
  return new Set(rows.map((r) => r.subscribable_id));
}

/**
 * Opened and closed issues per label, as the platform counts them (IssuesFinder by label name):
 * issues carrying a label of the same title, in the label's project, or for a group label in the
 * projects directly in its group, that the actor sees.
 */
export async function loadIssueCounts(db: Kysely<DB>, actor: Actor | null, labelIds: readonly number[]): Promise<Map<number, IssueCounts>> {
  const counts = new Map<number, IssueCounts>(labelIds.map((id) => [id, { opened: 0, closed: 0 }]));
  if (labelIds.length === 0) return counts;
  const rows = await db
    .selectFrom('labels as l')
    .innerJoin('labels as same', 'same.title', 'l.title')
    .innerJoin('label_links as ll', (join) => join.onRef('ll.label_id', '=', 'same.id').on('ll.target_type', '=', 'Issue'))
    .innerJoin('issues as i', 'i.id', 'll.target_id')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .select(['l.id as label_id', 'i.state as state', (eb) => eb.fn.count<number>('i.id').distinct().as('issues')])
    .where('l.id', 'in', labelIds)
    .where('i.state', 'in', ['opened', 'closed'])
    .where((eb) =>
      eb.or([
        eb.and([eb('l.project_id', 'is not', null), eb('i.project_id', '=', eb.ref('l.project_id'))]),
        eb.and([eb('l.project_id', 'is', null), eb('p.namespace_id', '=', eb.ref('l.group_id'))]),
      ]),
    )
    .where((eb) => issueVisibleTo(eb, actor, 'i', 'p'))
    .groupBy(['l.id', 'i.state'])
    .execute();
  for (const row of rows) {
    const entry = counts.get(row.label_id);
    if (entry) entry[row.state === 'opened' ? 'opened' : 'closed'] = Number(row.issues);
  }
  return counts;
}

/** Opened merge requests per label the actor sees, counted as loadIssueCounts counts issues. */
export async function loadOpenMergeRequestCounts(db: Kysely<DB>, actor: Actor | null, labelIds: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>(labelIds.map((id) => [id, 0]));
  if (labelIds.length === 0) return counts;
  const rows = await db
    .selectFrom('labels as l')
    .innerJoin('labels as same', 'same.title', 'l.title')
    .innerJoin('label_links as ll', (join) => join.onRef('ll.label_id', '=', 'same.id').on('ll.target_type', '=', 'MergeRequest'))
    .innerJoin('merge_requests as mr', 'mr.id', 'll.target_id')
    .innerJoin('projects as p', 'p.id', 'mr.project_id')
    .select(['l.id as label_id', (eb) => eb.fn.count<number>('mr.id').distinct().as('n')])
    .where('l.id', 'in', labelIds)
    .where('mr.state', '=', 'opened')
    .where((eb) =>
      eb.or([
        eb.and([eb('l.project_id', 'is not', null), eb('mr.project_id', '=', eb.ref('l.project_id'))]),
        eb.and([eb('l.project_id', 'is', null), eb('p.namespace_id', '=', eb.ref('l.group_id'))]),
      ]),
    )
    .where((eb) => mergeRequestsOpenTo(eb, actor, 'p'))
    .groupBy('l.id')
    .execute();
  for (const row of rows) counts.set(row.label_id, Number(row.n));
  return counts;
}

/** Everything the entities of these labels need beyond their rows. */
export async function loadLabelExtras(
  db: Kysely<DB>,
  actor: Actor | null,
  labels: readonly StoredLabel[],
  options: { projectId: number | null; withCounts: boolean },
): Promise<LabelExtras> {
  const ids = labels.map((label) => label.id);
  const [priorities, subscribed, issueCounts, openMergeRequests] = await Promise.all([
    options.projectId === null ? new Map<number, number>() : loadPriorities(db, options.projectId, ids),
    loadSubscribed(db, actor, ids, options.projectId),
    options.withCounts ? loadIssueCounts(db, actor, ids) : null,
    options.withCounts ? loadOpenMergeRequestCounts(db, actor, ids) : null,
  ]);
  return { priorities, subscribed, issueCounts, openMergeRequests };
}

/** The labels of a group with this title (a promotion's merge): its own, and those of the projects directly in it. */
export function sameTitleInGroup(db: Kysely<DB>, groupId: number, title: string) {
  return db
    .selectFrom('labels')
    .select('labels.id')
    .where('labels.title', '=', title)
    .where((eb) =>
      eb.or([
        eb.and([eb('labels.project_id', 'is', null), eb('labels.group_id', '=', groupId)]),
        eb('labels.project_id', 'in', eb.selectFrom('projects').select('projects.id').where('projects.namespace_id', '=', groupId)),
      ]),
    );
}

