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
  listenForSettingsChanges,
  storageWeightErrors,
  updateApplicationSettings,
} from '../../domain/settings/application-settings.ts';
import { presentApplicationSettings } from './application-settings.presenter.ts';
import { ApplicationSettingEntity, PARAM_ALIASES, UpdateApplicationSettingsBody, WEB_SIGN_IN_NAMES } from './application-settings.schemas.ts';

export const applicationSettingRoutes: FastifyPluginAsync = async (api) => {
  const { db, config, now } = api.deps;
  // A change made on any node is seen here at once (PostgreSQL's notification), not only at the next timed check.
  const stopListening = await listenForSettingsChanges(db, api.deps.database.listen);
  if (stopListening) api.addHook('onClose', async () => stopListening());

  const current = async () => presentApplicationSettings(await applicationSettings(db), await applicationSettingsRecord(db), config.externalUrl);

  api.get('/application/settings', { schema: { response: { 200: ApplicationSettingEntity } }, config: { auth: 'required' }, preHandler: adminOnly }, current);

  api.put('/application/settings', { schema: { body: UpdateApplicationSettingsBody, response: { 200: ApplicationSettingEntity } }, config: { auth: 'required' }, preHandler: adminOnly }, async (req) => {
    const body = req.body as Record<string, unknown>;
    const missing = APPLICATION_SETTINGS.missingRequired(body, 'update');
    if (missing !== null) throw paramError(`${missing} is missing`);
    // The web sign-in switch has three names, of which one at a time (Grape's mutually_exclusive).
    const signIn = WEB_SIGN_IN_NAMES.filter((name) => body[name] !== undefined);
    if (signIn.length > 1) throw paramError(`${signIn.join(', ')} are mutually exclusive`);
    const changes: Partial<Record<keyof ApplicationSettings, unknown>> = {};
    for (const [alias, name] of Object.entries(PARAM_ALIASES)) if (body[alias] !== undefined) changes[name] = body[alias];
    Object.assign(changes, APPLICATION_SETTINGS.fromParams(body, 'update'));
    if (changes.enabled_git_access_protocol === 'nil') changes.enabled_git_access_protocol = null;
    const errors = APPLICATION_SETTINGS.validate(changes as Partial<ApplicationSettings>);
    const weights = changes.repository_storages_weighted as Record<string, number> | undefined;
    if (weights !== undefined) {
      const messages = storageWeightErrors(weights, Object.keys(config.repositoryStorages));
      if (messages.length > 0) errors.repository_storages_weighted = messages;
    }
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
