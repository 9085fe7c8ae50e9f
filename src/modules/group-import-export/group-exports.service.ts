// Group exports (spec Part 2 §4.11; the platform's Groups::ImportExport::ExportService and
// GroupExportWorker): a request records the export as queued and enqueues its job in the same
// transaction, after removing the previous archive; the job writes VERSION and the group tree in
// scratch, packs them, keeps the archive among the group's stored files and marks it finished.
// The archive is written, kept and expired as project exports are (import-export's helpers): a day
// after it was made, the hourly task removes it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { GroupExportRow, NamespaceRow } from '../../db/schema.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { groupFilesDir } from '../../storage/artifact-paths.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { VERSION_FILES, exportFileName, newScratch, removeExpiredArchives, writeArchive, writeVersionFiles } from '../import-export/index.ts';
import { writeGroupTree } from './group-tree-writer.ts';

const ExportPayload = Type.Object({ groupId: Type.Integer() }, { additionalProperties: false });
export const GROUP_EXPORT: JobDeclaration<typeof ExportPayload> = { name: 'group.export', payload: ExportPayload, maxAttempts: 3 };

/** POST /groups/:id/export: removes the previous archive and queues a new export. */
export async function scheduleGroupExport(ctx: ServiceContext, group: NamespaceRow): Promise<void> {
  const at = ctx.now().toISOString();
  const previous = await withTransaction(ctx, async ({ db }) => {
    const old = await db.selectFrom('group_exports').select('file_path').where('group_id', '=', group.id).executeTakeFirst();
    const values = { user_id: ctx.actor?.user.id ?? null, status: 'queued', file_path: null, file_name: null, file_size: null, exported_at: null, last_error: null, updated_at: at };
    await db
      .insertInto('group_exports')
      .values({ group_id: group.id, ...values, created_at: at })
      .onConflict((oc) => oc.column('group_id').doUpdateSet(values))
      .execute();
    await enqueue(db, GROUP_EXPORT, { groupId: group.id }, { dedupeKey: String(group.id) });
    return old?.file_path ?? null;
  });
  if (previous) await artifactsStorage(ctx.config).remove(previous);
}

async function setExport(ctx: ServiceContext, groupId: number, changes: Partial<Omit<GroupExportRow, 'id' | 'group_id'>>): Promise<void> {
  await ctx.db.updateTable('group_exports').set({ ...changes, updated_at: ctx.now().toISOString() }).where('group_id', '=', groupId).execute();
}

/** The export job: builds the archive and keeps it. */
export async function runGroupExport(ctx: ServiceContext, groupId: number): Promise<void> {
  const group = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', groupId).where('type', '=', 'Group').executeTakeFirst();
  const state = await ctx.db.selectFrom('group_exports').selectAll().where('group_id', '=', groupId).executeTakeFirst();
  if (!group || !state || (state.status !== 'queued' && state.status !== 'started')) return;
  await setExport(ctx, groupId, { status: 'started' });
  const storage = artifactsStorage(ctx.config);
  const scratch = await newScratch(ctx.config, `group-export-${groupId}-`);
  try {
    const content = path.join(scratch, 'content');
    await fs.mkdir(content);
    await writeVersionFiles(content);
    await writeGroupTree(ctx.db, group, content);
    const archive = path.join(scratch, 'archive.tar.gz');
    await writeArchive(content, [...VERSION_FILES, 'tree'], archive);
    const exportedAt = ctx.now();
    const fileName = exportFileName(group.full_path, exportedAt);
    const target = `${groupFilesDir(groupId)}/exports/${randomBytes(8).toString('hex')}/${fileName}`;
    const size = (await fs.stat(archive)).size;
    await storage.move(`tmp/${path.basename(scratch)}/archive.tar.gz`, target);
    const superseded = await ctx.db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('group_exports').select('status').where('group_id', '=', groupId).executeTakeFirst();
      // A newer request came meanwhile (its job is queued): this archive is not the one asked for.
      if (current?.status !== 'started') return true;
      await trx
        .updateTable('group_exports')
        .set({ status: 'finished', file_path: target, file_name: fileName, file_size: size, exported_at: exportedAt.toISOString(), updated_at: ctx.now().toISOString() })
        .where('group_id', '=', groupId)
        .execute();
      return false;
    });
    if (superseded) await storage.remove(target);
  } catch (error) {
    await setExport(ctx, groupId, { status: 'failed', last_error: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The group archives past their time (removeExpiredArchives). */
export function removeExpiredGroupExports(ctx: ServiceContext): Promise<number> {
  return removeExpiredArchives(
    ctx,
    async (before, limit) =>
      (
        await ctx.db
          .selectFrom('group_exports')
          .select(['group_id', 'file_path'])
          .where('file_path', 'is not', null)
          .where('exported_at', '<', before)
          .orderBy('group_id')
          .limit(limit)
          .execute()
      ).map((r) => ({ ownerId: r.group_id, filePath: r.file_path as string })),
    async ({ ownerId, filePath }) => {
      const result = await ctx.db
        .updateTable('group_exports')
        .set({ file_path: null, file_name: null, file_size: null, updated_at: ctx.now().toISOString() })
        .where('group_id', '=', ownerId)
        .where('file_path', '=', filePath)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  );
}

/** Marks an export whose job gave up as failed. */
export async function markGroupExportFailed(ctx: ServiceContext, groupId: number): Promise<void> {
  await ctx.db
    .updateTable('group_exports')
    .set({ status: 'failed', last_error: 'The export was interrupted', updated_at: ctx.now().toISOString() })
    .where('group_id', '=', groupId)
    .where('status', 'in', ['queued', 'started'])
    .execute();
}
