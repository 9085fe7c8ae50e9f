// Pure badge rows → the badge entities, rendered with a project's placeholder values (or as given).
import type { BadgeRow } from '../../db/schema.ts';
import { type PlaceholderValues, renderUrl } from './badges.placeholders.ts';
import type { Badge, BasicBadge } from './badges.schemas.ts';

export function presentBasicBadge(badge: Pick<BadgeRow, 'name' | 'link_url' | 'image_url'>, values: PlaceholderValues | null): BasicBadge {
  return {
    name: badge.name,
    link_url: badge.link_url,
    image_url: badge.image_url,
    rendered_link_url: renderUrl(badge.link_url, values),
    rendered_image_url: renderUrl(badge.image_url, values),
  };
}

export function presentBadge(row: BadgeRow, values: PlaceholderValues | null): Badge {
  return { ...presentBasicBadge(row, values), id: row.id, kind: row.type === 'ProjectBadge' ? 'project' : 'group' };
}
