// Pipeline schedules: a cron line and time zone per schedule, the time of its next run (which the
// periodic task looks for), its owner (the user its pipelines run as) and its variables, kept
// encrypted like every other CI/CD variable value.
import type { Kysely } from 'kysely';
import { emptyByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_pipeline_schedules'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('owner_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('description', 'text', emptyByDefault)
    .addColumn('ref', 'text', notNull)
    .addColumn('cron', 'varchar(255)', notNull)
    .addColumn('cron_timezone', 'varchar(255)', notNull)
    .addColumn('next_run_at', 'varchar(32)')
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_pipeline_schedules_project').on('ci_pipeline_schedules').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ci_pipeline_schedules_due').on('ci_pipeline_schedules').columns(['active', 'next_run_at']).execute();

  await withId(db, db.schema.createTable('ci_pipeline_schedule_variables'))
    .addColumn('schedule_id', 'bigint', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', notNull)
    .addColumn('value_encrypted', 'text', notNull)
    .addColumn('variable_type', 'varchar(16)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_pipeline_schedule_variables_key').on('ci_pipeline_schedule_variables').columns(['schedule_id', 'key']).unique().execute();
}
