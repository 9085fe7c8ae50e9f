// The stuck-jobs task: which jobs it fails (silent running jobs, pending jobs that no active runner
// could take or that waited too long, delayed jobs long past their time), and that a batch costs
// the same statements however many jobs, projects and runners it involves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { digest } from '../../src/core/auth/secrets.ts';
import { systemContext } from '../../src/core/context.ts';
import type { NamespaceRow } from '../../src/db/schema.ts';
import { dropStuckJobs } from '../../src/modules/ci-jobs/ci-jobs.service.ts';
import { createGroup, createProject } from '../factories.ts';
import { type TestApp, createTestApp } from '../harness.ts';
import { statementsDuring } from '../sql-spy.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const HOUR = 3600 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
let iid = 0;

interface RunnerSpec {
  type: 'instance_type' | 'group_type' | 'project_type';
  on?: number;
  tags?: string[];
  untagged?: boolean;
  protectedOnly?: boolean;
  paused?: boolean;
}

async function runner(spec: RunnerSpec): Promise<void> {
  const at = new Date().toISOString();
  const row = await t.deps.db
    .insertInto('ci_runners')
    .values({
      token_digest: digest(randomBytes(12).toString('hex')),
      runner_type: spec.type,
      active: !spec.paused,
      run_untagged: spec.untagged ?? true,
      access_level: spec.protectedOnly ? 'ref_protected' : 'not_protected',
      maximum_timeout: null,
      tag_list: JSON.stringify(spec.tags ?? []),
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (spec.type === 'project_type') await t.deps.db.insertInto('ci_runner_projects').values({ runner_id: row.id, project_id: spec.on as number, created_at: at }).execute();
  if (spec.type === 'group_type') await t.deps.db.insertInto('ci_runner_namespaces').values({ runner_id: row.id, namespace_id: spec.on as number }).execute();
}

interface JobSpec {
  status?: 'pending' | 'running' | 'scheduled';
  tags?: string[];
  protectedRef?: boolean;
  /** How long ago it was queued (pending), last updated (running) or due (scheduled). */
  since?: number;
}

/** A pipeline with one job, written straight to the database; returns the job's id. */
async function job(projectId: number, spec: JobSpec = {}): Promise<number> {
  const status = spec.status ?? 'pending';
  const at = new Date().toISOString();
  const since = ago(spec.since ?? 2 * HOUR);
  const pipeline = await t.deps.db
    .insertInto('ci_pipelines')
    .values({ project_id: projectId, iid: ++iid, ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), tag: false, protected: spec.protectedRef ?? false, source: 'push', status, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  const row = await t.deps.db
    .insertInto('ci_builds')
    .values({
      pipeline_id: pipeline.id, project_id: projectId, type: 'build', name: 'test', stage: 'test', stage_idx: 0, status, ref: 'main', tag: false, protected: spec.protectedRef ?? false,
      allow_failure: false, interruptible: false, retried: false, when: 'on_success', scheduling_type: 'stage', options: '{}', yaml_variables: '[]', tag_list: JSON.stringify(spec.tags ?? []),
      queued_at: since, scheduled_at: status === 'scheduled' ? since : null, created_at: since, updated_at: status === 'running' ? since : at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (status === 'pending') {
    await t.deps.db.insertInto('ci_pending_builds').values({ build_id: row.id, project_id: projectId, protected: spec.protectedRef ?? false, tag_list: JSON.stringify(spec.tags ?? []), created_at: since }).execute();
  }
  return row.id;
}

async function outcome(ids: number[]): Promise<Record<number, string>> {
  const rows = await t.deps.db.selectFrom('ci_builds').select(['id', 'status', 'failure_reason']).where('id', 'in', ids).execute();
  return Object.fromEntries(rows.map((r) => [r.id, r.status === 'failed' ? `failed: ${r.failure_reason}` : r.status]));
}

/** A group with a subgroup, a project in the subgroup served by the group's runner, and its pending job. */
async function groupServedJob(): Promise<{ group: NamespaceRow; jobId: number }> {
  const group = await createGroup(t);
  const subgroup = await createGroup(t, { parent: group });
  const project = await createProject(t, { namespace: subgroup });
  await runner({ type: 'group_type', on: group.id, tags: ['linux'] });
  return { group, jobId: await job(project.id, { tags: ['linux'] }) };
}

test('fails what cannot finish, and keeps the pending jobs that an active runner could take', async () => {
  const { jobId: inSubgroup } = await groupServedJob();

  const projectServed = await createProject(t);
  await runner({ type: 'project_type', on: projectServed.id, protectedOnly: true });
  const protectedJob = await job(projectServed.id, { protectedRef: true });
  const unprotectedJob = await job(projectServed.id);

  const shared = await createProject(t);
  await runner({ type: 'instance_type', tags: ['docker'], untagged: false });
  const dockerJob = await job(shared.id, { tags: ['docker'] });
  const windowsJob = await job(shared.id, { tags: ['windows'] });
  const untaggedJob = await job(shared.id);

  const noShared = await createProject(t);
  await t.deps.db.updateTable('project_ci_cd_settings').set({ shared_runners_enabled: false }).where('project_id', '=', noShared.id).execute();
  await runner({ type: 'project_type', on: noShared.id, paused: true });
  const unserved = await job(noShared.id, { tags: ['docker'] });

  const recent = await job(noShared.id, { since: 10 * 60 * 1000 });
  const waitedTooLong = await job(shared.id, { tags: ['docker'], since: 25 * HOUR });
  const silent = await job(shared.id, { status: 'running' });
  const talking = await job(shared.id, { status: 'running', since: 60 * 1000 });
  const late = await job(shared.id, { status: 'scheduled' });

  assert.equal(await dropStuckJobs(systemContext(t.deps)), 7);
  assert.deepEqual(await outcome([inSubgroup, protectedJob, unprotectedJob, dockerJob, windowsJob, untaggedJob, unserved, recent, waitedTooLong, silent, talking, late]), {
    [inSubgroup]: 'pending',
    [protectedJob]: 'pending',
    [unprotectedJob]: 'failed: stuck_or_timeout_failure',
    [dockerJob]: 'pending',
    [windowsJob]: 'failed: stuck_or_timeout_failure',
    [untaggedJob]: 'failed: stuck_or_timeout_failure',
    [unserved]: 'failed: stuck_or_timeout_failure',
    [recent]: 'pending',
    [waitedTooLong]: 'failed: stuck_or_timeout_failure',
    [silent]: 'failed: stuck_or_timeout_failure',
    [talking]: 'running',
    [late]: 'failed: stale_schedule',
  });
  // A failed job leaves the runners' queue, and its pipeline is processed again.
  const queued = await t.deps.db.selectFrom('ci_pending_builds').select('build_id').where('build_id', 'in', [unprotectedJob, windowsJob, dockerJob]).execute();
  assert.deepEqual(queued.map((r) => r.build_id), [dockerJob]);
  const failedPipelines = await t.deps.db.selectFrom('ci_builds').select('pipeline_id').where('status', '=', 'failed').execute();
  const processing = await t.deps.db.selectFrom('background_jobs').select('payload').where('kind', '=', 'pipeline.process').execute();
  const processed = new Set(processing.map((r) => JSON.parse(r.payload).pipelineId));
  for (const { pipeline_id } of failedPipelines) assert.ok(processed.has(pipeline_id), `pipeline ${pipeline_id} is processed`);
  await t.runJobs();
});

test('a run costs the same statements however many jobs, projects and runners', async () => {
  const statements = async () => (await statementsDuring(t, () => dropStuckJobs(systemContext(t.deps)), { transactions: true })).length;
  const world = async (size: number) => {
    for (let i = 0; i < size; i++) {
      await groupServedJob();
      const project = await createProject(t);
      await runner({ type: 'project_type', on: project.id });
      await job(project.id);
      await job(project.id, { tags: ['gpu'] });
      await job(project.id, { status: 'running' });
      await job(project.id, { status: 'scheduled' });
    }
  };
  await world(1);
  const small = await statements();
  await world(4);
  const large = await statements();
  assert.equal(large, small);
  // The batch reads, the runners (once), where they serve, one write of each kind and the
  // processing it queues (with its notification on PostgreSQL).
  assert.ok(small <= 17, `${small} statements`);
});
