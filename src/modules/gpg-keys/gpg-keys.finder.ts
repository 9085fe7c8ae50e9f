// Reads of GPG keys: a user's keys, the key (or subkey) a signature names, the addresses a key's
// owner has (proved or not), and the verdict kept for a signed commit.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, GpgKeyRow, GpgKeySubkeyRow, GpgSignatureRow, UserRow } from '../../db/schema.ts';

/** A user's keys, oldest first; unexecuted, for pagination. */
export function userGpgKeys(db: Kysely<DB>, userId: number): SelectQueryBuilder<DB, 'gpg_keys', GpgKeyRow> {
  return db.selectFrom('gpg_keys').selectAll().where('user_id', '=', userId).orderBy('id', 'asc');
}

export function findUserGpgKey(db: Kysely<DB>, userId: number, keyId: number): Promise<GpgKeyRow | undefined> {
  return userGpgKeys(db, userId).where('id', '=', keyId).executeTakeFirst();
}

export interface SigningKey {
  key: GpgKeyRow;
  /** Set when a subkey made the signature. */
  subkey: GpgKeySubkeyRow | null;
}

/** The stored key whose primary key or subkey has this fingerprint (40 digits) or key id (16). */
export async function findSigningKey(db: Kysely<DB>, issuer: string): Promise<SigningKey | null> {
  const column = issuer.length > 16 ? 'fingerprint' : 'primary_keyid';
  const key = await db.selectFrom('gpg_keys').selectAll().where(column, '=', issuer).executeTakeFirst();
  if (key) return { key, subkey: null };
  const subkey = await db
    .selectFrom('gpg_key_subkeys')
    .selectAll()
    .where(issuer.length > 16 ? 'fingerprint' : 'keyid', '=', issuer)
    .executeTakeFirst();
  if (!subkey) return null;
  const parent = await db.selectFrom('gpg_keys').selectAll().where('id', '=', subkey.gpg_key_id).executeTakeFirstOrThrow();
  return { key: parent, subkey };
}

export function findKeyOwner(db: Kysely<DB>, key: GpgKeyRow): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', key.user_id).executeTakeFirst();
}

/** A user's further addresses in lower case: those confirmed, and all of them. */
export async function furtherAddresses(db: Kysely<DB>, userId: number): Promise<{ confirmed: string[]; all: string[] }> {
  const rows = await db.selectFrom('emails').select(['email', 'confirmed_at']).where('user_id', '=', userId).execute();
  return { confirmed: rows.filter((r) => r.confirmed_at !== null).map((r) => r.email.toLowerCase()), all: rows.map((r) => r.email.toLowerCase()) };
}

export function findStoredSignature(db: Kysely<DB>, projectId: number, commitSha: string): Promise<GpgSignatureRow | undefined> {
  return db.selectFrom('gpg_signatures').selectAll().where('project_id', '=', projectId).where('commit_sha', '=', commitSha).executeTakeFirst();
}

/** The primary key id and subkey ids and fingerprints of a key: what a stored signature names it by. */
export async function keyIdentifiers(db: Kysely<DB>, key: GpgKeyRow): Promise<string[]> {
  const subkeys = await db.selectFrom('gpg_key_subkeys').select(['keyid', 'fingerprint']).where('gpg_key_id', '=', key.id).execute();
  return [key.primary_keyid, key.fingerprint, ...subkeys.flatMap((s) => [s.keyid, s.fingerprint])];
}

/** Signatures naming one of these identifiers that are not verified yet: a new key or address may verify them. */
export function unsettledSignatures(db: Kysely<DB>, identifiers: string[]): Promise<Pick<GpgSignatureRow, 'id' | 'project_id' | 'commit_sha'>[]> {
  return db
    .selectFrom('gpg_signatures')
    .select(['id', 'project_id', 'commit_sha'])
    .where('gpg_key_primary_keyid', 'in', identifiers)
    .where((eb) => eb.or([eb('gpg_key_id', 'is', null), eb('verification_status', '!=', 'verified')]))
    .orderBy('id')
    .execute();
}

