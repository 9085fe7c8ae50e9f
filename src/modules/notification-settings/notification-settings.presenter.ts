// Pure notification setting rows (or none yet) → the notification setting entities.
import type { NotificationSettingRow } from '../../db/schema.ts';
import { NOTIFICATION_EVENTS, type GlobalNotificationSetting, type NotificationEvents, type NotificationSetting } from './notification-settings.schemas.ts';

/** What a setting never written holds: its level, and events as a new row has them. */
export type StoredSetting = Pick<NotificationSettingRow, 'level' | (typeof NOTIFICATION_EVENTS)[number]>;

export const unsetEvents = (): Omit<StoredSetting, 'level'> => ({
  ...(Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, null])) as Omit<StoredSetting, 'level'>),
  moved_project: true,
  merge_when_pipeline_succeeds: false,
});

function eventsOf(row: StoredSetting): NotificationEvents {
  const events = Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, row[event]])) as NotificationEvents;
  // The platform sends failed and fixed pipelines unless they were switched off.
  events.failed_pipeline = row.failed_pipeline ?? true;
  events.fixed_pipeline = row.fixed_pipeline ?? true;
  return events;
}

export function presentNotificationSetting(row: StoredSetting): NotificationSetting {
  return row.level === 'custom' ? { level: row.level, events: eventsOf(row) } : { level: row.level };
}

/** The global setting names where notifications go: the chosen email, or the primary one. */
export function presentGlobalNotificationSetting(row: StoredSetting & { notification_email: string | null }, primaryEmail: string): GlobalNotificationSetting {
  return { ...presentNotificationSetting(row), notification_email: row.notification_email ?? primaryEmail };
}
