// Records that name their author and outlive the author's account: deleting a user hands them to
// the ghost user (the platform's Users::MigrateToGhostUserService), unless the deletion is a hard
// one, which leaves them without an author. One list, so that every new kind of record is handed
// over too.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export const AUTHORED_RECORDS = [
  ['issues', 'author_id'],
  ['notes', 'author_id'],
  ['releases', 'author_id'],
  ['merge_requests', 'author_id'],
] as const satisfies readonly (readonly [keyof DB, string])[];

/** Gives every record authored by `fromUserId` to `toUserId`. */
export async function handOverContributions(db: Kysely<DB>, fromUserId: number, toUserId: number): Promise<void> {
  for (const [table, column] of AUTHORED_RECORDS) {
    await db
      .updateTable(table as 'issues')
      .set({ [column]: toUserId } as { author_id: number })
      .where(column as 'author_id', '=', fromUserId)
      .execute();
  }
}
