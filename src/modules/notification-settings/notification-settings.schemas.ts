// Notification settings (the platform's notification_settings API, 14.x): a user's global level
// and email, and a level for each project or group; the level 'custom' chooses events one by one.
import { type Static, type TProperties, Type } from '@sinclair/typebox';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

export const NOTIFICATION_LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** The events a custom level chooses from, in the platform's order (release 14.x, Community Edition). */
export const NOTIFICATION_EVENTS = [
  'new_release',
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'issue_due',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'change_reviewer_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'fixed_pipeline',
  'success_pipeline',
  'moved_project',
  'merge_when_pipeline_succeeds',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

const eachEvent = <T extends TProperties[string]>(schema: () => T) => Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, schema()])) as Record<NotificationEvent, T>;

/** An event never chosen reads null (the pipeline events read true, as the platform's). */
export const NotificationEventsEntity = Entity(eachEvent(() => Nullable(Type.Boolean())));
export type NotificationEvents = Static<typeof NotificationEventsEntity>;

/** `events` only at the level 'custom'. */
export const NotificationSettingEntity = Entity({ level: Type.String(), events: Type.Optional(NotificationEventsEntity) });
export type NotificationSetting = Static<typeof NotificationSettingEntity>;

export const GlobalNotificationSettingEntity = Entity({ ...NotificationSettingEntity.properties, notification_email: Type.String() });
export type GlobalNotificationSetting = Static<typeof GlobalNotificationSettingEntity>;

export const SourceParams = Params({ id: IdOrPath });

/** The level is checked by the service, which answers an unknown one as the platform does. */
export const UpdateNotificationSettingBody = Params({ level: Type.Optional(Type.String()), ...eachEvent(() => Type.Optional(Bool())) });
export type UpdateNotificationSettingBody = Static<typeof UpdateNotificationSettingBody>;

export const UpdateGlobalNotificationSettingBody = Params({ ...UpdateNotificationSettingBody.properties, notification_email: Type.Optional(Type.String()) });
export type UpdateGlobalNotificationSettingBody = Static<typeof UpdateGlobalNotificationSettingBody>;
