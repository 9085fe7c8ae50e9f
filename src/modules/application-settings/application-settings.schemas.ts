// Application settings (spec Part 2 §4.8): the entity and the parameters of PUT, both from the
// settings' declarations (domain/settings/application-settings.ts), plus the platform's legacy names.
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { Params } from '../../core/params.ts';
import { Entity, Timestamp } from '../../core/schema.ts';
import { APPLICATION_SETTINGS, type ApplicationSettings } from '../../domain/settings/application-settings.ts';

/** Legacy names shown beside the settings they repeat. */
export const ENTITY_ALIASES = {
  password_authentication_enabled: 'password_authentication_enabled_for_web',
  signin_enabled: 'password_authentication_enabled_for_web',
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
  asset_proxy_whitelist: 'asset_proxy_allowlist',
} as const satisfies Record<string, keyof ApplicationSettings>;

/** The web sign-in switch's current name and its two legacy ones: at most one may be sent. */
export const WEB_SIGN_IN_NAMES = ['password_authentication_enabled_for_web', 'password_authentication_enabled', 'signin_enabled'] as const;

/** Legacy parameter names, read as the settings they stand for (a current name sent too wins). */
export const PARAM_ALIASES = {
  admin_notification_email: 'abuse_notification_email',
  password_authentication_enabled: 'password_authentication_enabled_for_web',
  signin_enabled: 'password_authentication_enabled_for_web',
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
  asset_proxy_whitelist: 'asset_proxy_allowlist',
  domain_whitelist: 'domain_allowlist',
  domain_blacklist_enabled: 'domain_denylist_enabled',
  domain_blacklist: 'domain_denylist',
} as const satisfies Record<string, keyof ApplicationSettings>;

// Typed loosely (TProperties): with some 170 fields typed exactly, TypeBox's types grow too deep
// for the compiler, and the handlers read these through the declarations anyway.
const specs: Record<string, { entity: TSchema; input: TSchema }> = APPLICATION_SETTINGS.specs;
const aliasFields: TProperties = Object.fromEntries(Object.entries(ENTITY_ALIASES).map(([alias, name]) => [alias, specs[name].entity]));

export const ApplicationSettingEntity = Entity({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  ...(APPLICATION_SETTINGS.entity as TProperties),
  ...aliasFields,
  // The storages new projects go to (deprecated; the weights say the same).
  repository_storages: Type.Array(Type.String()),
} as TProperties);

const settingParams: TProperties = APPLICATION_SETTINGS.params('update');
const aliasParams: TProperties = Object.fromEntries(Object.entries(PARAM_ALIASES).map(([alias, name]) => [alias, Type.Optional(specs[name].input)]));

export const UpdateApplicationSettingsBody = Params({ ...settingParams, ...aliasParams }, { 'x-at-least-one-of': [[...Object.keys(settingParams), ...Object.keys(aliasParams)]] });
