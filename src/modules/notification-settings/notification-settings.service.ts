// Changing a user's notification settings: the level (one of the platform's, or its 400), the
// events of a custom level, and globally the notification email (one the user owns, or '' for
// the primary email). The setting is written on its first change.
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { apiError, invalidFields } from '../../core/errors.ts';
import type { NotificationSettingRow } from '../../db/schema.ts';
import { type NotificationSource, defaultLevel, findNotificationSetting, sourceKey } from './notification-settings.finder.ts';
import { unsetEvents } from './notification-settings.presenter.ts';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
  type UpdateGlobalNotificationSettingBody,
  type UpdateNotificationSettingBody,
} from './notification-settings.schemas.ts';

const isLevel = (level: string): boolean => (NOTIFICATION_LEVELS as readonly string[]).includes(level);

export async function updateNotificationSetting(
  ctx: ServiceContext,
  source: NotificationSource,
  body: UpdateNotificationSettingBody | UpdateGlobalNotificationSettingBody,
): Promise<NotificationSettingRow> {
  const actor = requireActor(ctx);
  if (body.level !== undefined && !isLevel(body.level)) throw apiError(400, `'${body.level}' is not a valid level`);
  const changes: Partial<NotificationSettingRow> = {};
  if (body.level !== undefined) changes.level = body.level;
  for (const event of NOTIFICATION_EVENTS) if (body[event] !== undefined) changes[event] = body[event];
  if (source === 'global' && 'notification_email' in body && body.notification_email !== undefined) {
    const email = body.notification_email.trim();
    // Users here own one address, their primary one; '' goes back to it.
    if (email !== '' && email.toLowerCase() !== actor.user.email.toLowerCase()) throw invalidFields({ notification_email: ['is not an email you own'] });
    changes.notification_email = email === '' ? null : email;
  }
  const now = ctx.now().toISOString();
  await ctx.db
    .insertInto('notification_settings')
    .values({
      user_id: actor.user.id,
      project_id: typeof source === 'object' && 'projectId' in source ? source.projectId : null,
      group_id: typeof source === 'object' && 'groupId' in source ? source.groupId : null,
      source_key: sourceKey(source),
      level: defaultLevel(source),
      notification_email: null,
      ...unsetEvents(),
      ...changes,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['user_id', 'source_key']).doUpdateSet({ ...changes, updated_at: now }))
    .execute();
  const row = await findNotificationSetting(ctx.db, actor.user.id, source);
  if (!row) throw new Error('notification setting vanished after its write');
  return row;
}
