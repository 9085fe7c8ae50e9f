// Reads of a group's export and import state.
import type { Kysely } from 'kysely';
import type { DB, GroupExportRow, GroupImportStateRow } from '../../db/schema.ts';

export function findGroupExport(db: Kysely<DB>, groupId: number): Promise<GroupExportRow | undefined> {
  return db.selectFrom('group_exports').selectAll().where('group_id', '=', groupId).executeTakeFirst();
}

export function findGroupImportState(db: Kysely<DB>, groupId: number): Promise<GroupImportStateRow | undefined> {
  return db.selectFrom('group_import_states').selectAll().where('group_id', '=', groupId).executeTakeFirst();
}
