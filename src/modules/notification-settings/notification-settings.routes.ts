// Notification settings of the signed-in user: global, and for each project or group they can see
// (one they cannot is 404, as its other routes answer).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { type NotificationSource, defaultLevel, findNotificationSetting } from './notification-settings.finder.ts';
import { presentGlobalNotificationSetting, presentNotificationSetting, unsetEvents } from './notification-settings.presenter.ts';
import {
  GlobalNotificationSettingEntity,
  NotificationSettingEntity,
  SourceParams,
  UpdateGlobalNotificationSettingBody,
  UpdateNotificationSettingBody,
} from './notification-settings.schemas.ts';
import { updateNotificationSetting } from './notification-settings.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

const SOURCES = [
  { prefix: '/projects/:id', preHandler: loadProject('read_project'), source: (req: FastifyRequest): NotificationSource => ({ projectId: loadedProject(req).row.id }) },
  { prefix: '/groups/:id', preHandler: loadGroup('read_group'), source: (req: FastifyRequest): NotificationSource => ({ groupId: loadedGroup(req).row.id }) },
] as const;

export const notificationSettingRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  /** The stored setting, or the defaults of one never changed. */
  const settingOf = async (userId: number, source: NotificationSource) =>
    (await findNotificationSetting(db, userId, source)) ?? { level: defaultLevel(source), notification_email: null, ...unsetEvents() };

  api.get('/notification_settings', { schema: { response: { 200: GlobalNotificationSettingEntity } }, config: SIGNED_IN }, async (req) => {
    const actor = requireUser(req);
    return presentGlobalNotificationSetting(await settingOf(actor.user.id, 'global'), actor.user.email);
  });

  api.put(
    '/notification_settings',
    { schema: { body: UpdateGlobalNotificationSettingBody, response: { 200: GlobalNotificationSettingEntity } }, config: SIGNED_IN },
    async (req) => {
      const actor = requireUser(req);
      return presentGlobalNotificationSetting(await updateNotificationSetting(serviceContext(req), 'global', req.body), actor.user.email);
    },
  );

  for (const { prefix, preHandler, source } of SOURCES) {
    api.get(
      `${prefix}/notification_settings`,
      { schema: { params: SourceParams, response: { 200: NotificationSettingEntity } }, config: SIGNED_IN, preHandler },
      async (req) => presentNotificationSetting(await settingOf(requireUser(req).user.id, source(req))),
    );

    api.put(
      `${prefix}/notification_settings`,
      { schema: { params: SourceParams, body: UpdateNotificationSettingBody, response: { 200: NotificationSettingEntity } }, config: SIGNED_IN, preHandler },
      async (req) => presentNotificationSetting(await updateNotificationSetting(serviceContext(req), source(req), req.body)),
    );
  }
};
