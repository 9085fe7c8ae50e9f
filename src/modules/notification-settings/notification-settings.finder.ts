// Reads of a user's notification settings: the global one and one per project or group, each as
// stored or, never set, as the platform's defaults (participating globally, global elsewhere).
import type { Kysely } from 'kysely';
import type { DB, NotificationSettingRow } from '../../db/schema.ts';

/** Whose setting: the user's global one, or the one for a project or group. */
export type NotificationSource = 'global' | { projectId: number } | { groupId: number };

export function sourceKey(source: NotificationSource): string {
  if (source === 'global') return 'global';
  return 'projectId' in source ? `project:${source.projectId}` : `group:${source.groupId}`;
}

export function findNotificationSetting(db: Kysely<DB>, userId: number, source: NotificationSource): Promise<NotificationSettingRow | undefined> {
  return db.selectFrom('notification_settings').selectAll().where('user_id', '=', userId).where('source_key', '=', sourceKey(source)).executeTakeFirst();
}

/** The level a setting has before the user chooses one. */
export const defaultLevel = (source: NotificationSource) => (source === 'global' ? 'participating' : 'global');
