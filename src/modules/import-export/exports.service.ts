// Project exports (spec Part 2 §4.10; the platform's ProjectExportWorker): a request records the
// export as queued and enqueues its job in the same transaction, after removing the previous
// archive; the job marks it started, writes the archive (VERSION, the tree, the project's
// uploads, the repository's bundle) in scratch, keeps it beside the project's other stored files (so that it goes with the
// project), marks it finished, and then sends it to the upload URL when one was given. The status
// readers see each step.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { ownerTag } from '../../core/processes.ts';
import type { Config } from '../../config.ts';
import { OutboundError, checkedRequest } from '../../core/outbound-http.ts';
import type { ProjectExportRow, ProjectRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { createBundle } from '../../git/bundle.ts';
import { repositoryExists } from '../../git/repository.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { projectArtifactsDir } from '../../storage/artifact-paths.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { PRODUCT_REVISION, REPORTED_VERSION } from '../../version.ts';
import { writeArchive } from './archive.ts';
import { writeProjectTree } from './tree-writer.ts';
import { UPLOADS_DIR, writeUploads } from './uploads-dir.ts';

/** The export format's version (Gitlab::ImportExport.version). */
export const EXPORT_VERSION = '0.2.4';
/** How long an archive may be downloaded once made. */
export const EXPORT_TTL_MS = 24 * 3600 * 1000;
const UPLOAD_TIMEOUT_MS = 30 * 60 * 1000;

const ExportPayload = Type.Object({ projectId: Type.Integer() }, { additionalProperties: false });
export const PROJECT_EXPORT: JobDeclaration<typeof ExportPayload> = { name: 'project.export', payload: ExportPayload, maxAttempts: 3 };

export interface ExportRequest {
  description?: string;
  upload?: { url: string; method: 'PUT' | 'POST' };
}

/** `%Y-%m-%d_%H-%M-%3N_<full path, / as _>` cut to 51 characters, then `_export.tar.gz` (Gitlab::ImportExport.export_filename). */
export function exportFileName(fullPath: string, at: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const stamp = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}_${pad(at.getUTCHours())}-${pad(at.getUTCMinutes())}-${pad(at.getUTCMilliseconds(), 3)}`;
  return `${`${stamp}_${fullPath.replaceAll('/', '_')}`.slice(0, 51)}_export.tar.gz`;
}

/** The files every archive opens with (the platform's VersionSaver). */
export const VERSION_FILES = ['VERSION', 'GITLAB_VERSION', 'GITLAB_REVISION'] as const;

export async function writeVersionFiles(dir: string): Promise<void> {
  await fs.writeFile(path.join(dir, 'VERSION'), EXPORT_VERSION);
  await fs.writeFile(path.join(dir, 'GITLAB_VERSION'), REPORTED_VERSION);
  await fs.writeFile(path.join(dir, 'GITLAB_REVISION'), PRODUCT_REVISION);
}

/**
 * A directory of its own under the storage's tmp for one export or import; its caller removes it.
 * Named after this process, so that the hourly sweep leaves it alone while the work goes on.
 */
export async function newScratch(config: Config, prefix: string): Promise<string> {
  const tmp = artifactsStorage(config).localPath('tmp');
  await fs.mkdir(tmp, { recursive: true });
  return fs.mkdtemp(path.join(tmp, `${ownerTag()}-${prefix}`));
}

/** The stored directory of a project's exports, under its other files. */
const exportsDir = (projectId: number) => `${projectArtifactsDir(projectId)}/exports`;

/** POST /projects/:id/export: removes the previous archive and queues a new export. */
export async function scheduleExport(ctx: ServiceContext, project: ProjectRow, request: ExportRequest): Promise<void> {
  const at = ctx.now().toISOString();
  const userId = ctx.actor?.user.id ?? null;
  const previous = await withTransaction(ctx, async ({ db }) => {
    const old = await db.selectFrom('project_exports').select('file_path').where('project_id', '=', project.id).executeTakeFirst();
    const values = {
      user_id: userId,
      status: 'queued',
      description: request.description ?? null,
      upload_url: request.upload?.url ?? null,
      upload_method: request.upload?.method ?? null,
      file_path: null,
      file_name: null,
      file_size: null,
      exported_at: null,
      last_error: null,
      updated_at: at,
    };
    await db
      .insertInto('project_exports')
      .values({ project_id: project.id, ...values, created_at: at })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
    await enqueue(db, PROJECT_EXPORT, { projectId: project.id }, { dedupeKey: String(project.id) });
    return old?.file_path ?? null;
  });
  if (previous) await artifactsStorage(ctx.config).remove(previous);
}

async function setExport(ctx: ServiceContext, projectId: number, changes: Partial<Omit<ProjectExportRow, 'id' | 'project_id'>>): Promise<void> {
  await ctx.db.updateTable('project_exports').set({ ...changes, updated_at: ctx.now().toISOString() }).where('project_id', '=', projectId).execute();
}

/** The export job: builds the archive, keeps it, then uploads it when asked to. */
export async function runExport(ctx: ServiceContext, projectId: number): Promise<void> {
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
  const state = await ctx.db.selectFrom('project_exports').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  if (!project || !state || (state.status !== 'queued' && state.status !== 'started')) return;
  await setExport(ctx, projectId, { status: 'started' });
  const storage = artifactsStorage(ctx.config);
  const scratch = await newScratch(ctx.config, `export-${projectId}-`);
  try {
    const content = path.join(scratch, 'content');
    await fs.mkdir(content);
    await writeVersionFiles(content);
    await writeProjectTree(ctx.db, project, content, { description: state.description });
    const entries: string[] = [...VERSION_FILES, 'tree'];
    if (await writeUploads(ctx.db, ctx.config, projectId, content)) entries.push(UPLOADS_DIR);
    const gitDir = repositoryDir(ctx.config, project);
    if (gitDir !== null && repositoryExists(gitDir) && (await createBundle(gitDir, path.join(content, 'project.bundle')))) entries.push('project.bundle');
    const archive = path.join(scratch, 'archive.tar.gz');
    await writeArchive(content, entries, archive);
    const exportedAt = ctx.now();
    const fileName = exportFileName(project.full_path, exportedAt);
    const target = `${exportsDir(projectId)}/${randomBytes(8).toString('hex')}/${fileName}`;
    const size = (await fs.stat(archive)).size;
    await storage.move(`tmp/${path.basename(scratch)}/archive.tar.gz`, target);
    const replaced = await ctx.db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('project_exports').select(['status', 'file_path']).where('project_id', '=', projectId).executeTakeFirst();
      // A newer request came meanwhile (its job is queued): this archive is not the one asked for.
      if (!current || current.status !== 'started') return true;
      await trx
        .updateTable('project_exports')
        .set({ status: 'finished', file_path: target, file_name: fileName, file_size: size, exported_at: exportedAt.toISOString(), updated_at: ctx.now().toISOString() })
        .where('project_id', '=', projectId)
        .execute();
      return false;
    });
    if (replaced) {
      await storage.remove(target);
      return;
    }
    if (state.upload_url) await upload(ctx, projectId, storage.localPath(target), size, state.upload_url, state.upload_method === 'POST' ? 'POST' : 'PUT');
  } catch (error) {
    await setExport(ctx, projectId, { status: 'failed', last_error: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** Sends the archive (WebUploadStrategy): application/gzip with its length; a failure is recorded, the archive stays. */
async function upload(ctx: ServiceContext, projectId: number, file: string, size: number, url: string, method: 'PUT' | 'POST'): Promise<void> {
  const settings = await applicationSettings(ctx.db);
  try {
    const response = await checkedRequest(
      url,
      { method, headers: { 'content-type': 'application/gzip', 'content-length': String(size) }, body: () => createReadStream(file) },
      { allowLocal: settings.allow_local_requests_from_web_hooks_and_services, timeoutMs: UPLOAD_TIMEOUT_MS, maxBytes: 64 * 1024 },
    );
    if (response.status >= 400) await setExport(ctx, projectId, { last_error: `Error while uploading the export: the server answered ${response.status}` });
  } catch (error) {
    const reason = error instanceof OutboundError ? error.message : 'the request failed';
    await setExport(ctx, projectId, { last_error: `Error while uploading the export: ${reason}` });
  }
}

/** A kept archive: whose it is (a project's or a group's id) and where. */
export interface KeptArchive {
  ownerId: number;
  filePath: string;
}

/**
 * Removes the archives made longer than EXPORT_TTL_MS ago, as the platform's hourly
 * ImportExportCleanUpService removes export files a day old: a batch at a time, each archive's
 * record cleared first, and only while it still names that file (a newer export may have replaced
 * it meanwhile), then its directory. The status then reads `none` and the download answers
 * "404 Not found or has expired", as the platform's once its export file is gone.
 */
export async function removeExpiredArchives(
  ctx: ServiceContext,
  expired: (before: string, limit: number) => Promise<KeptArchive[]>,
  clear: (archive: KeptArchive) => Promise<boolean>,
): Promise<number> {
  const before = new Date(ctx.now().getTime() - EXPORT_TTL_MS).toISOString();
  const storage = artifactsStorage(ctx.config);
  let removed = 0;
  for (;;) {
    const batch = await expired(before, 100);
    if (batch.length === 0) return removed;
    for (const archive of batch) {
      if (!(await clear(archive))) continue;
      // Each archive has a directory of its own (exports/<random>/<name>).
      await storage.remove(path.posix.dirname(archive.filePath));
      removed += 1;
    }
  }
}

/** The project archives past their time. */
export function removeExpiredExports(ctx: ServiceContext): Promise<number> {
  return removeExpiredArchives(
    ctx,
    async (before, limit) =>
      (
        await ctx.db
          .selectFrom('project_exports')
          .select(['project_id', 'file_path'])
          .where('file_path', 'is not', null)
          .where('exported_at', '<', before)
          .orderBy('project_id')
          .limit(limit)
          .execute()
      ).map((r) => ({ ownerId: r.project_id, filePath: r.file_path as string })),
    async ({ ownerId, filePath }) => {
      const result = await ctx.db
        .updateTable('project_exports')
        .set({ file_path: null, file_name: null, file_size: null, updated_at: ctx.now().toISOString() })
        .where('project_id', '=', ownerId)
        .where('file_path', '=', filePath)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  );
}

/** Marks an export whose job gave up (its worker died) as failed. */
export async function markExportFailed(ctx: ServiceContext, projectId: number): Promise<void> {
  await ctx.db
    .updateTable('project_exports')
    .set({ status: 'failed', last_error: 'The export was interrupted', updated_at: ctx.now().toISOString() })
    .where('project_id', '=', projectId)
    .where('status', 'in', ['queued', 'started'])
    .execute();
}
