// Reading job artifacts: a job's artifacts that have not expired (or that its locked pipeline
// keeps, for the runners of the jobs that depend on it), the latest successful job of a name on a
// ref (the platform's latest_successful_build_for_ref), and what a pipeline's test reports are
// built from.
import type { Kysely } from 'kysely';
import type { CiBuildRow, CiJobArtifactRow, DB } from '../../db/schema.ts';

const live = (row: { expire_at: string | null }, now: Date) => row.expire_at === null || row.expire_at > now.toISOString();

/** A job (not a bridge) by id, of the project when one is given. */
export async function findJob(db: Kysely<DB>, id: number, projectId?: number): Promise<CiBuildRow | null> {
  let q = db.selectFrom('ci_builds').selectAll().where('id', '=', id).where('type', '=', 'build');
  if (projectId !== undefined) q = q.where('project_id', '=', projectId);
  return (await q.executeTakeFirst()) ?? null;
}

/** The job's artifact of this type, unless it expired. */
export async function findArtifact(db: Kysely<DB>, jobId: number, fileType: string, now: Date): Promise<CiJobArtifactRow | null> {
  const row = await db.selectFrom('ci_job_artifacts').selectAll().where('build_id', '=', jobId).where('file_type', '=', fileType).executeTakeFirst();
  return row && live(row, now) ? row : null;
}

/**
 * The job's archive as a runner downloads it for a job that depends on it: unless it expired, or
 * even then while its pipeline is locked, which keeps its artifacts (available_artifacts?).
 */
export async function availableArchive(db: Kysely<DB>, jobId: number, now: Date): Promise<CiJobArtifactRow | null> {
  const row = await db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_job_artifacts.build_id')
    .innerJoin('ci_pipelines', 'ci_pipelines.id', 'ci_builds.pipeline_id')
    .selectAll('ci_job_artifacts')
    .select('ci_pipelines.locked')
    .where('ci_job_artifacts.build_id', '=', jobId)
    .where('ci_job_artifacts.file_type', '=', 'archive')
    .executeTakeFirst();
  if (!row) return null;
  const { locked, ...archive } = row;
  return locked || live(archive, now) ? archive : null;
}

/** Every artifact row of the job, expired ones included (to erase them). */
export function jobArtifacts(db: Kysely<DB>, jobId: number): Promise<CiJobArtifactRow[]> {
  return db.selectFrom('ci_job_artifacts').selectAll().where('build_id', '=', jobId).orderBy('id').execute();
}

/**
 * The job named `name` of the latest successful pipeline on `ref` that has an archive which has not
 * expired (the platform looks in that pipeline only, the latest such job of the name).
 */
export async function latestSuccessfulJobForRef(db: Kysely<DB>, projectId: number, ref: string, name: string, now: Date): Promise<CiBuildRow | null> {
  const pipeline = await db
    .selectFrom('ci_pipelines')
    .select('id')
    .where('project_id', '=', projectId)
    .where('ref', '=', ref)
    .where('status', '=', 'success')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!pipeline) return null;
  const nowIso = now.toISOString();
  const job = await db
    .selectFrom('ci_builds')
    .selectAll('ci_builds')
    .innerJoin('ci_job_artifacts', 'ci_job_artifacts.build_id', 'ci_builds.id')
    .where('ci_builds.pipeline_id', '=', pipeline.id)
    .where('ci_builds.name', '=', name)
    .where('ci_builds.retried', '=', false)
    .where('ci_builds.type', '=', 'build')
    .where('ci_job_artifacts.file_type', '=', 'archive')
    .where((eb) => eb.or([eb('ci_job_artifacts.expire_at', 'is', null), eb('ci_job_artifacts.expire_at', '>', nowIso)]))
    .orderBy('ci_builds.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return job ?? null;
}

/** The pipeline's latest (not retried) jobs with a JUnit artifact, in job order, with its file. */
export function junitArtifacts(db: Kysely<DB>, pipelineId: number) {
  return db
    .selectFrom('ci_builds')
    .innerJoin('ci_job_artifacts', 'ci_job_artifacts.build_id', 'ci_builds.id')
    .select(['ci_builds.id', 'ci_builds.name', 'ci_builds.options', 'ci_job_artifacts.file_path'])
    .where('ci_builds.pipeline_id', '=', pipelineId)
    .where('ci_builds.retried', '=', false)
    .where('ci_job_artifacts.file_type', '=', 'junit')
    .orderBy('ci_builds.id')
    .execute();
}

/** The stored test results of the pipeline's latest jobs, in job order. */
export function reportResults(db: Kysely<DB>, pipelineId: number) {
  return db
    .selectFrom('ci_build_report_results')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_build_report_results.build_id')
    .select(['ci_build_report_results.build_id', 'ci_build_report_results.data'])
    .where('ci_builds.pipeline_id', '=', pipelineId)
    .where('ci_builds.retried', '=', false)
    .orderBy('ci_builds.id')
    .execute();
}
