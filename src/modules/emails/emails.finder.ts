// Reads of users' further email addresses.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB, EmailRow } from '../../db/schema.ts';

/** A user's addresses, oldest first; unexecuted, for pagination. */
export function userEmails(db: Kysely<DB>, userId: number): SelectQueryBuilder<DB, 'emails', EmailRow> {
  return db.selectFrom('emails').selectAll().where('user_id', '=', userId).orderBy('id', 'asc');
}

export function findUserEmail(db: Kysely<DB>, userId: number, emailId: number): Promise<EmailRow | undefined> {
  return userEmails(db, userId).where('id', '=', emailId).executeTakeFirst();
}

/** Whether any user has this address, as primary or further address, in any case. */
export async function emailInUse(db: Kysely<DB>, email: string): Promise<boolean> {
  const lower = email.toLowerCase();
  const primary = await db.selectFrom('users').select('id').where(sql`lower(email)`, '=', lower).executeTakeFirst();
  if (primary) return true;
  return (await db.selectFrom('emails').select('id').where(sql`lower(email)`, '=', lower).executeTakeFirst()) !== undefined;
}
