// A group's settings, one typed column each. Who may create projects and subgroups sits on the
// namespace's own row (the ability table reads it with every group, as the platform's namespaces
// table keeps it); the rest in namespace_settings, keyed by namespace_id. A group without a row
// there (one inserted straight into `namespaces`) reads as the declared defaults.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../core/secret-box.ts';
import { digest } from '../../core/auth/secrets.ts';
import type { DB } from '../../db/schema.ts';
import { BRANCH_PROTECTION_LEVELS, PROJECT_CREATION_LEVELS, applicationSettings } from './application-settings.ts';
import { type Values, bool, boolOrNull, declareSettings, int, intOrNull, oneOf } from './declare.ts';

export const SUBGROUP_CREATION_LEVELS = ['owner', 'maintainer'] as const;
export const SHARED_RUNNERS_SETTINGS = ['disabled_and_unoverridable', 'disabled_with_override', 'enabled'] as const;

/** Columns of `namespaces`. A new group's project_creation_level follows the instance's default_project_creation. */
export const GROUP_CREATION_LEVELS = declareSettings('namespaces', {
  project_creation_level: oneOf(PROJECT_CREATION_LEVELS, 'developer'),
  subgroup_creation_level: oneOf(SUBGROUP_CREATION_LEVELS, 'maintainer'),
});

export const NAMESPACE_SETTINGS = declareSettings('namespace_settings', {
  share_with_group_lock: bool(false),
  require_two_factor_authentication: bool(false),
  two_factor_grace_period: int(48),
  auto_devops_enabled: boolOrNull(null),
  emails_disabled: boolOrNull(null),
  mentions_disabled: boolOrNull(null),
  // Unset: the instance's (LFS on); the entity shows what applies.
  lfs_enabled: boolOrNull(null, { field: null }),
  // Unset: the instance's default_branch_protection; the entity shows what applies.
  default_branch_protection: intOrNull(null, { field: null, values: BRANCH_PROTECTION_LEVELS }),
  shared_runners_setting: oneOf(SHARED_RUNNERS_SETTINGS, 'enabled', { field: null }),
  // Shown on a top-level group's detail only.
  prevent_sharing_groups_outside_hierarchy: bool(false, { field: null, only: 'update' }),
});

export type GroupCreationLevels = Values<typeof GROUP_CREATION_LEVELS.specs>;
export type NamespaceSettings = Values<typeof NAMESPACE_SETTINGS.specs>;

/** The settings of these groups, by id: one query. */
export async function loadNamespaceSettings(db: Kysely<DB>, namespaceIds: readonly number[]): Promise<Map<number, NamespaceSettings>> {
  const out = new Map<number, NamespaceSettings>();
  if (namespaceIds.length === 0) return out;
  const rows = await db.selectFrom('namespace_settings').selectAll().where('namespace_id', 'in', namespaceIds).execute();
  const byId = new Map(rows.map((row) => [Number(row.namespace_id), row]));
  for (const id of namespaceIds) out.set(id, NAMESPACE_SETTINGS.read(byId.get(id)));
  return out;
}

export async function readNamespaceSettings(db: Kysely<DB>, namespaceId: number): Promise<NamespaceSettings> {
  return (await loadNamespaceSettings(db, [namespaceId])).get(namespaceId) as NamespaceSettings;
}

/** Changes some settings: the row is updated, or created with the defaults and the changes. */
export async function updateNamespaceSettings(db: Kysely<DB>, namespaceId: number, changes: Partial<NamespaceSettings>): Promise<void> {
  const columns = NAMESPACE_SETTINGS.columns(changes);
  const insert = db.insertInto('namespace_settings').values({ namespace_id: namespaceId, ...NAMESPACE_SETTINGS.defaultColumns(), ...columns });
  await (Object.keys(columns).length === 0 ? insert.onConflict((oc) => oc.column('namespace_id').doNothing()) : insert.onConflict((oc) => oc.column('namespace_id').doUpdateSet(columns))).execute();
}

/** The default_branch_protection that applies in a namespace: its group's own, else the instance's. */
export async function defaultBranchProtection(db: Kysely<DB>, namespace: { id: number; type: string }): Promise<number> {
  const own = namespace.type === 'Group' ? (await readNamespaceSettings(db, namespace.id)).default_branch_protection : null;
  return own ?? (await applicationSettings(db)).default_branch_protection;
}

/**
 * The group's runners registration token, made on first use for a group without one. It is kept
 * encrypted (the API shows it to the group's owners) beside its digest, which finds the group.
 */
export async function groupRunnersToken(db: Kysely<DB>, box: SecretBox, namespaceId: number, newToken: () => string): Promise<string> {
  const row = await db.selectFrom('namespace_settings').select('runners_token_encrypted').where('namespace_id', '=', namespaceId).executeTakeFirst();
  if (row?.runners_token_encrypted) return box.open(row.runners_token_encrypted);
  const token = newToken();
  const sealed = { runners_token_encrypted: box.seal(token), runners_token_digest: digest(token) };
  await db
    .insertInto('namespace_settings')
    .values({ namespace_id: namespaceId, ...NAMESPACE_SETTINGS.defaultColumns(), ...sealed })
    .onConflict((oc) => oc.column('namespace_id').doUpdateSet(sealed).where('namespace_settings.runners_token_encrypted', 'is', null))
    .execute();
  // Another request may have made one first: the stored token is the group's.
  const stored = await db.selectFrom('namespace_settings').select('runners_token_encrypted').where('namespace_id', '=', namespaceId).executeTakeFirstOrThrow();
  return box.open(stored.runners_token_encrypted as string);
}
