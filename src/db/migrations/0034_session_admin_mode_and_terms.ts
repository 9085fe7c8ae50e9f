// Two settings that need state per user or per session: admin mode (an administrator's web session
// acts as administrator only for a while after re-entering the password) and the terms of service
// (when enforced, a user must have accepted them before using the API or git).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('web_sessions').addColumn('admin_mode_until', 'varchar(32)').execute();
  await db.schema.alterTable('users').addColumn('terms_accepted_at', 'varchar(32)').execute();
}
