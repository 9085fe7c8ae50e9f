// Reading pipeline triggers: a project's, one of them, and the one a token names.
import type { Kysely } from 'kysely';
import { digest } from '../../core/auth/secrets.ts';
import type { CiTriggerRow, DB, UserRow } from '../../db/schema.ts';

export function findTriggers(db: Kysely<DB>, projectId: number) {
  return db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).orderBy('id');
}

export async function findTrigger(db: Kysely<DB>, projectId: number, id: number): Promise<CiTriggerRow | null> {
  return (await findTriggers(db, projectId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function triggerByToken(db: Kysely<DB>, token: string): Promise<CiTriggerRow | null> {
  return (await db.selectFrom('ci_triggers').selectAll().where('token_digest', '=', digest(token)).executeTakeFirst()) ?? null;
}

/** The owners of some triggers, by id. */
export async function triggerOwners(db: Kysely<DB>, rows: readonly CiTriggerRow[]): Promise<Map<number, UserRow>> {
  const ids = [...new Set(rows.map((r) => r.owner_id).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const users = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return new Map(users.map((u) => [u.id, u]));
}
