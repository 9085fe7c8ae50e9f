// CI: pipelines and their jobs, the queue of jobs waiting for a runner, runners and where they
// serve, job traces in chunks, job artifacts, CI/CD variables (instance, group, project,
// pipeline) and pipeline triggers.
//
// Jobs and bridges share ci_builds (`type`), as the platform's commit statuses do. A pending job
// also has a row in ci_pending_builds: a runner takes a job by deleting that row, so one job is
// handed to exactly one runner however many ask at once, on any node. Secrets: job, runner and
// trigger tokens are kept as digests (a trigger token is shown again by the API, so it is also
// kept encrypted); variable values are encrypted with the instance's key.
import { type Kysely, sql } from 'kysely';
import { emptyByDefault, falseByDefault, isPostgres, notNull, withId } from './helpers.ts';

const cascade = (table: string) => (c: any) => c.notNull().references(`${table}.id`).onDelete('cascade');
const nullOnDelete = (table: string) => (c: any) => c.references(`${table}.id`).onDelete('set null');

export async function up(db: Kysely<any>): Promise<void> {
  const blob = isPostgres(db) ? 'bytea' : 'blob';

  await withId(db, db.schema.createTable('ci_pipelines'))
    .addColumn('project_id', 'bigint', cascade('projects'))
    .addColumn('iid', 'integer', notNull)
    .addColumn('ref', 'text', notNull)
    .addColumn('sha', 'varchar(64)', notNull)
    .addColumn('before_sha', 'varchar(64)', notNull)
    .addColumn('tag', 'boolean', falseByDefault)
    .addColumn('protected', 'boolean', falseByDefault)
    .addColumn('source', 'varchar(40)', notNull)
    .addColumn('status', 'varchar(32)', notNull)
    .addColumn('failure_reason', 'varchar(64)')
    .addColumn('yaml_errors', 'text')
    .addColumn('user_id', 'bigint', nullOnDelete('users'))
    .addColumn('config_path', 'text')
    // The bridge job whose trigger made this pipeline (a child or a multi-project downstream).
    .addColumn('source_job_id', 'bigint')
    .addColumn('source_pipeline_id', 'bigint')
    .addColumn('source_project_id', 'bigint')
    .addColumn('trigger_id', 'bigint')
    .addColumn('schedule_id', 'bigint')
    .addColumn('duration', 'integer')
    .addColumn('committed_at', 'varchar(32)')
    .addColumn('started_at', 'varchar(32)')
    .addColumn('finished_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_pipelines_project_iid').on('ci_pipelines').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('ci_pipelines_project').on('ci_pipelines').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_project_ref').on('ci_pipelines').columns(['project_id', 'ref', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_project_status').on('ci_pipelines').columns(['project_id', 'status', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_source_job').on('ci_pipelines').columns(['source_job_id']).execute();

  await withId(db, db.schema.createTable('ci_pipeline_variables'))
    .addColumn('pipeline_id', 'bigint', cascade('ci_pipelines'))
    .addColumn('key', 'text', notNull)
    .addColumn('value_encrypted', 'text', notNull)
    .addColumn('variable_type', 'varchar(16)', notNull)
    .execute();
  await db.schema.createIndex('ci_pipeline_variables_pipeline').on('ci_pipeline_variables').columns(['pipeline_id']).execute();

  await withId(db, db.schema.createTable('ci_builds'))
    .addColumn('pipeline_id', 'bigint', cascade('ci_pipelines'))
    .addColumn('project_id', 'bigint', notNull)
    // 'build' (run by a runner) or 'bridge' (triggers a downstream pipeline).
    .addColumn('type', 'varchar(16)', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('stage', 'text', notNull)
    .addColumn('stage_idx', 'integer', notNull)
    .addColumn('status', 'varchar(32)', notNull)
    .addColumn('ref', 'text', notNull)
    .addColumn('tag', 'boolean', falseByDefault)
    .addColumn('protected', 'boolean', falseByDefault)
    .addColumn('when', 'varchar(16)', notNull)
    .addColumn('allow_failure', 'boolean', falseByDefault)
    .addColumn('scheduling_type', 'varchar(8)', notNull)
    // JSON: the seeded job's needs, options (scripts, image, artifacts…), YAML variables and tags.
    .addColumn('needs', 'text')
    .addColumn('options', 'text', notNull)
    .addColumn('yaml_variables', 'text', notNull)
    .addColumn('tag_list', 'text', notNull)
    .addColumn('coverage_regex', 'text')
    .addColumn('coverage', 'double precision')
    .addColumn('resource_group', 'text')
    .addColumn('environment', 'text')
    .addColumn('interruptible', 'boolean', falseByDefault)
    .addColumn('retried', 'boolean', falseByDefault)
    .addColumn('user_id', 'bigint', nullOnDelete('users'))
    .addColumn('runner_id', 'bigint')
    .addColumn('token_digest', 'varchar(64)')
    .addColumn('failure_reason', 'varchar(64)')
    .addColumn('exit_code', 'integer')
    .addColumn('timeout', 'integer')
    .addColumn('timeout_source', 'varchar(32)')
    .addColumn('trace_size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('downstream_pipeline_id', 'bigint')
    .addColumn('artifacts_expire_at', 'varchar(32)')
    .addColumn('erased_at', 'varchar(32)')
    .addColumn('erased_by_id', 'bigint')
    .addColumn('scheduled_at', 'varchar(32)')
    .addColumn('queued_at', 'varchar(32)')
    .addColumn('started_at', 'varchar(32)')
    .addColumn('finished_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  // The lists (and their counts) read these alone: a project's or a pipeline's latest jobs or bridges, newest first.
  await db.schema.createIndex('ci_builds_pipeline').on('ci_builds').columns(['pipeline_id', 'type', 'retried', 'id']).execute();
  await db.schema.createIndex('ci_builds_project').on('ci_builds').columns(['project_id', 'type', 'retried', 'id']).execute();
  await db.schema.createIndex('ci_builds_project_status').on('ci_builds').columns(['project_id', 'status', 'id']).execute();
  await db.schema.createIndex('ci_builds_token').on('ci_builds').columns(['token_digest']).execute();
  await db.schema.createIndex('ci_builds_runner').on('ci_builds').columns(['runner_id', 'id']).execute();
  await db.schema.createIndex('ci_builds_status_updated').on('ci_builds').columns(['status', 'updated_at']).execute();

  // Jobs waiting for a runner: a runner takes one by deleting its row.
  await db.schema
    .createTable('ci_pending_builds')
    .addColumn('build_id', 'bigint', (c) => c.primaryKey().references('ci_builds.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', notNull)
    .addColumn('protected', 'boolean', falseByDefault)
    .addColumn('tag_list', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();

  await withId(db, db.schema.createTable('ci_build_trace_chunks'))
    .addColumn('build_id', 'bigint', cascade('ci_builds'))
    .addColumn('chunk_index', 'integer', notNull)
    .addColumn('data', blob, notNull)
    .execute();
  await db.schema.createIndex('ci_build_trace_chunks_build').on('ci_build_trace_chunks').columns(['build_id', 'chunk_index']).unique().execute();

  await withId(db, db.schema.createTable('ci_job_artifacts'))
    .addColumn('build_id', 'bigint', cascade('ci_builds'))
    .addColumn('project_id', 'bigint', notNull)
    .addColumn('file_type', 'varchar(40)', notNull)
    .addColumn('file_format', 'varchar(16)', notNull)
    .addColumn('filename', 'text', notNull)
    .addColumn('size', 'bigint', notNull)
    .addColumn('sha256', 'varchar(64)', notNull)
    // Where the file is kept under the artifacts storage.
    .addColumn('file_path', 'text', notNull)
    .addColumn('expire_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_job_artifacts_build_type').on('ci_job_artifacts').columns(['build_id', 'file_type']).unique().execute();
  await db.schema.createIndex('ci_job_artifacts_project').on('ci_job_artifacts').columns(['project_id']).execute();

  // A finished job's test results, for the pipeline's test report summary.
  await db.schema
    .createTable('ci_build_report_results')
    .addColumn('build_id', 'bigint', (c) => c.primaryKey().references('ci_builds.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', notNull)
    .addColumn('data', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('ci_runners'))
    .addColumn('token_digest', 'varchar(64)', notNull)
    // 'instance_type', 'group_type' or 'project_type'.
    .addColumn('runner_type', 'varchar(16)', notNull)
    .addColumn('description', 'text', emptyByDefault)
    .addColumn('maintenance_note', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('locked', 'boolean', falseByDefault)
    .addColumn('run_untagged', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('access_level', 'varchar(16)', notNull)
    .addColumn('maximum_timeout', 'integer')
    .addColumn('tag_list', 'text', notNull)
    .addColumn('name', 'text')
    .addColumn('version', 'text')
    .addColumn('revision', 'text')
    .addColumn('platform', 'text')
    .addColumn('architecture', 'text')
    .addColumn('executor_type', 'text')
    .addColumn('features', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('contacted_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_runners_token').on('ci_runners').columns(['token_digest']).unique().execute();

  await withId(db, db.schema.createTable('ci_runner_projects'))
    .addColumn('runner_id', 'bigint', cascade('ci_runners'))
    .addColumn('project_id', 'bigint', cascade('projects'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_runner_projects_pair').on('ci_runner_projects').columns(['runner_id', 'project_id']).unique().execute();
  await db.schema.createIndex('ci_runner_projects_project').on('ci_runner_projects').columns(['project_id']).execute();

  await withId(db, db.schema.createTable('ci_runner_namespaces'))
    .addColumn('runner_id', 'bigint', cascade('ci_runners'))
    .addColumn('namespace_id', 'bigint', cascade('namespaces'))
    .execute();
  await db.schema.createIndex('ci_runner_namespaces_pair').on('ci_runner_namespaces').columns(['runner_id', 'namespace_id']).unique().execute();
  await db.schema.createIndex('ci_runner_namespaces_namespace').on('ci_runner_namespaces').columns(['namespace_id']).execute();

  // CI/CD variables: owner_type 'instance' (owner_id 0), 'group' (a namespace) or 'project'.
  await withId(db, db.schema.createTable('ci_variables'))
    .addColumn('owner_type', 'varchar(16)', notNull)
    .addColumn('owner_id', 'bigint', notNull)
    .addColumn('key', 'varchar(255)', notNull)
    .addColumn('value_encrypted', 'text', notNull)
    .addColumn('variable_type', 'varchar(16)', notNull)
    .addColumn('protected', 'boolean', falseByDefault)
    .addColumn('masked', 'boolean', falseByDefault)
    .addColumn('environment_scope', 'varchar(255)', (c) => c.notNull().defaultTo('*'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema
    .createIndex('ci_variables_owner_key')
    .on('ci_variables')
    .columns(['owner_type', 'owner_id', 'key', 'environment_scope'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('ci_triggers'))
    .addColumn('project_id', 'bigint', cascade('projects'))
    .addColumn('owner_id', 'bigint', nullOnDelete('users'))
    .addColumn('description', 'text', emptyByDefault)
    .addColumn('token_digest', 'varchar(64)', notNull)
    .addColumn('token_encrypted', 'text', notNull)
    .addColumn('last_used', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('ci_triggers_token').on('ci_triggers').columns(['token_digest']).unique().execute();
  await db.schema.createIndex('ci_triggers_project').on('ci_triggers').columns(['project_id']).execute();

  // Instance-wide secrets by name (the instance's runner registration token), encrypted, with a
  // digest for lookup.
  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value_encrypted', 'text', notNull)
    .addColumn('digest', 'varchar(64)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('instance_secrets_digest').on('instance_secrets').columns(['digest']).execute();

  // Each project's number of pipelines and of latest jobs, kept by triggers, so that the lists'
  // X-Total costs one read however many there are.
  await db.schema
    .createTable('ci_project_counts')
    .addColumn('project_id', 'bigint', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('pipelines', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('jobs', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  if (isPostgres(db)) await postgresCountTriggers(db);
  else await sqliteCountTriggers(db);
}

// A counted job: a build (not a bridge) that is not retried.
async function postgresCountTriggers(db: Kysely<any>): Promise<void> {
  await sql`
    create function ci_project_counts_add(project bigint, more_pipelines bigint, more_jobs bigint) returns void language plpgsql as $$
    begin
      -- An increase may be the project's first; a decrease of a project being deleted finds no row.
      if more_pipelines > 0 or more_jobs > 0 then
        insert into ci_project_counts as c (project_id, pipelines, jobs) values (project, more_pipelines, more_jobs)
          on conflict (project_id) do update set pipelines = c.pipelines + more_pipelines, jobs = c.jobs + more_jobs;
      else
        update ci_project_counts as c set pipelines = c.pipelines + more_pipelines, jobs = c.jobs + more_jobs where c.project_id = project;
      end if;
    end $$`.execute(db);
  await sql`
    create function ci_pipelines_count() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then perform ci_project_counts_add(new.project_id, 1, 0); else perform ci_project_counts_add(old.project_id, -1, 0); end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger ci_pipelines_count after insert or delete on ci_pipelines for each row execute function ci_pipelines_count()`.execute(db);
  await sql`
    create function ci_builds_count() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.type = 'build' and not old.retried then perform ci_project_counts_add(old.project_id, 0, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') and new.type = 'build' and not new.retried then perform ci_project_counts_add(new.project_id, 0, 1); end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger ci_builds_count after insert or delete on ci_builds for each row execute function ci_builds_count()`.execute(db);
  await sql`create trigger ci_builds_count_retried after update of retried on ci_builds for each row
            when (old.retried is distinct from new.retried) execute function ci_builds_count()`.execute(db);
}

async function sqliteCountTriggers(db: Kysely<any>): Promise<void> {
  const add = (project: string, pipelines: number, jobs: number) =>
    pipelines > 0 || jobs > 0
      ? `insert into ci_project_counts (project_id, pipelines, jobs) values (${project}, ${pipelines}, ${jobs})
           on conflict (project_id) do update set pipelines = pipelines + ${pipelines}, jobs = jobs + ${jobs};`
      : `update ci_project_counts set pipelines = pipelines + ${pipelines}, jobs = jobs + ${jobs} where project_id = ${project};`;
  const statements = [
    `create trigger ci_pipelines_count_insert after insert on ci_pipelines begin ${add('new.project_id', 1, 0)} end`,
    `create trigger ci_pipelines_count_delete after delete on ci_pipelines begin ${add('old.project_id', -1, 0)} end`,
    `create trigger ci_builds_count_insert after insert on ci_builds when new.type = 'build' and new.retried = 0 begin ${add('new.project_id', 0, 1)} end`,
    `create trigger ci_builds_count_delete after delete on ci_builds when old.type = 'build' and old.retried = 0 begin ${add('old.project_id', 0, -1)} end`,
    `create trigger ci_builds_count_retried after update of retried on ci_builds when new.type = 'build' and old.retried is not new.retried begin
       update ci_project_counts set jobs = jobs + (case when new.retried then -1 else 1 end) where project_id = new.project_id;
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
