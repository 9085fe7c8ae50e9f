// Reads of protected branches and tags. Lists are builders ordered by id (the platform's order);
// access levels are read for many rules at once and grouped by rule.
import type { Kysely } from 'kysely';
import { fuzzyMatch } from '../../core/search.ts';
import type { DB } from '../../db/schema.ts';
import type { RefProtections } from '../../domain/ref-protection.ts';

export interface ProtectedBranchFilters {
  search?: string;
}

/** A project's protected branches; `search` matches names as the platform's fuzzy search does. */
export function findProtectedBranches(db: Kysely<DB>, projectId: number, filters: ProtectedBranchFilters = {}) {
  let qb = db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId);
  const match = filters.search === undefined ? null : fuzzyMatch(filters.search, ['name']);
  if (match) qb = qb.where(() => match);
  return qb.orderBy('id');
}

export type ProtectedBranchRow = Awaited<ReturnType<ReturnType<typeof findProtectedBranches>['executeTakeFirstOrThrow']>>;

/** The rule with exactly this name: patterns are looked up literally, never matched. */
export async function findProtectedBranch(db: Kysely<DB>, projectId: number, name: string): Promise<ProtectedBranchRow | undefined> {
  return findProtectedBranches(db, projectId).where('name', '=', name).executeTakeFirst();
}

export interface BranchAccessLevelRow {
  protected_branch_id: number;
  action: string;
  access_level: number;
  deploy_key_id: number | null;
}

/** Access levels of a project's protected branches (or of some of them), by rule, oldest first. */
export async function branchAccessLevels(db: Kysely<DB>, projectId: number, branchIds?: number[]): Promise<Map<number, BranchAccessLevelRow[]>> {
  if (branchIds?.length === 0) return new Map();
  let qb = db
    .selectFrom('protected_branch_access_levels as l')
    .innerJoin('protected_branches as b', 'b.id', 'l.protected_branch_id')
    .select(['l.protected_branch_id', 'l.action', 'l.access_level', 'l.deploy_key_id'])
    .where('b.project_id', '=', projectId);
  if (branchIds) qb = qb.where('l.protected_branch_id', 'in', branchIds);
  return groupBy(await qb.orderBy('l.id').execute(), (r) => r.protected_branch_id);
}

/** Which of these deploy keys are enabled on the project. */
export async function deployKeysEnabledOn(db: Kysely<DB>, projectId: number, keyIds: number[]): Promise<Set<number>> {
  if (keyIds.length === 0) return new Set();
  const rows = await db.selectFrom('deploy_keys_projects').select('deploy_key_id').where('project_id', '=', projectId).where('deploy_key_id', 'in', keyIds).execute();
  return new Set(rows.map((r) => r.deploy_key_id));
}

export function findProtectedTags(db: Kysely<DB>, projectId: number) {
  return db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id');
}

export type ProtectedTagRow = Awaited<ReturnType<ReturnType<typeof findProtectedTags>['executeTakeFirstOrThrow']>>;

export async function findProtectedTag(db: Kysely<DB>, projectId: number, name: string): Promise<ProtectedTagRow | undefined> {
  return findProtectedTags(db, projectId).where('name', '=', name).executeTakeFirst();
}

/** Create access levels of a project's protected tags (or of some of them), by rule. */
export async function tagAccessLevels(db: Kysely<DB>, projectId: number, tagIds?: number[]): Promise<Map<number, number[]>> {
  if (tagIds?.length === 0) return new Map();
  let qb = db
    .selectFrom('protected_tag_create_access_levels as l')
    .innerJoin('protected_tags as t', 't.id', 'l.protected_tag_id')
    .select(['l.protected_tag_id', 'l.access_level'])
    .where('t.project_id', '=', projectId);
  if (tagIds) qb = qb.where('l.protected_tag_id', 'in', tagIds);
  const grouped = groupBy(await qb.orderBy('l.id').execute(), (r) => r.protected_tag_id);
  return new Map([...grouped].map(([id, rows]) => [id, rows.map((r) => r.access_level)]));
}

/** Every protection of a project, as the rules of domain/ref-protection.ts take them: one query per table. */
export async function loadRefProtections(db: Kysely<DB>, projectId: number): Promise<RefProtections> {
  const [branches, branchLevels, tags, tagLevels] = await Promise.all([
    findProtectedBranches(db, projectId).execute(),
    branchAccessLevels(db, projectId),
    findProtectedTags(db, projectId).execute(),
    tagAccessLevels(db, projectId),
  ]);
  return {
    branches: branches.map((b) => {
      const levels = branchLevels.get(b.id) ?? [];
      const of = (action: string) => levels.filter((l) => l.action === action && l.deploy_key_id === null).map((l) => l.access_level);
      return {
        name: b.name,
        pushAccessLevels: of('push'),
        pushDeployKeyIds: levels.flatMap((l) => (l.action === 'push' && l.deploy_key_id !== null ? [l.deploy_key_id] : [])),
        mergeAccessLevels: of('merge'),
        unprotectAccessLevels: of('unprotect'),
        allowForcePush: b.allow_force_push,
        codeOwnerApprovalRequired: b.code_owner_approval_required,
      };
    }),
    tags: tags.map((t) => ({ name: t.name, createAccessLevels: tagLevels.get(t.id) ?? [] })),
  };
}

function groupBy<T>(rows: T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const row of rows) {
    const id = key(row);
    const list = out.get(id);
    if (list) list.push(row);
    else out.set(id, [row]);
  }
  return out;
}
