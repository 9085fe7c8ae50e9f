// Who an alert from a monitoring tool is assigned to (the platform keeps one, in a list).
import type { Kysely } from 'kysely';
import { withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('alert_management_alert_assignees'))
    .addColumn('alert_id', 'bigint', (c) => c.notNull().references('alert_management_alerts.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('alert_management_alert_assignees_alert_user').on('alert_management_alert_assignees').columns(['alert_id', 'user_id']).unique().execute();
  await db.schema.createIndex('alert_management_alert_assignees_user').on('alert_management_alert_assignees').column('user_id').execute();
}
