// A finished job's log leaves the database: its chunks are written into one file of the artifacts
// storage (a `trace` artifact, as the platform archives traces) and removed in the transaction that
// records the file. Until then, and for a job still running, the chunks are the log. A periodic task
// archives the logs of jobs finished a little while ago (late appends of a runner come first).
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { BaseContext } from '../../core/context.ts';
import type { DB } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { newJobArtifactPath } from '../../storage/artifact-paths.ts';
import { type FileStorage, artifactsStorage } from '../../storage/file-storage.ts';
import { traceChunks } from './traces.ts';

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];
/** A job is archived once it has been finished this long. */
const SETTLE_MS = 60 * 1000;
const BATCH = 100;

/** The job's log, streamed: from its archived file, or from its chunks while it has no file. */
export async function* readTrace(db: Kysely<DB>, storage: FileStorage, buildId: number): AsyncGenerator<Buffer> {
  const archived = await db.selectFrom('ci_job_artifacts').select('file_path').where('build_id', '=', buildId).where('file_type', '=', 'trace').executeTakeFirst();
  if (archived) {
    for await (const chunk of storage.read(archived.file_path)) yield chunk as Buffer;
    return;
  }
  yield* traceChunks(db, buildId);
}

/** Archives one finished job's log; false when there is nothing (left) to archive. */
async function archiveTrace(ctx: BaseContext, buildId: number): Promise<boolean> {
  const job = await ctx.db.selectFrom('ci_builds').select(['id', 'project_id', 'pipeline_id', 'status', 'trace_size']).where('id', '=', buildId).executeTakeFirst();
  if (!job || !FINISHED.includes(job.status) || Number(job.trace_size) === 0) return false;
  const storage = artifactsStorage(ctx.config);
  const staged = await storage.stage(Readable.from(traceChunks(ctx.db, buildId)));
  const filePath = newJobArtifactPath(job, 'trace');
  try {
    if (staged.size !== Number(job.trace_size)) return false; // appended or erased meanwhile: next time
    await staged.keep(filePath);
    await ctx.db.transaction().execute(async (db) => {
      await db
        .insertInto('ci_job_artifacts')
        .values({ build_id: job.id, project_id: job.project_id, file_type: 'trace', file_format: 'raw', filename: 'job.log', size: staged.size, sha256: staged.sha256, file_path: filePath, expire_at: null, created_at: ctx.now().toISOString() })
        .execute();
      await db.deleteFrom('ci_build_trace_chunks').where('build_id', '=', job.id).execute();
    });
    return true;
  } catch (error) {
    await storage.remove(filePath);
    // Another node archived it first.
    if (isUniqueViolation(error)) return false;
    throw error;
  } finally {
    await staged.discard();
  }
}

/** Archives the logs of jobs finished a minute ago or more, a batch at a time; how many. */
export async function archiveFinishedTraces(ctx: BaseContext): Promise<number> {
  const before = new Date(ctx.now().getTime() - SETTLE_MS).toISOString();
  // Driven by the chunks, which hold only the logs not archived yet.
  const jobs = await ctx.db
    .selectFrom('ci_build_trace_chunks')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_build_trace_chunks.build_id')
    .select('ci_builds.id')
    .where('ci_build_trace_chunks.chunk_index', '=', 0)
    .where('ci_builds.status', 'in', FINISHED)
    .where('ci_builds.finished_at', '<', before)
    .orderBy('ci_builds.id')
    .limit(BATCH)
    .execute();
  let archived = 0;
  for (const job of jobs) if (await archiveTrace(ctx, job.id)) archived++;
  return archived;
}
