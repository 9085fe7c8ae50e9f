// CI jobs, continued: variables a job leaves to the jobs that depend on it (a dotenv report), and
// what the expiry of artifacts needs.
//
// ci_job_variables: one row per key of a job's dotenv report, the value encrypted like every other
// CI/CD variable value. ci_pipelines.locked: the platform's `artifacts_locked`, set when the
// pipeline is made (the project keeps its latest artifacts) and cleared once a newer pipeline of
// its ref has succeeded with artifacts; expired artifacts of a locked pipeline are kept. Existing
// pipelines start locked, as the platform's column did: nothing is lost on upgrade.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_job_variables'))
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('ci_builds.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', notNull)
    .addColumn('value_encrypted', 'text', notNull)
    // 'dotenv': from the job's dotenv report.
    .addColumn('source', 'varchar(16)', notNull)
    .execute();
  await db.schema.createIndex('ci_job_variables_job_key').on('ci_job_variables').columns(['job_id', 'key']).unique().execute();

  await db.schema.alterTable('ci_pipelines').addColumn('locked', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  // The expiry task reads locked pipelines to unlock them, and artifacts by expiry time.
  await db.schema.createIndex('ci_pipelines_locked').on('ci_pipelines').columns(['locked', 'id']).execute();
  await db.schema.createIndex('ci_job_artifacts_expire_at').on('ci_job_artifacts').columns(['expire_at']).execute();
}
