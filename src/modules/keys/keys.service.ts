// Writes of SSH keys: adding and removing a user's keys, and what deploy keys share with them
// (storing a checked key under the one-key-per-fingerprint rule, removing keys no project uses).
import type { Insertable, Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, KeyRow, KeysTable, UserRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { TAKEN } from '../../domain/validation.ts';
import { orphanedDeployKey } from './keys.finder.ts';
import { checkKey } from './keys.validation.ts';

/** Which orphaned deploy keys to remove: these, those of a fingerprint, or every one. */
type OrphanScope = { ids: number[] } | { fingerprint: string; fingerprintSha256: string } | 'all';

/** Removes private deploy keys that no project uses any more; returns how many went. */
export async function removeOrphanedDeployKeys(db: Kysely<DB>, scope: OrphanScope): Promise<number> {
  let q = db.deleteFrom('keys').where((eb) => orphanedDeployKey(eb));
  if (scope !== 'all') {
    q =
      'ids' in scope
        ? q.where('id', 'in', scope.ids.length > 0 ? scope.ids : [-1])
        : q.where((eb) => eb.or([eb('fingerprint', '=', scope.fingerprint), eb('fingerprint_sha256', '=', scope.fingerprintSha256)]));
  }
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Stores a checked key, first removing an orphaned deploy key of the same fingerprint (which
 * counts as gone). Null when a key of that fingerprint was stored meanwhile: the platform's
 * "has already been taken".
 */
export async function insertKey(db: Kysely<DB>, values: Insertable<KeysTable>): Promise<KeyRow | null> {
  await removeOrphanedDeployKeys(db, { fingerprint: values.fingerprint, fingerprintSha256: values.fingerprint_sha256 });
  try {
    return await db.insertInto('keys').values(values).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** POST /user/keys, POST /users/:id/keys: a key for this user, or the model's 400. */
export async function addUserKey(ctx: ServiceContext, user: UserRow, input: { title: string; key: string; expires_at?: string }): Promise<KeyRow> {
  const restrictions = await applicationSettings(ctx.db);
  return withTransaction(ctx, async ({ db }) => {
    const { key, errors } = await checkKey(db, restrictions, input);
    if (errors) throw invalidFields(errors);
    const at = ctx.now().toISOString();
    const row = await insertKey(db, {
      type: 'Key',
      user_id: user.id,
      creator_id: null,
      title: key.title,
      key: key.key,
      fingerprint: key.fingerprint,
      fingerprint_sha256: key.fingerprintSha256,
      public: false,
      expires_at: input.expires_at === undefined ? null : new Date(input.expires_at).toISOString(),
      created_at: at,
      updated_at: at,
    });
    if (!row) throw invalidFields({ fingerprint: [TAKEN] });
    return row;
  });
}

export async function deleteUserKey(ctx: ServiceContext, key: KeyRow): Promise<void> {
  await ctx.db.deleteFrom('keys').where('id', '=', key.id).where('type', '=', 'Key').execute();
}
