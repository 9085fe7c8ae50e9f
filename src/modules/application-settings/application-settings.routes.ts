// GET and PUT /application/settings (spec Part 2 §4.8): administrators only.
import type { FastifyPluginAsync } from 'fastify';
import { adminOnly } from '../../core/access/guards.ts';
import { invalidFields, paramError } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import {
  APPLICATION_SETTINGS,
  type ApplicationSettings,
  applicationSettings,
  applicationSettingsRecord,
  updateApplicationSettings,
} from '../../domain/settings/application-settings.ts';
import { presentApplicationSettings } from './application-settings.presenter.ts';
import { ApplicationSettingEntity, PARAM_ALIASES, UpdateApplicationSettingsBody } from './application-settings.schemas.ts';

export const applicationSettingRoutes: FastifyPluginAsync = async (api) => {
  const { db, config, now } = api.deps;

  const current = async () => presentApplicationSettings(await applicationSettings(db), await applicationSettingsRecord(db), config.externalUrl);

  api.get('/application/settings', { schema: { response: { 200: ApplicationSettingEntity } }, config: { auth: 'required' }, preHandler: adminOnly }, current);

  api.put('/application/settings', { schema: { body: UpdateApplicationSettingsBody, response: { 200: ApplicationSettingEntity } }, config: { auth: 'required' }, preHandler: adminOnly }, async (req) => {
    const body = req.body as Record<string, unknown>;
    const missing = APPLICATION_SETTINGS.missingRequired(body, 'update');
    if (missing !== null) throw paramError(`${missing} is missing`);
    const changes: Partial<Record<keyof ApplicationSettings, unknown>> = {};
    for (const [alias, name] of Object.entries(PARAM_ALIASES)) if (body[alias] !== undefined) changes[name] = body[alias];
    Object.assign(changes, APPLICATION_SETTINGS.fromParams(body, 'update'));
    const errors = APPLICATION_SETTINGS.validate(changes as Partial<ApplicationSettings>);
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    // Secrets are never shown again: they are kept encrypted.
    for (const [name, spec] of Object.entries(APPLICATION_SETTINGS.specs)) {
      const value = changes[name as keyof ApplicationSettings];
      if (spec.secret && typeof value === 'string') changes[name as keyof ApplicationSettings] = secretBox(config.dataDir).seal(value);
    }
    await updateApplicationSettings(db, changes as Partial<ApplicationSettings>, now());
    return current();
  });
};
