// Group imports from export archives (spec Part 2 §4.11; the platform's GroupImport API,
// Groups::ImportExport::ImportService, GroupImportState and GroupImportWorker, 14.x).
//
// A request creates the group (private, or at the closest level its parent allows), keeps the
// archive among the group's stored files, records the import as scheduled and enqueues its job in
// the same transaction. The job reads the archive into scratch under import-export's rules (no
// links, devices, climbing or absolute paths, bombs; the VERSION checked), requires the 14.x ndjson
// group tree, and restores it in one transaction: a failure anywhere leaves the group as the
// request created it, with nothing of the archive in it (no subgroup, label, milestone or member),
// its import state `failed` with the reason. Scratch and the archive are removed whatever happened.
//
// A failed import keeps its group, as 14.x does (GroupImportWorker rescues the ImportService's
// error and fails the group's import_state; nothing removes the group): the importer sees why it
// failed, and may delete the group or import again elsewhere. Unlike the platform, whose restorers
// leave what they wrote before the failure, nothing of the archive stays (one transaction).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { groupAccessLevel } from '../../core/access/authorizations.ts';
import { groupAbilities, groupSubject } from '../../core/access/abilities.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { visibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { groupFilesDir } from '../../storage/artifact-paths.ts';
import { type StagedFile, artifactsStorage } from '../../storage/file-storage.ts';
import { createGroup, deleteGroup } from '../groups/groups.service.ts';
import { ArchiveError, newScratch, unpackArchive } from '../import-export/index.ts';
import { INCOMPATIBLE, restoreGroupTree } from './group-tree-restorer.ts';
import { closestAllowedVisibility } from './group-visibility.ts';

const ImportPayload = Type.Object({ groupId: Type.Integer() }, { additionalProperties: false });
export const GROUP_IMPORT: JobDeclaration<typeof ImportPayload> = { name: 'group.import', payload: ImportPayload, maxAttempts: 1 };

export interface GroupImportRequest {
  name: string;
  path: string;
  /** The group to import into; a top-level group when null. */
  parent: NamespaceRow | null;
}

/** POST /groups/import: creates the group and schedules its import; the caller's right to create it is checked by the route. */
export async function scheduleGroupImport(ctx: ServiceContext, request: GroupImportRequest, upload: StagedFile): Promise<NamespaceRow> {
  const actor = requireActor(ctx);
  const level = request.parent ? closestAllowedVisibility(await applicationSettings(ctx.db), request.parent.visibility_level) : 0;
  const group = await createGroup(ctx, { name: request.name, path: request.path, visibility: visibilityName(level) }, request.parent);
  const file = `${groupFilesDir(group.id)}/import/${randomBytes(8).toString('hex')}.tar.gz`;
  try {
    await upload.keep(file);
    const at = ctx.now().toISOString();
    await withTransaction(ctx, async ({ db }) => {
      await db.insertInto('group_import_states').values({ group_id: group.id, user_id: actor.user.id, status: 'scheduled', last_error: null, file_path: file, created_at: at, updated_at: at }).execute();
      await enqueue(db, GROUP_IMPORT, { groupId: group.id });
    });
  } catch (error) {
    await artifactsStorage(ctx.config).remove(file);
    await deleteGroup(ctx, group);
    throw error;
  }
  return group;
}

async function setState(ctx: ServiceContext, groupId: number, status: string, lastError: string | null): Promise<void> {
  await ctx.db.updateTable('group_import_states').set({ status, last_error: lastError, updated_at: ctx.now().toISOString() }).where('group_id', '=', groupId).execute();
}

/** The platform's permission error (Gitlab::ImportExport::Error.permission_error). */
const permissionError = (userId: number, group: NamespaceRow) => `User with ID: ${userId} does not have required permissions for Group: ${group.name} with ID: ${group.id}`;

/** The import job. */
export async function runGroupImport(base: ServiceContext, groupId: number): Promise<void> {
  const state = await base.db.selectFrom('group_import_states').selectAll().where('group_id', '=', groupId).executeTakeFirst();
  const group = await base.db.selectFrom('namespaces').selectAll().where('id', '=', groupId).executeTakeFirst();
  if (!state || !group || state.status !== 'scheduled') return;
  const storage = artifactsStorage(base.config);
  const importer = state.user_id === null ? undefined : await base.db.selectFrom('users').selectAll().where('id', '=', state.user_id).executeTakeFirst();
  if (!importer) {
    await setState(base, groupId, 'failed', 'The importing user no longer exists');
    if (state.file_path) await storage.remove(state.file_path);
    return;
  }
  const ctx: ServiceContext = { ...base, actor: actingUser(importer) };
  await setState(ctx, groupId, 'started', null);
  const scratch = await newScratch(ctx.config, `import-group-${groupId}-`);
  try {
    // The importer must still administer the group (valid_user_permissions?).
    const access = await groupAccessLevel(ctx.db, importer.id, group.traversal_path, ctx.now());
    if (!groupAbilities(actingUser(importer), groupSubject(group), access, false).has('admin_group')) throw new ArchiveError(permissionError(importer.id, group));
    if (!state.file_path || !(await storage.exists(state.file_path))) throw new ArchiveError('The import archive is missing');
    const content = path.join(scratch, 'content');
    await unpackArchive(ctx, storage.localPath(state.file_path), content);
    const list = await fs.lstat(path.join(content, 'tree', 'groups', '_all.ndjson')).catch(() => null);
    if (!list?.isFile()) throw new ArchiveError(INCOMPATIBLE);
    const correlationId = randomBytes(13).toString('hex');
    await withTransaction(ctx, async (tx) => {
      const { failures } = await restoreGroupTree(tx, group, path.join(content, 'tree'), importer.admin);
      const at = tx.now().toISOString();
      if (failures.length > 0) {
        await tx.db
          .insertInto('import_failures')
          .values(failures.map((f) => ({ ...f, project_id: null, group_id: groupId, correlation_id: correlationId, created_at: at })))
          .execute();
      }
      await tx.db.updateTable('group_import_states').set({ status: 'finished', last_error: null, file_path: null, updated_at: at }).where('group_id', '=', groupId).execute();
    });
  } catch (error) {
    const message = error instanceof ArchiveError || error instanceof DomainError ? error.message : `Import failed: ${error instanceof Error ? error.message : String(error)}`;
    await setState(ctx, groupId, 'failed', message);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
    if (state.file_path) await storage.remove(state.file_path);
  }
}

/** Marks an import that did not finish as failed (its job gave up). */
export async function markGroupImportFailed(ctx: ServiceContext, groupId: number): Promise<void> {
  await ctx.db
    .updateTable('group_import_states')
    .set({ status: 'failed', last_error: 'The import was interrupted', updated_at: ctx.now().toISOString() })
    .where('group_id', '=', groupId)
    .where('status', 'in', ['scheduled', 'started'])
    .execute();
}
