// A security scan's warnings: what is wrong with a report that was read all the same (a schema
// version the platform does not know, items left out), kept beside its errors as the platform
// keeps both on the scan. Both hold JSON lists of `{type, message}`.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('security_scans').addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}
