// Adding, changing and removing badges. Both URLs must be http(s) URLs once their placeholders are
// filled in, or the platform's validation answer (400 with the messages by field) is given.
import type { ServiceContext } from '../../core/context.ts';
import { apiError, invalidFields, paramError } from '../../core/errors.ts';
import type { BadgeRow } from '../../db/schema.ts';
import { type BadgeSource, findBadge } from './badges.finder.ts';
import { isBadgeUrl } from './badges.placeholders.ts';
import type { CreateBadgeBody, UpdateBadgeBody } from './badges.schemas.ts';

const INVALID_URL = 'must be a valid URL';

export const badgeNotFound = () => apiError(404, '404 Not found');

/** The validation errors of a badge's URLs, by field; an empty object when both are good. */
export function badgeUrlErrors(badge: { link_url: string; image_url: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!isBadgeUrl(badge.link_url)) errors.link_url = [INVALID_URL];
  if (!isBadgeUrl(badge.image_url)) errors.image_url = [INVALID_URL];
  return errors;
}

function checkUrls(badge: { link_url: string; image_url: string }): void {
  const errors = badgeUrlErrors(badge);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

export async function createBadge(ctx: ServiceContext, source: BadgeSource, body: CreateBadgeBody): Promise<BadgeRow> {
  checkUrls(body);
  const now = ctx.now().toISOString();
  return ctx.db
    .insertInto('badges')
    .values({
      type: 'group' in source ? 'GroupBadge' : 'ProjectBadge',
      project_id: 'group' in source ? null : source.project.id,
      group_id: 'group' in source ? source.group.id : null,
      name: body.name ?? null,
      link_url: body.link_url,
      image_url: body.image_url,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Release 14.x changes any badge the source lists, a project's group badges included. */
export async function updateBadge(ctx: ServiceContext, source: BadgeSource, id: number, body: UpdateBadgeBody): Promise<BadgeRow> {
  const badge = await findBadge(ctx.db, source, id);
  if (!badge) throw badgeNotFound();
  const changed = { link_url: body.link_url ?? badge.link_url, image_url: body.image_url ?? badge.image_url, name: body.name ?? badge.name };
  checkUrls(changed);
  return ctx.db.updateTable('badges').set({ ...changed, updated_at: ctx.now().toISOString() }).where('id', '=', badge.id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteBadge(ctx: ServiceContext, source: BadgeSource, id: number): Promise<void> {
  const badge = await findBadge(ctx.db, source, id);
  if (!badge) throw badgeNotFound();
  // A group's badge shows in its projects' lists, but only the group removes it.
  if (badge.type === 'GroupBadge' && !('group' in source)) throw paramError('To delete a Group badge please use the Group endpoint', 403);
  await ctx.db.deleteFrom('badges').where('id', '=', badge.id).execute();
}
