// Reads of SSH keys: a user's keys, any key by id or fingerprint (with its owner), and the key a
// public key signs in as, which the SSH server asks for each key a client offers.
import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, DeployKeysProjectRow, KeyRow, UserRow } from '../../db/schema.ts';
import { type FingerprintQuery, parseFingerprint, parseSshPublicKey, wireFingerprintSha256 } from '../../domain/ssh-public-keys.ts';

type KeyQuery = SelectQueryBuilder<DB, 'keys', KeyRow>;

/**
 * A private deploy key that no project uses any more: the platform deletes it with its last
 * project. Removing a key from a project does so at once; a deleted project's keys are removed by
 * a periodic task (keys.jobs.ts) and, until then, count as gone.
 */
export function orphanedDeployKey(eb: ExpressionBuilder<DB, 'keys'>) {
  return eb.and([
    eb('keys.type', '=', 'DeployKey'),
    eb('keys.public', '=', false),
    eb.not(eb.exists(eb.selectFrom('deploy_keys_projects').select('deploy_keys_projects.id').whereRef('deploy_keys_projects.deploy_key_id', '=', 'keys.id'))),
  ]);
}

/** Every key that exists for the API (orphaned deploy keys do not). */
export function liveKeys(db: Kysely<DB>): KeyQuery {
  return db
    .selectFrom('keys')
    .selectAll('keys')
    .where((eb) => eb.not(orphanedDeployKey(eb)));
}

/** A user's own keys (deploy keys they added are not theirs), oldest first; unexecuted. */
export function userKeys(db: Kysely<DB>, userId: number): KeyQuery {
  return db.selectFrom('keys').selectAll('keys').where('type', '=', 'Key').where('user_id', '=', userId).orderBy('id', 'asc');
}

export function findUserKey(db: Kysely<DB>, userId: number, keyId: number): Promise<KeyRow | undefined> {
  return userKeys(db, userId).where('id', '=', keyId).executeTakeFirst();
}

export function findKeyById(db: Kysely<DB>, id: number): Promise<KeyRow | undefined> {
  return liveKeys(db).where('id', '=', id).executeTakeFirst();
}

export function findKeyByFingerprint(db: Kysely<DB>, fingerprint: FingerprintQuery): Promise<KeyRow | undefined> {
  const q = liveKeys(db);
  return ('md5' in fingerprint ? q.where('fingerprint', '=', fingerprint.md5) : q.where('fingerprint_sha256', '=', fingerprint.sha256)).executeTakeFirst();
}

/**
 * Whom a key is shown with: a user key's owner, a deploy key's creator, or (that user deleted)
 * the ghost user that holds what deleted users left; null when there is none.
 */
export async function keyOwner(db: Kysely<DB>, key: KeyRow): Promise<UserRow | null> {
  const id = key.user_id ?? key.creator_id;
  const q = db.selectFrom('users').selectAll();
  const owner = await (id !== null ? q.where('id', '=', id) : q.where('user_type', '=', 'ghost').orderBy('id')).executeTakeFirst();
  return owner ?? null;
}

/** The projects a deploy key is enabled on, in the order it was enabled. */
export function deployKeyProjects(db: Kysely<DB>, keyId: number): Promise<DeployKeysProjectRow[]> {
  return db.selectFrom('deploy_keys_projects').selectAll().where('deploy_key_id', '=', keyId).orderBy('id').execute();
}

// ---- Signing in with a key (the SSH server) ------------------------------------------------------

export interface DeployKeyAccess {
  projectId: number;
  canPush: boolean;
}

/** What a public key signs in as: a user, or a deploy key with the projects it reaches. */
export type ActiveKey =
  | { kind: 'user'; keyId: number; user: UserRow }
  | { kind: 'deploy'; keyId: number; title: string; creatorId: number | null; projects: DeployKeyAccess[] };

/** The stored fingerprint to look an offered key up by; null when it reads as none. */
function offeredFingerprint(offered: string | Uint8Array): FingerprintQuery | null {
  if (typeof offered !== 'string') return { sha256: wireFingerprintSha256(offered) };
  const parsed = parseSshPublicKey(offered);
  return parsed ? { sha256: parsed.fingerprintSha256 } : parseFingerprint(offered);
}

/**
 * The key a client signs in with, given its public key (the wire form an SSH server receives, or
 * an OpenSSH line) or its fingerprint (`SHA256:…` or MD5 `aa:bb:…`). Null when no key matches or
 * the key has expired (expired keys stop authenticating). Whether the user may still sign in
 * (blocked, say) is the caller's question.
 */
export async function findActiveKey(db: Kysely<DB>, offered: string | Uint8Array, now: Date): Promise<ActiveKey | null> {
  const fingerprint = offeredFingerprint(offered);
  if (!fingerprint) return null;
  const key = await findKeyByFingerprint(db, fingerprint);
  if (!key || (key.expires_at !== null && key.expires_at <= now.toISOString())) return null;
  if (key.type === 'DeployKey') {
    const projects = await deployKeyProjects(db, key.id);
    return { kind: 'deploy', keyId: key.id, title: key.title, creatorId: key.creator_id, projects: projects.map((p) => ({ projectId: p.project_id, canPush: p.can_push })) };
  }
  const user = key.user_id === null ? undefined : await db.selectFrom('users').selectAll().where('id', '=', key.user_id).executeTakeFirst();
  return user ? { kind: 'user', keyId: key.id, user } : null;
}
