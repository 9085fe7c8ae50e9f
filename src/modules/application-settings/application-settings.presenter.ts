// The instance's settings as the entity shows them: every declared setting but the secrets, the
// row's id and times, and the legacy names beside the settings they repeat.
import type { ApplicationSettings } from '../../domain/settings/application-settings.ts';
import { APPLICATION_SETTINGS } from '../../domain/settings/application-settings.ts';
import { ENTITY_ALIASES } from './application-settings.schemas.ts';

export interface SettingsRecord {
  id: number;
  created_at: string;
  updated_at: string;
}

export function presentApplicationSettings(values: ApplicationSettings, record: SettingsRecord, baseUrl: string): Record<string, unknown> {
  const entity: Record<string, unknown> = { ...record, ...APPLICATION_SETTINGS.present(values) };
  for (const [alias, name] of Object.entries(ENTITY_ALIASES)) entity[alias] = values[name];
  // Unset, commit emails use the platform's hostname under the instance's own.
  entity.commit_email_hostname = values.commit_email_hostname ?? `users.noreply.${new URL(baseUrl).hostname}`;
  entity.repository_storages = Object.entries(values.repository_storages_weighted)
    .filter(([, weight]) => Number(weight) > 0)
    .map(([name]) => name);
  return entity;
}
