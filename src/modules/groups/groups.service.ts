// Writes of groups: create, update (renames carry every descendant along), delete. Each owns its
// transaction and throws the platform's errors.
import { removeSnippets } from '../../domain/snippet-repositories.ts';
import { randomBytes } from 'node:crypto';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { type Kysely, sql } from 'kysely';
import { ancestorIds, refreshAuthorizations, usersAroundNamespace } from '../../core/access/authorizations.ts';
import { ACCESS, VISIBILITY } from '../../core/access/levels.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import { DomainError, type FieldErrors, apiError, invalidFields } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import { applicationSettings, defaultProjectCreationLevel, restrictedVisibility } from '../../domain/settings/application-settings.ts';
import { GROUP_CREATION_LEVELS, NAMESPACE_SETTINGS, groupRunnersToken, readNamespaceSettings, updateNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { fullPathTaken } from '../../domain/namespace-paths.ts';
import { groupFilesDir } from '../../storage/artifact-paths.ts';
import { removeArtifactFilesLater } from '../../storage/deferred-removal.ts';
import { TAKEN, rubyInspect } from '../../domain/validation.ts';
import type { CreateGroupBody, UpdateGroupBody } from './groups.schemas.ts';
import { scheduleGroupWikiRemovals } from '../wikis/index.ts';
import { type GroupChanges, type GroupContext, validateGroup } from './groups.validation.ts';

/** A group runners token: 20 URL-safe characters. */
export function newRunnersToken(): string {
  return randomBytes(15).toString('base64url');
}

/** Highest visibility among the group's direct subgroups and among its direct projects. */
async function childVisibilities(db: Kysely<DB>, groupId: number): Promise<{ childVisibility: number; projectVisibility: number }> {
  const [groups, projects] = await Promise.all([
    db.selectFrom('namespaces').select((eb) => eb.fn.max('visibility_level').as('level')).where('parent_id', '=', groupId).executeTakeFirst(),
    db.selectFrom('projects').select((eb) => eb.fn.max('visibility_level').as('level')).where('namespace_id', '=', groupId).executeTakeFirst(),
  ]);
  return { childVisibility: Number(groups?.level ?? -1), projectVisibility: Number(projects?.level ?? -1) };
}

/** A creation failure: 400 with the errors as the platform prints them inside the message. */
function saveFailed(errors: FieldErrors): DomainError {
  return apiError(400, `Failed to save group ${rubyInspect(errors)}`);
}

const PATH_TAKEN: FieldErrors = { path: [TAKEN] };

/**
 * POST /groups. The caller's right to create here (create_group, or create_subgroup on `parent`)
 * is checked by the route. The creator becomes the group's Owner.
 */
export async function createGroup(ctx: ServiceContext, body: CreateGroupBody, parent: NamespaceRow | null): Promise<NamespaceRow> {
  const { db } = ctx;
  const actor = requireActor(ctx);
  const fullPath = parent ? `${parent.full_path}/${body.path}` : body.path;
  const instance = await applicationSettings(db);
  const visibility = VISIBILITY[body.visibility ?? instance.default_group_visibility];
  // A level the instance restricts is refused before anything else, with that reason alone.
  const restricted = restrictedVisibility(instance, visibility, actor.isAdmin);
  if (restricted) throw saveFailed({ visibility_level: [restricted] });
  const parentSettings = parent ? await readNamespaceSettings(db, parent.id) : null;
  const placement: GroupContext = {
    topLevel: parent === null,
    ancestors: parent ? ancestorIds(parent.traversal_path).length : 0,
    parentVisibility: parent?.visibility_level ?? null,
    childVisibility: -1,
    projectVisibility: -1,
    pathTaken: await fullPathTaken(db, fullPath),
  };
  const errors = validateGroup(
    { name: body.name, path: body.path, description: body.description, two_factor_grace_period: body.two_factor_grace_period, visibility_level: visibility },
    placement,
  );
  if (Object.keys(errors).length > 0) throw saveFailed(errors);

  const now = ctx.now();
  const at = now.toISOString();
  const levels = { ...GROUP_CREATION_LEVELS.defaults, project_creation_level: defaultProjectCreationLevel(instance), ...GROUP_CREATION_LEVELS.fromParams(body, 'create') };
  const settings = {
    ...NAMESPACE_SETTINGS.fromParams(body, 'create'),
    // A parent that keeps its projects from being shared keeps its subgroups' too.
    ...(parentSettings?.share_with_group_lock ? { share_with_group_lock: true } : {}),
  };
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const inserted = await trx
        .insertInto('namespaces')
        .values({
          type: 'Group',
          name: body.name,
          path: body.path,
          owner_id: null,
          parent_id: parent?.id ?? null,
          traversal_path: '',
          full_path: fullPath,
          full_name: parent ? `${parent.full_name} / ${body.name}` : body.name,
          description: body.description ?? '',
          visibility_level: visibility,
          request_access_enabled: body.request_access_enabled ?? true,
          ...GROUP_CREATION_LEVELS.columns(levels),
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const group = await trx
        .updateTable('namespaces')
        .set({ traversal_path: `${parent?.traversal_path ?? '/'}${inserted.id}/` })
        .where('id', '=', inserted.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await updateNamespaceSettings(trx, group.id, settings);
      await trx
        .insertInto('members')
        .values({
          source_type: 'Namespace',
          source_id: group.id,
          user_id: actor.user.id,
          access_level: ACCESS.OWNER,
          expires_at: null,
          created_by_id: actor.user.id,
          created_at: at,
          updated_at: at,
        })
        .execute();
      await refreshAuthorizations(trx, [actor.user.id], now);
      return group;
    });
  } catch (error) {
    // Two creations racing for one path: the loser fails as a later request would.
    if (isUniqueViolation(error)) throw saveFailed(PATH_TAKEN);
    throw error;
  }
}

export interface UpdateContext {
  /** The parent group, and whether the caller administers it (needed to lift an inherited lock). */
  parent: NamespaceRow | null;
  administersParent: boolean;
}

/**
 * PUT /groups/:id. A new path or name is carried into the full paths and names of every group and
 * project below, one statement per table, in the same transaction. Failures answer 400 with the
 * field messages.
 */
export async function updateGroup(ctx: ServiceContext, group: NamespaceRow, body: UpdateGroupBody, { parent, administersParent }: UpdateContext): Promise<NamespaceRow> {
  const { db } = ctx;
  const current = await readNamespaceSettings(db, group.id);
  const path = body.path !== undefined && body.path !== group.path ? body.path : undefined;
  const name = body.name !== undefined && body.name !== group.name ? body.name : undefined;
  const visibility = body.visibility !== undefined ? VISIBILITY[body.visibility] : undefined;
  const fullPath = path === undefined ? group.full_path : parent ? `${parent.full_path}/${path}` : path;
  const changes: GroupChanges = { name, path, description: body.description, two_factor_grace_period: body.two_factor_grace_period };
  if (visibility !== undefined && visibility !== group.visibility_level) {
    const restricted = restrictedVisibility(await applicationSettings(db), visibility, requireActor(ctx).isAdmin);
    if (restricted) throw invalidFields({ visibility_level: [restricted] });
    changes.visibility_level = visibility;
  }

  // Lifting a lock the parent imposes is for those who administer the parent.
  const parentLocked = parent !== null && (await readNamespaceSettings(db, parent.id)).share_with_group_lock;
  if (body.share_with_group_lock === false && current.share_with_group_lock && parentLocked && !administersParent) {
    throw invalidFields({
      share_with_group_lock: ['cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group'],
    });
  }
  const around = changes.visibility_level !== undefined ? await childVisibilities(db, group.id) : { childVisibility: -1, projectVisibility: -1 };
  const errors = validateGroup(changes, {
    topLevel: parent === null,
    ancestors: 0,
    parentVisibility: parent?.visibility_level ?? null,
    ...around,
    pathTaken: path !== undefined && (await fullPathTaken(db, fullPath, { namespaceId: group.id })),
  });
  if (Object.keys(errors).length > 0) throw invalidFields(errors);

  const now = ctx.now().toISOString();
  const levels = GROUP_CREATION_LEVELS.fromParams(body, 'update');
  const settings = NAMESPACE_SETTINGS.fromParams(body, 'update');
  const fullName = name === undefined ? group.full_name : parent ? `${parent.full_name} / ${name}` : name;
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const updated = await trx
        .updateTable('namespaces')
        .set({
          ...(path !== undefined ? { path, full_path: fullPath } : {}),
          ...(name !== undefined ? { name, full_name: fullName } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(visibility !== undefined ? { visibility_level: visibility } : {}),
          ...(body.request_access_enabled !== undefined ? { request_access_enabled: body.request_access_enabled } : {}),
          ...GROUP_CREATION_LEVELS.columns(levels),
          updated_at: now,
        })
        .where('id', '=', group.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await updateNamespaceSettings(trx, group.id, settings);
      if (path !== undefined || name !== undefined) await renameBelow(trx, group, fullPath, fullName);
      if (body.share_with_group_lock === true) await lockBelow(trx, group);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields(PATH_TAKEN);
    throw error;
  }
}

const chars = (s: string) => [...s].length;

/** Replaces the group's old full path and full name at the front of every descendant's and project's. */
async function renameBelow(db: Kysely<DB>, group: NamespaceRow, fullPath: string, fullName: string): Promise<void> {
  const pathTail = chars(group.full_path) + 1;
  const nameTail = chars(group.full_name) + 1;
  const below = inSubtree('traversal_path', group.traversal_path);
  await db
    .updateTable('namespaces')
    .set({
      full_path: sql`${fullPath} || substr(full_path, ${pathTail})`,
      full_name: sql`${fullName} || substr(full_name, ${nameTail})`,
    })
    .where(below)
    .where('id', '!=', group.id)
    .execute();
  await db
    .updateTable('projects')
    .set({
      full_path: sql`${fullPath} || substr(full_path, ${pathTail})`,
      name_with_namespace: sql`${fullName} || substr(name_with_namespace, ${nameTail})`,
    })
    .where('namespace_id', 'in', (eb) => eb.selectFrom('namespaces').select('id').where(below))
    .execute();
}

/** A lock on sharing holds for every group below. */
async function lockBelow(db: Kysely<DB>, group: NamespaceRow): Promise<void> {
  const rows = await db.selectFrom('namespaces').select('id').where(inSubtree('traversal_path', group.traversal_path)).where('id', '!=', group.id).execute();
  for (const row of rows) await updateNamespaceSettings(db, row.id, { share_with_group_lock: true });
}

/** The group's runners token, made the first time it is shown. */
export function ensureRunnersToken(ctx: ServiceContext, group: NamespaceRow): Promise<string> {
  return groupRunnersToken(ctx.db, secretBox(ctx.config.dataDir), group.id, newRunnersToken);
}

/**
 * DELETE /groups/:id: the group, its subgroups and every project in them, with their memberships;
 * whoever reached anything there has their authorizations recomputed.
 */
export async function deleteGroup(ctx: ServiceContext, group: NamespaceRow): Promise<void> {
  const below = inSubtree('traversal_path', group.traversal_path);
  await withTransaction(ctx, async ({ db: trx }) => {
    const affected = await usersAroundNamespace(trx, group);
    const groupIds = trx.selectFrom('namespaces').select('id').where(below);
    const projectIds = trx.selectFrom('projects').select('id').where('namespace_id', 'in', groupIds);
    // Export archives (and an archive waiting to be imported) go once the groups are gone.
    const withFiles = await trx
      .selectFrom('group_exports')
      .select('group_id')
      .where('group_id', 'in', groupIds)
      .where('file_path', 'is not', null)
      .union(trx.selectFrom('group_import_states').select('group_id').where('group_id', 'in', groupIds).where('file_path', 'is not', null))
      .execute();
    await removeArtifactFilesLater(trx, withFiles.map((row) => groupFilesDir(Number(row.group_id))));
    await trx.deleteFrom('members').where('source_type', '=', 'Project').where('source_id', 'in', projectIds).execute();
    await trx.deleteFrom('members').where('source_type', '=', 'Namespace').where('source_id', 'in', groupIds).execute();
    // The projects' snippets go too, and their repositories with them.
    for (const { id } of await projectIds.execute()) await removeSnippets(trx, { projectId: id });
    // The wikis of the group and its subgroups go once the removal commits.
    await scheduleGroupWikiRemovals(trx, (await groupIds.execute()).map((g) => g.id));
    // Subgroups and projects, and everything that hangs off them, go with the group by cascade.
    await trx.deleteFrom('namespaces').where('id', '=', group.id).execute();
    await refreshAuthorizations(trx, affected, ctx.now());
  });
}
