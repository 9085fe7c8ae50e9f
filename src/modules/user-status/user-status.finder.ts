// Reads of users' statuses: a status past its clear_status_at is gone, whether or not the periodic
// clean-up has removed its row yet.
import type { Kysely } from 'kysely';
import type { DB, UserStatusRow } from '../../db/schema.ts';

export function findUserStatus(db: Kysely<DB>, userId: number, now: Date): Promise<UserStatusRow | undefined> {
  return db
    .selectFrom('user_statuses')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('clear_status_at', 'is', null), eb('clear_status_at', '>', now.toISOString())]))
    .executeTakeFirst();
}
