// The visibility an imported group takes (Gitlab::VisibilityLevel.closest_allowed_level): the
// highest level at or below the wanted one that the instance does not restrict, else private.
import { visibilityName } from '../../core/access/levels.ts';
import type { ApplicationSettings } from '../../domain/settings/application-settings.ts';

const LEVELS = [20, 10, 0] as const;

export function closestAllowedVisibility(settings: Pick<ApplicationSettings, 'restricted_visibility_levels'>, wanted: number): number {
  const restricted = settings.restricted_visibility_levels as readonly string[];
  return LEVELS.find((level) => level <= wanted && !restricted.includes(visibilityName(level))) ?? 0;
}

