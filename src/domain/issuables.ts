// What issues and merge requests (the platform's issuables) share: their labels (read in one query
// for a page, changed with the platform's system note words), their comment counts, the projects
// they show, the list conditions on labels and milestones, and who may be assigned to them.
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { inSubtree } from '../core/access/subtree.ts';
import { type ServiceContext, requireActor } from '../core/context.ts';
import type { FieldErrors } from '../core/errors.ts';
import { prepared } from '../db/prepared.ts';
import type { DB, MilestoneRow, ProjectRow, UserRow } from '../db/schema.ts';
import { type LabelRow, type LabelScope, findOrCreateLabels } from './labels.ts';
import { recordLabelEvents } from './resource-events.ts';
import { BLANK, addError, tooLong } from './validation.ts';

export type IssuableType = 'Issue' | 'MergeRequest';

export interface IssuableProject {
  id: number;
  path: string;
  full_path: string;
  namespace_id: number;
  namespace_full_path: string;
  namespace_type: string;
}

/** Ids of issuables of either kind, as a page of to-dos names them. */
export type IssuableIds = Partial<Record<IssuableType, readonly number[]>>;

/**
 * `<typeColumn> = 'Issue' and <idColumn> in (…)`, the same for merge requests, or'ed: for the kinds
 * given ids (one at least).
 */
function ofKinds(typeColumn: string, idColumn: string, issueIds: readonly number[], mrIds: readonly number[]): Expression<SqlBool> {
  const one = (kind: IssuableType, ids: readonly number[]) => sql<SqlBool>`${sql.ref(typeColumn)} = ${kind} and ${sql.ref(idColumn)} in (${sql.join(ids)})`;
  if (mrIds.length === 0) return one('Issue', issueIds);
  if (issueIds.length === 0) return one('MergeRequest', mrIds);
  return sql<SqlBool>`((${one('Issue', issueIds)}) or (${one('MergeRequest', mrIds)}))`;
}

/** Per kind, a map by issuable id. */
const byKind = <V>(): Record<IssuableType, Map<number, V>> => ({ Issue: new Map(), MergeRequest: new Map() });

const labelRows = prepared((db, issueIds: readonly number[], mrIds: readonly number[]) =>
  db
    .selectFrom('label_links')
    .innerJoin('labels', 'labels.id', 'label_links.label_id')
    .select(['label_links.target_type', 'label_links.target_id', 'labels.id', 'labels.title', 'labels.color', 'labels.description', 'labels.project_id', 'labels.group_id'])
    .where(ofKinds('label_links.target_type', 'label_links.target_id', issueIds, mrIds))
    .orderBy('labels.title'),
);

/** The labels of issuables of either kind, by kind and issuable id, ordered by title: one query for a page. */
export async function labelsOfEach(db: Kysely<DB>, ids: IssuableIds): Promise<Record<IssuableType, Map<number, LabelRow[]>>> {
  const out = byKind<LabelRow[]>();
  const { Issue: issueIds = [], MergeRequest: mrIds = [] } = ids;
  if (issueIds.length === 0 && mrIds.length === 0) return out;
  for (const { target_type: type, target_id: target, ...label } of await labelRows(db, issueIds, mrIds)) {
    const byId = out[type as IssuableType];
    const list = byId.get(Number(target)) ?? [];
    list.push(label);
    byId.set(Number(target), list);
  }
  return out;
}

/** The labels of these issuables, by issuable id, ordered by title. */
export async function labelsOf(db: Kysely<DB>, type: IssuableType, ids: readonly number[]): Promise<Map<number, LabelRow[]>> {
  return (await labelsOfEach(db, { [type]: ids }))[type];
}

const userNoteRows = prepared((db, issueIds: readonly number[], mrIds: readonly number[]) =>
  db
    .selectFrom('notes')
    .select(['noteable_type', 'noteable_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where(ofKinds('notes.noteable_type', 'notes.noteable_id', issueIds, mrIds))
    .where('system', '=', false)
    .groupBy(['noteable_type', 'noteable_id']),
);

/** Comments (not system notes) per issuable of either kind, by kind and issuable id: one query for a page. */
export async function userNoteCountsOfEach(db: Kysely<DB>, ids: IssuableIds): Promise<Record<IssuableType, Map<number, number>>> {
  const out = byKind<number>();
  const { Issue: issueIds = [], MergeRequest: mrIds = [] } = ids;
  if (issueIds.length === 0 && mrIds.length === 0) return out;
  for (const row of await userNoteRows(db, issueIds, mrIds)) out[row.noteable_type as IssuableType].set(Number(row.noteable_id), Number(row.n));
  return out;
}

/** Comments (not system notes) per issuable. */
export async function userNoteCounts(db: Kysely<DB>, type: IssuableType, ids: readonly number[]): Promise<Map<number, number>> {
  return (await userNoteCountsOfEach(db, { [type]: ids }))[type];
}

const projectRows = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['projects.id', 'projects.path', 'projects.full_path', 'projects.namespace_id', 'namespaces.full_path as namespace_full_path', 'namespaces.type as namespace_type'])
    .where('projects.id', 'in', ids),
);

/** The projects (with their namespaces' paths) that issuables of a page belong to. */
export async function issuableProjects(db: Kysely<DB>, projectIds: readonly number[]): Promise<Map<number, IssuableProject>> {
  if (projectIds.length === 0) return new Map();
  const rows = await projectRows(db, [...new Set(projectIds)]);
  return new Map(rows.map((row) => [row.id, row]));
}

export interface LabelChanges {
  labels?: string[];
  addLabels?: string[];
  removeLabels?: string[];
}

/** The labels an issuable ends up with: `labels` replaces, then `add_labels` and `remove_labels` apply; null when none was given. */
export async function nextLabels(ctx: ServiceContext, current: readonly LabelRow[], changes: LabelChanges, scope: LabelScope, create: boolean): Promise<LabelRow[] | null> {
  if (changes.labels === undefined && changes.addLabels === undefined && changes.removeLabels === undefined) return null;
  const find = (titles: string[]) => findOrCreateLabels(ctx, scope, titles, create);
  const result = changes.labels !== undefined ? await find(changes.labels) : [...current];
  for (const label of changes.addLabels ? await find(changes.addLabels) : []) if (!result.some((l) => l.id === label.id)) result.push(label);
  const removed = new Set((changes.removeLabels ?? []).map((t) => t.trim()));
  return result.filter((label) => !removed.has(label.title));
}

/** Links and unlinks labels, with their resource events; the system note's words ("added ~1 ~2 labels and removed ~3 label"), or null when nothing changed. */
export async function setLabelLinks(ctx: ServiceContext, type: IssuableType, id: number, current: readonly LabelRow[], next: readonly LabelRow[]): Promise<string | null> {
  const at = ctx.now().toISOString();
  const added = next.filter((l) => !current.some((c) => c.id === l.id));
  const removed = current.filter((c) => !next.some((l) => l.id === c.id));
  if (removed.length > 0) {
    await ctx.db.deleteFrom('label_links').where('target_type', '=', type).where('target_id', '=', id).where('label_id', 'in', removed.map((l) => l.id)).execute();
  }
  if (added.length > 0) {
    await ctx.db.insertInto('label_links').values(added.map((l) => ({ label_id: l.id, target_type: type, target_id: id, created_at: at, updated_at: at }))).execute();
  }
  await recordLabelEvents(ctx, { type, id }, requireActor(ctx).user.id, added, removed, at);
  const words = (verb: string, labels: LabelRow[]) => `${verb} ${labels.map((l) => `~${l.id}`).join(' ')} ${labels.length === 1 ? 'label' : 'labels'}`;
  const parts = [...(added.length > 0 ? [words('added', added)] : []), ...(removed.length > 0 ? [words('removed', removed)] : [])];
  return parts.length > 0 ? parts.join(' and ') : null;
}

/** `@a and @b`: users named in system notes, in id order. */
export async function mentionList(db: Kysely<DB>, ids: readonly number[]): Promise<string> {
  const rows = await db.selectFrom('users').select('username').where('id', 'in', ids).orderBy('id').execute();
  return rows.map((u) => `@${u.username}`).join(' and ');
}

/** Of these user ids, those who may be assigned in the project: those who may read it (members, administrators, anyone when it is public or internal). */
export async function assignableUsers(db: Kysely<DB>, project: Pick<ProjectRow, 'id' | 'visibility_level'>, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  if (wanted.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('id', 'in', wanted)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('project_authorizations').select('user_id').whereRef('project_authorizations.user_id', '=', 'users.id').where('project_authorizations.project_id', '=', project.id)),
        eb('users.admin', '=', true),
        eb.lit(project.visibility_level >= 10),
      ]),
    )
    .execute();
  return wanted.filter((id) => rows.some((r) => r.id === id));
}

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_048_576;

/** The model's checks of a title (required when creating) and a description. */
export function textErrors(changes: { title?: string; description?: string | null }, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (changes.title !== undefined || creating) {
    const title = changes.title ?? '';
    if (title.trim() === '') addError(errors, 'title', BLANK);
    else if ([...title].length > TITLE_MAX) addError(errors, 'title', tooLong(TITLE_MAX));
  }
  if (changes.description && [...changes.description].length > DESCRIPTION_MAX) addError(errors, 'description', tooLong(DESCRIPTION_MAX));
  return errors;
}

// ---- List conditions -------------------------------------------------------------------------

const isWord = (value: unknown, word: 'none' | 'any') => typeof value === 'string' && value.toLowerCase() === word;

/** `labels`: None (or "No Label"), Any, or every title given; `idColumn` is the issuable's id (`issues.id`). */
export function labelCondition(type: IssuableType, idColumn: string, titles: readonly string[]): Expression<SqlBool> {
  const labelsOn = sql`select 1 from label_links ll where ll.target_type = ${type} and ll.target_id = ${sql.ref(idColumn)}`;
  if (titles.length === 1 && (isWord(titles[0], 'none') || titles[0] === 'No Label')) return sql<SqlBool>`not exists (${labelsOn})`;
  if (titles.length === 1 && isWord(titles[0], 'any')) return sql<SqlBool>`exists (${labelsOn})`;
  const each = titles.map((title) => sql<SqlBool>`exists (${labelsOn} and ll.label_id in (select l.id from labels l where l.title = ${title.trim()}))`);
  return each.length > 0 ? sql<SqlBool>`(${sql.join(each, sql` and `)})` : sql<SqlBool>`1 = 1`;
}

/** `milestone`: None, Any, or a title; `column` is the issuable's milestone_id. */
export function milestoneCondition(column: string, title: string): Expression<SqlBool> {
  const ref = sql.ref(column);
  if (isWord(title, 'none')) return sql<SqlBool>`${ref} is null`;
  if (isWord(title, 'any')) return sql<SqlBool>`${ref} is not null`;
  return sql<SqlBool>`${ref} in (select m.id from milestones m where m.title = ${title})`;
}

/**
 * The highest priority (the lowest number) that the issuable's labels have in its project; null
 * when none has one. `table` is the issuables' table (`issues` or `merge_requests`).
 */
export function highestLabelPriority(type: IssuableType, table: 'issues' | 'merge_requests') {
  const issuable = (column: string) => sql.ref(`${table}.${column}`);
  return sql<number | null>`(select min(lp.priority) from label_links ll join label_priorities lp on lp.label_id = ll.label_id and lp.project_id = ${issuable('project_id')}
    where ll.target_type = ${type} and ll.target_id = ${issuable('id')})`;
}

/**
 * The issuables of a milestone's list, as the platform finds them (by the milestone's title among
 * the milestones of the places given): `column` is the issuable's milestone_id.
 */
export function milestoneTitledIn(column: string, title: string, places: { projectId: number; groupId: number | null } | { groupId: number }): Expression<SqlBool> {
  const owners = [...('projectId' in places ? [sql`m.project_id = ${places.projectId}`] : []), ...(places.groupId !== null ? [sql`m.group_id = ${places.groupId}`] : [])];
  return sql<SqlBool>`${sql.ref(column)} in (select m.id from milestones m where m.title = ${title} and (${sql.join(owners, sql` or `)}))`;
}

/** The platform's label_priority order: the highest priority first, none last, then the newest first. */
export function labelPriorityOrder(type: IssuableType, table: 'issues' | 'merge_requests') {
  const priority = highestLabelPriority(type, table);
  return sql`(${priority} is null), ${priority}, ${sql.ref(`${table}.id`)} desc`;
}

/** `column` (a project id) names a project directly in the group. */
export function inProjectsOf(column: string, groupId: number): Expression<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (select p.id from projects p where p.namespace_id = ${groupId})`;
}

/** `column` (a project id) names a project of the group with this traversal path, or of a subgroup of it. */
export function inProjectsUnder(column: string, traversalPath: string): Expression<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (select p.id from projects p join namespaces n on n.id = p.namespace_id where ${inSubtree('n.traversal_path', traversalPath)})`;
}

/** A milestone as a page shows it: with its group's full path when it is a group's (null for a project's). */
export type IssuableMilestone = MilestoneRow & { group_full_path: string | null };

/** What an issuable shows of the users it names (the fields of the users presenter's UserBasic). */
export type IssuableUser = Pick<UserRow, 'id' | 'username' | 'name' | 'state'>;

const userRows = prepared((db, ids: readonly number[]) => db.selectFrom('users').select(['id', 'username', 'name', 'state']).where('id', 'in', ids));

/** The users a page of issuables names, with what it shows of them only. */
export async function issuableUsers(db: Kysely<DB>, ids: Iterable<number>): Promise<Map<number, IssuableUser>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = await userRows(db, wanted);
  return new Map(rows.map((u) => [u.id, u]));
}

const milestoneRows = prepared((db, ids: readonly number[]) =>
  db.selectFrom('milestones').leftJoin('namespaces', 'namespaces.id', 'milestones.group_id').selectAll('milestones').select('namespaces.full_path as group_full_path').where('milestones.id', 'in', ids),
);

/** The milestones of a page by id, in one query. */
export async function milestonesById(db: Kysely<DB>, ids: Iterable<number | null>): Promise<Map<number, IssuableMilestone>> {
  const wanted = [...new Set([...ids].filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await milestoneRows(db, wanted);
  return new Map(rows.map((m) => [m.id, m]));
}

/** Rows of (issuable, user) pairs as a list of user ids per issuable. */
export function usersPer(rows: readonly { key: number | string; user_id: number | string }[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const row of rows) {
    const list = out.get(Number(row.key)) ?? [];
    list.push(Number(row.user_id));
    out.set(Number(row.key), list);
  }
  return out;
}

/** A user's explicit choices to follow (true) or not (false) these issuables. */
export async function subscriptionChoices(db: Kysely<DB>, type: IssuableType, ids: readonly number[], userId: number): Promise<Map<number, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('subscriptions')
    .select(['subscribable_id', 'subscribed'])
    .where('subscribable_type', '=', type)
    .where('subscribable_id', 'in', ids)
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((row) => [Number(row.subscribable_id), Boolean(row.subscribed)]));
}
