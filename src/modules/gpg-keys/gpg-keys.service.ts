// Writes of GPG keys (the platform's GpgKeys::CreateService, DestroyService and GpgKey#revoke,
// 14.x). A new key, or a newly confirmed address, may verify signatures already judged: a
// background job judges those again. Revoking a key turns the verdicts it gave into unknown_key
// before removing it; deleting leaves them as they were.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, GpgKeyRow, UserRow } from '../../db/schema.ts';
import { TAKEN } from '../../domain/validation.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { checkGpgKey } from './gpg-keys.validation.ts';

const Payload = Type.Object({ gpgKeyId: Type.Integer() }, { additionalProperties: false });
/** Judges again the unverified signatures that name a key (the platform's InvalidGpgSignatureUpdateWorker). */
export const RECHECK_SIGNATURES: JobDeclaration<typeof Payload> = { name: 'gpg_keys.recheck_signatures', payload: Payload, maxAttempts: 5 };

/** POST /user/gpg_keys, POST /users/:id/gpg_keys: the stored key, or the model's 400. */
export async function addGpgKey(ctx: ServiceContext, user: UserRow, input: string): Promise<GpgKeyRow> {
  try {
    return await withTransaction(ctx, async ({ db }) => {
      const check = await checkGpgKey(db, input);
      if (check.errors) throw invalidFields(check.errors);
      const at = ctx.now().toISOString();
      const row = await db
        .insertInto('gpg_keys')
        .values({ user_id: user.id, key: check.key, primary_keyid: check.parsed.primaryKeyid, fingerprint: check.parsed.fingerprint, created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (check.parsed.subkeys.length > 0) {
        await db
          .insertInto('gpg_key_subkeys')
          .values(check.parsed.subkeys.map((s) => ({ gpg_key_id: row.id, keyid: s.keyid, fingerprint: s.fingerprint })))
          .execute();
      }
      await enqueue(db, RECHECK_SIGNATURES, { gpgKeyId: row.id });
      return row;
    });
  } catch (error) {
    // The same key added twice at once, or a subkey another key has: taken, as the model says.
    if (isUniqueViolation(error)) throw invalidFields({ fingerprint: [TAKEN] });
    throw error;
  }
}

export async function deleteGpgKey(ctx: ServiceContext, key: GpgKeyRow): Promise<void> {
  await ctx.db.deleteFrom('gpg_keys').where('id', '=', key.id).execute();
}

/** POST …/gpg_keys/:key_id/revoke: the commits the key verified stop being verified, and the key goes. */
export async function revokeGpgKey(ctx: ServiceContext, key: GpgKeyRow): Promise<void> {
  await withTransaction(ctx, async ({ db }) => {
    const subkeyIds = db.selectFrom('gpg_key_subkeys').select('id').where('gpg_key_id', '=', key.id);
    await db
      .updateTable('gpg_signatures')
      .set({ gpg_key_id: null, gpg_key_subkey_id: null, verification_status: 'unknown_key', updated_at: ctx.now().toISOString() })
      .where((eb) => eb.or([eb('gpg_key_id', '=', key.id), eb('gpg_key_subkey_id', 'in', subkeyIds)]))
      .where('verification_status', 'not in', ['unknown_key', 'unverified_key'])
      .execute();
    await db.deleteFrom('gpg_keys').where('id', '=', key.id).execute();
  });
}

/** A user's address was confirmed: the signatures of each of their keys are judged again. */
export async function recheckUserSignatures(db: Kysely<DB>, userId: number): Promise<void> {
  const keys = await db.selectFrom('gpg_keys').select('id').where('user_id', '=', userId).execute();
  for (const key of keys) await enqueue(db, RECHECK_SIGNATURES, { gpgKeyId: key.id });
}
