// Writing job artifacts: a runner's upload (notes gitlab-ci.md §1.7, the platform's
// Ci::JobArtifacts::CreateService), and what users do with them: keep, delete, erase the job.
// Files are put in place before the rows that name them are committed, and removed through the
// job queue after the rows are gone, so a crash leaves at worst an unnamed file, never a row
// without its file.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import { parseDuration } from '../../ci/config/index.ts';
import { type DotenvVariable, DotenvError, readDotenvReport } from '../../ci/reports/dotenv.ts';
import { buildReportResult } from '../../ci/reports/junit.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { newJobArtifactPath } from '../../storage/artifact-paths.ts';
import { removeArtifactFilesLater } from '../../storage/deferred-removal.ts';
import { type StagedFile, artifactsStorage } from '../../storage/file-storage.ts';
import { MAX_ZIP_ENTRIES, NotAZipError, UnsafeZipError, ZipLimitError, listZipEntries, zipMetadata } from '../../storage/zip-archive.ts';
import { jobArtifacts } from './artifacts.finder.ts';
import { jobTestSuite } from './junit-results.ts';

export const SAME_TYPE_EXISTS = 'another artifact of the same type already exists';

export interface ArtifactUpload {
  type: string;
  format: string;
  /** The runner's `expire_in`; the instance's default_artifacts_expire_in when absent. */
  expireIn: string | undefined;
  filename: string;
}

/** When artifacts uploaded now expire: null for `never` and for text that is no duration (as ChronicDuration gives nil). */
async function expireAt(ctx: ServiceContext, expireIn: string | undefined): Promise<string | null> {
  const text = expireIn ?? (await applicationSettings(ctx.db)).default_artifacts_expire_in;
  const seconds = parseDuration(text);
  return typeof seconds === 'number' ? new Date(ctx.now().getTime() + seconds * 1000).toISOString() : null;
}

/** A zip archive's metadata file, or the platform's refusal: 400 when it is no zip or leaves itself, 413 past the entry limit. */
async function archiveMetadata(staged: StagedFile): Promise<Buffer> {
  try {
    return zipMetadata(await listZipEntries(staged.localPath, MAX_ZIP_ENTRIES));
  } catch (error) {
    if (error instanceof ZipLimitError) throw apiError(413, '413 Request Entity Too Large');
    if (error instanceof NotAZipError) throw apiError(400, '400 Bad request - Invalid artifacts archive: not a zip file');
    if (error instanceof UnsafeZipError) throw apiError(400, `400 Bad request - Invalid artifacts archive: ${error.message}`);
    throw error;
  }
}

/** A dotenv report's variables, read before it is kept; a report refused is a 400 with the platform's message, and nothing is kept. */
async function dotenvVariables(staged: StagedFile, format: string): Promise<DotenvVariable[]> {
  try {
    return await readDotenvReport(staged.size, format, () => fs.readFile(staged.localPath));
  } catch (error) {
    if (error instanceof DotenvError) throw apiError(400, error.message);
    throw error;
  }
}

/**
 * Keeps a staged upload as the job's artifact of its type. The same type again: success when the
 * bytes are the same (sha256), 400 otherwise. A zip gets its metadata (the entries' listing); a
 * JUnit report its results, for the pipeline's test report summary; a dotenv report its variables,
 * kept with the job for the jobs that depend on it.
 */
export async function storeArtifact(ctx: ServiceContext, job: CiBuildRow, staged: StagedFile, upload: ArtifactUpload): Promise<void> {
  const storage = artifactsStorage(ctx.config);
  const kept: string[] = [];
  try {
    const existing = await ctx.db.selectFrom('ci_job_artifacts').select('sha256').where('build_id', '=', job.id).where('file_type', '=', upload.type).executeTakeFirst();
    if (existing) {
      if (existing.sha256 === staged.sha256) return;
      throw apiError(400, SAME_TYPE_EXISTS);
    }
    const metadata = upload.format === 'zip' ? await archiveMetadata(staged) : null;
    const dotenv = upload.type === 'dotenv' ? await dotenvVariables(staged, upload.format) : [];
    const expires = await expireAt(ctx, upload.expireIn);
    const now = ctx.now().toISOString();
    const filePath = newJobArtifactPath(job, upload.type);
    await staged.keep(filePath);
    kept.push(filePath);
    const rows = [{ file_type: upload.type, file_format: upload.format, filename: upload.filename, size: staged.size, sha256: staged.sha256, file_path: filePath }];
    if (metadata && upload.type === 'archive') {
      const metadataPath = newJobArtifactPath(job, 'metadata');
      await storage.write(metadataPath, metadata);
      kept.push(metadataPath);
      const sha256 = createHash('sha256').update(metadata).digest('hex');
      rows.push({ file_type: 'metadata', file_format: 'gzip', filename: 'metadata.gz', size: metadata.length, sha256, file_path: metadataPath });
    }
    const results = upload.type === 'junit' ? buildReportResult(await jobTestSuite(storage, { name: job.name, options: job.options, file_path: filePath })) : null;
    await withTransaction(ctx, async (tx) => {
      await tx.db
        .insertInto('ci_job_artifacts')
        .values(rows.map((r) => ({ ...r, build_id: job.id, project_id: job.project_id, expire_at: expires, created_at: now })))
        .execute();
      await tx.db.updateTable('ci_builds').set({ artifacts_expire_at: expires }).where('id', '=', job.id).execute();
      if (dotenv.length > 0) {
        const box = secretBox(ctx.config.dataDir);
        await tx.db
          .insertInto('ci_job_variables')
          .values(dotenv.map((v) => ({ job_id: job.id, key: v.key, value_encrypted: box.seal(v.value), source: 'dotenv' })))
          .execute();
      }
      if (results) {
        await tx.db.deleteFrom('ci_build_report_results').where('build_id', '=', job.id).execute();
        await tx.db.insertInto('ci_build_report_results').values({ build_id: job.id, project_id: job.project_id, data: JSON.stringify(results) }).execute();
      }
    });
    kept.length = 0;
  } catch (error) {
    await Promise.all(kept.map((p) => storage.remove(p)));
    if (isUniqueViolation(error)) throw apiError(400, SAME_TYPE_EXISTS);
    throw error;
  } finally {
    await staged.discard();
  }
}

/** Deletes the job's artifacts, their files after; its archived log too only when asked (the erase's business). */
export async function deleteArtifacts(ctx: ServiceContext, job: CiBuildRow, options: { withLog?: boolean } = {}): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const rows = (await jobArtifacts(tx.db, job.id)).filter((r) => options.withLog || r.file_type !== 'trace');
    await tx.db.deleteFrom('ci_job_artifacts').where('build_id', '=', job.id).$if(!options.withLog, (q) => q.where('file_type', '!=', 'trace')).execute();
    await tx.db.deleteFrom('ci_build_report_results').where('build_id', '=', job.id).execute();
    await tx.db.updateTable('ci_builds').set({ artifacts_expire_at: null }).where('id', '=', job.id).execute();
    await removeArtifactFilesLater(tx.db, rows.map((r) => r.file_path));
  });
}

/** Keeps the job's artifacts for good (no expiry). */
export async function keepArtifacts(ctx: ServiceContext, job: CiBuildRow): Promise<CiBuildRow> {
  return withTransaction(ctx, async (tx) => {
    await tx.db.updateTable('ci_job_artifacts').set({ expire_at: null }).where('build_id', '=', job.id).execute();
    return tx.db.updateTable('ci_builds').set({ artifacts_expire_at: null }).where('id', '=', job.id).returningAll().executeTakeFirstOrThrow();
  });
}

/** A finished job's artifacts and log go; the job records who erased it and when. */
export async function eraseJob(ctx: ServiceContext, job: CiBuildRow, userId: number | null): Promise<CiBuildRow> {
  return withTransaction(ctx, async (tx) => {
    await deleteArtifacts(tx, job, { withLog: true });
    await tx.db.deleteFrom('ci_build_trace_chunks').where('build_id', '=', job.id).execute();
    const now = ctx.now().toISOString();
    return tx.db
      .updateTable('ci_builds')
      .set({ trace_size: 0, erased_at: now, erased_by_id: userId, updated_at: now })
      .where('id', '=', job.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Whether the platform lets the job be erased: finished, with artifacts or a log to erase (`erasable?`). */
export async function isErasable(ctx: ServiceContext, job: CiBuildRow): Promise<boolean> {
  const finished = ['success', 'failed', 'canceled', 'skipped'].includes(job.status);
  if (!finished) return false;
  return Number(job.trace_size) > 0 || (await jobArtifacts(ctx.db, job.id)).length > 0;
}
