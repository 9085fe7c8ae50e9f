// Creating, updating and deleting releases and their links (the platform's Releases::CreateService,
// UpdateService, DestroyService and the links API, 14.x), with its answers: 403 "Access Denied"
// for a tag the caller may not create, 409 for a second release of a tag, 400 for milestones the
// project does not have, 422 for a missing tag without a ref. A missing tag is made from `ref`
// through the tags service (a push of its own); the release's rows are then written in one
// transaction, which enqueues the collection of its evidence.
import type { LoadedProject } from '../../core/access/loaders.ts';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { type FieldErrors, apiError, invalidFields, paramError } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { MilestoneRow, ReleaseLinkRow, ReleaseRow } from '../../db/schema.ts';
import type { DetailedRef } from '../../git/ref-details.ts';
import { fullMessage } from '../../domain/validation.ts';
import { enqueue } from '../../jobs/queue.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { readTags } from '../tags/tags.finder.ts';
import { createTag } from '../tags/tags.service.ts';
import { findRelease, linkClashes, milestonesByTitle } from './releases.finder.ts';
import { createEvidenceJob } from './releases.jobs.ts';
import type { AssetLinkParams, CreateLinkBody, CreateReleaseBody, UpdateLinkBody, UpdateReleaseBody } from './releases.schemas.ts';
import { LINK_TYPES, type LinkType } from './releases.schemas.ts';
import { type LinkFields, descriptionErrors, duplicateLinkValues, linkErrors } from './releases.validation.ts';

const ZONE = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** A released_at as the platform reads it: ISO 8601 or near it, in UTC unless a zone is given. */
export function releasedAtOf(text: string): string {
  let value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}[ T]\d/.test(value)) {
    value = value.replace(' ', 'T');
    if (!ZONE.test(value)) value += 'Z';
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw paramError('released_at is invalid');
  return new Date(time).toISOString();
}

/** The titles given that name no milestone of the project, in the order given (Array#-). */
async function milestonesNamed(ctx: ServiceContext, projectId: number, titles: readonly string[]): Promise<MilestoneRow[]> {
  const found = await milestonesByTitle(ctx.db, projectId, titles);
  const known = new Set(found.map((m) => m.title));
  const missing = titles.filter((title) => !known.has(title));
  if (missing.length > 0) throw apiError(400, `Milestone(s) not found: ${missing.join(', ')}`);
  return found;
}

const linkFields = (link: { name: string; url: string; filepath?: string | null }): LinkFields => ({ name: link.name, url: link.url.trim(), filepath: link.filepath ?? null });

/** "Validation failed: …" as the platform's save! reports a release it cannot save. */
const validationFailed = (messages: readonly string[]) => apiError(400, `Validation failed: ${[...new Set(messages)].join(', ')}`);

/** The asset links of a new release, checked as the release's nested links are. */
function checkAssetLinks(links: readonly AssetLinkParams[]): LinkFields[] {
  for (const link of links) {
    // The platform fails on an unknown enum value while building the release.
    if (link.link_type !== undefined && !LINK_TYPES.includes(link.link_type as LinkType)) throw apiError(400, `'${link.link_type}' is not a valid link_type`);
  }
  const fields = links.map(linkFields);
  const messages = fields.flatMap((link) => Object.entries(linkErrors(link, { name: false, url: false, filepath: false })).flatMap(([field, list]) => list.map((m) => fullMessage(`links_${field}`, m))));
  if (messages.length === 0) messages.push(...duplicateLinkValues(fields).map((values) => `Links have duplicate values (${values})`));
  if (messages.length > 0) throw validationFailed(messages);
  return fields;
}

function checkDescription(description: string | null | undefined): void {
  const errors = descriptionErrors(description);
  if (Object.keys(errors).length > 0) throw validationFailed(Object.entries(errors).flatMap(([field, list]) => list.map((m) => fullMessage(field, m))));
}

/** The release's tag: the existing one, or one made from `ref`. */
async function ensureTag(ctx: ServiceContext, project: LoadedProject, dir: string | null, tagName: string, ref: string | undefined): Promise<DetailedRef> {
  const existing = (await readTags(dir)).byName.get(tagName);
  if (existing) return existing;
  if (ref === undefined) throw apiError(422, 'Ref is not specified');
  if (dir === null) throw apiError(400, `Target ${ref} is invalid`);
  // The platform's Tags::CreateService failures answer 400 here.
  await createTag(ctx, project, dir, { tag_name: tagName, ref }, 400);
  const created = (await readTags(dir)).byName.get(tagName);
  if (!created) throw apiError(400, `Failed to create a tag: ${tagName}`);
  return created;
}

/** Evidence is collected for a release made now: neither one dated before its creation nor an upcoming one. */
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export async function createRelease(ctx: ServiceContext, project: LoadedProject, dir: string | null, mayChange: (tag: string) => boolean, body: CreateReleaseBody): Promise<ReleaseRow> {
  const actor = requireActor(ctx);
  const tagName = body.tag_name;
  if (!mayChange(tagName)) throw apiError(403, 'Access Denied');
  if (await findRelease(ctx.db, project.row.id, tagName)) throw apiError(409, 'Release already exists');
  const milestones = await milestonesNamed(ctx, project.row.id, body.milestones ?? []);
  const links = body.assets?.links ?? [];
  const fields = checkAssetLinks(links);
  checkDescription(body.description);
  const releasedAt = body.released_at === undefined ? null : releasedAtOf(body.released_at);
  const tag = await ensureTag(ctx, project, dir, tagName, body.ref);

  const now = ctx.now().toISOString();
  try {
    return await withTransaction(ctx, async (tx) => {
      const release = await tx.db
        .insertInto('releases')
        .values({
          project_id: project.row.id,
          tag: tagName,
          name: body.name ?? tagName,
          description: body.description ?? null,
          author_id: actor.user.id,
          sha: tag.details?.id ?? tag.target,
          released_at: releasedAt ?? now,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (links.length > 0) {
        await tx.db
          .insertInto('release_links')
          .values(links.map((link, i) => ({ release_id: release.id, ...fields[i], link_type: link.link_type ?? 'other', created_at: now, updated_at: now })))
          .execute();
      }
      if (milestones.length > 0) await tx.db.insertInto('milestone_releases').values(milestones.map((m) => ({ milestone_id: m.id, release_id: release.id }))).execute();
      const at = seconds(release.released_at);
      if (at >= seconds(now) && at <= seconds(ctx.now().toISOString())) await enqueue(tx.db, createEvidenceJob, { releaseId: release.id });
      await enqueueHookEvent(tx.db, { projectId: release.project_id }, { kind: 'release', releaseId: release.id, action: 'create' });
      return release;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw apiError(409, 'Release already exists');
    throw error;
  }
}

export async function updateRelease(ctx: ServiceContext, dir: string | null, release: ReleaseRow, body: UpdateReleaseBody): Promise<ReleaseRow> {
  if (!(await readTags(dir)).byName.has(release.tag)) throw apiError(404, 'Tag does not exist');
  if (body.name === undefined && body.description === undefined && body.released_at === undefined && body.milestones === undefined) throw apiError(400, 'params is empty');
  const milestones = body.milestones === undefined ? null : await milestonesNamed(ctx, release.project_id, body.milestones);
  const errors: FieldErrors = descriptionErrors(body.description);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const releasedAt = body.released_at === undefined ? undefined : releasedAtOf(body.released_at);
  return withTransaction(ctx, async (tx) => {
    const updated = await tx.db
      .updateTable('releases')
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(releasedAt !== undefined ? { released_at: releasedAt } : {}),
        updated_at: tx.now().toISOString(),
      })
      .where('id', '=', release.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (milestones !== null) {
      await tx.db.deleteFrom('milestone_releases').where('release_id', '=', release.id).execute();
      if (milestones.length > 0) await tx.db.insertInto('milestone_releases').values(milestones.map((m) => ({ milestone_id: m.id, release_id: release.id }))).execute();
    }
    await enqueueHookEvent(tx.db, { projectId: release.project_id }, { kind: 'release', releaseId: release.id, action: 'update' });
    return updated;
  });
}

/** Deletes the release, its links, milestones and evidences; the tag stays. */
export async function deleteRelease(ctx: ServiceContext, release: ReleaseRow): Promise<void> {
  await ctx.db.deleteFrom('releases').where('id', '=', release.id).execute();
}

// ---- Links ----

/**
 * Checks the link against the rules and its release's other links (400 with the errors by field),
 * then writes it; a request that loses a race for a name or URL reads as the check would answer it.
 */
async function saveLink(ctx: ServiceContext, releaseId: number, link: LinkFields, exceptId: number | undefined, write: () => Promise<ReleaseLinkRow>): Promise<ReleaseLinkRow> {
  const check = async () => {
    const errors = linkErrors(link, await linkClashes(ctx.db, releaseId, link, exceptId));
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  };
  await check();
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) await check();
    throw error;
  }
}

export function createLink(ctx: ServiceContext, release: ReleaseRow, body: CreateLinkBody): Promise<ReleaseLinkRow> {
  const link = linkFields(body);
  const now = ctx.now().toISOString();
  return saveLink(ctx, release.id, link, undefined, () =>
    ctx.db
      .insertInto('release_links')
      .values({ release_id: release.id, ...link, link_type: body.link_type ?? 'other', created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export function updateLink(ctx: ServiceContext, row: ReleaseLinkRow, body: UpdateLinkBody): Promise<ReleaseLinkRow> {
  const link = linkFields({ name: body.name ?? row.name, url: body.url ?? row.url, filepath: body.filepath ?? row.filepath });
  return saveLink(ctx, row.release_id, link, row.id, () =>
    ctx.db
      .updateTable('release_links')
      .set({ ...link, ...(body.link_type !== undefined ? { link_type: body.link_type } : {}), updated_at: ctx.now().toISOString() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function deleteLink(ctx: ServiceContext, row: ReleaseLinkRow): Promise<void> {
  await ctx.db.deleteFrom('release_links').where('id', '=', row.id).execute();
}
