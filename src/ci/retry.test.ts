// Retrying a job or a pipeline, and automatic retries from `retry:`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PipelineJob, applyJobChanges } from './pipeline-job.ts';
import { processPipeline } from './processing.ts';
import { type RetryCandidate, type RetryConfig, autoRetryDecision, isRetryable, retryJobPlan, retryPipelinePlan } from './retry.ts';
import { STATUSES, type Status } from './status.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');
let nextId = 1;
const job = (name: string, stageIdx: number, status: Status, overrides: Partial<RetryCandidate> = {}): RetryCandidate => ({
  id: nextId++, name, stageIdx, status, when: 'on_success', allowFailure: false,
  schedulingType: overrides.needs ? 'dag' : 'stage', needs: null, retried: false, resourceGroup: null, scheduledAt: null,
  ...overrides,
});

/** What the caller does with a plan: insert the clones, mark the retried, apply the changes. */
function applyPlan(jobs: PipelineJob[], cloneOf: number[], cloneStatus: Status, markRetried: number[], changes: Parameters<typeof applyJobChanges>[1]) {
  const retried = new Set(markRetried);
  const updated = applyJobChanges(jobs, changes).map((j) => (retried.has(j.id) ? { ...j, retried: true } : j));
  const clones = cloneOf.map((id) => ({ ...(jobs.find((j) => j.id === id) as PipelineJob), id: nextId++, status: cloneStatus, retried: false }));
  return [...updated, ...clones];
}

describe('isRetryable', () => {
  for (const status of STATUSES) {
    const expected = ['success', 'failed', 'canceled'].includes(status);
    test(`${status} → ${expected}`, () => assert.equal(isRetryable({ status }), expected));
  }
  test('archived pipelines and bridges are not retryable', () => {
    assert.equal(isRetryable({ status: 'failed' }, { archived: true }), false);
    assert.equal(isRetryable({ status: 'failed', bridge: true }), false);
  });
});

describe('retryJobPlan', () => {
  test('a failed job: the clone is enqueued, older ones retried, later skipped jobs reset', () => {
    const build = job('build', 0, 'failed');
    const jobs = [
      job('build', 0, 'failed', { retried: true }),
      build,
      job('lint', 0, 'success'),
      job('test', 1, 'skipped'),
      job('deploy', 2, 'skipped'),
      job('old-skipped', 1, 'skipped', { retried: true }),
      job('cleanup', 1, 'success', { when: 'on_failure' }),
    ];
    const plan = retryJobPlan(jobs, build.id, NOW);
    assert.ok(plan);
    assert.equal(plan.cloneOf, build.id);
    assert.equal(plan.cloneStatus, 'pending');
    assert.deepEqual(plan.cloneTimestamps, { queuedAt: NOW });
    assert.deepEqual(plan.markRetried, [build.id]);
    assert.deepEqual(plan.changes.map((c) => [c.id, c.from, c.to, c.event]), [
      [jobs[3].id, 'skipped', 'created', 'process'],
      [jobs[4].id, 'skipped', 'created', 'process'],
    ]);

    // After the retry the pipeline runs again; when the clone succeeds, the reset jobs follow.
    const retried = applyPlan(jobs, [plan.cloneOf], plan.cloneStatus, plan.markRetried, plan.changes);
    const running = processPipeline(retried, NOW, { pipelineStatus: 'failed' });
    assert.equal(running.pipelineStatus, 'running');
    assert.deepEqual(running.pipelineChange, { from: 'failed', to: 'running', event: 'run' });
    const clone = retried[retried.length - 1];
    const succeeded = processPipeline(running.jobs.map((j) => (j.id === clone.id ? { ...j, status: 'success' as const } : j)), NOW);
    assert.equal(succeeded.jobs.find((j) => j.name === 'test' && !j.retried)?.status, 'pending');
  });

  test('skipped DAG jobs that need the retried job are reset, even in its stage, and their dependents too', () => {
    const build = job('build', 1, 'canceled');
    const jobs = [
      job('prepare', 0, 'success'),
      build,
      job('unit', 1, 'skipped', { needs: ['build'] }),
      job('report', 1, 'skipped', { needs: ['unit'] }),
      job('unrelated', 1, 'skipped', { needs: ['prepare'] }),
    ];
    const plan = retryJobPlan(jobs, build.id, NOW);
    assert.deepEqual(plan?.changes.map((c) => c.id), [jobs[2].id, jobs[3].id]);
  });

  test('a job of a resource group waits for the resource; unretryable jobs have no plan', () => {
    const deploy = job('deploy', 0, 'success', { resourceGroup: 'prod' });
    assert.equal(retryJobPlan([deploy], deploy.id, NOW)?.cloneStatus, 'waiting_for_resource');
    const running = job('test', 0, 'running');
    assert.equal(retryJobPlan([running], running.id, NOW), null);
    assert.equal(retryJobPlan([deploy], 999, NOW), null);
    assert.equal(retryJobPlan([deploy], deploy.id, NOW, { archived: true }), null);
  });
});

describe('retryPipelinePlan', () => {
  test('clones latest failed and canceled jobs and resets every latest skipped job', () => {
    const jobs = [
      job('build', 0, 'success'),
      job('lint', 0, 'failed', { allowFailure: true }),
      job('test', 1, 'failed'),
      job('old', 1, 'failed', { retried: true }),
      job('e2e', 1, 'canceled'),
      job('trigger', 1, 'failed', { bridge: true }),
      job('deploy', 2, 'skipped'),
      job('approve', 2, 'manual', { when: 'manual' }),
    ];
    const plan = retryPipelinePlan(jobs, NOW);
    assert.deepEqual(plan.cloneOf, [jobs[1].id, jobs[2].id, jobs[4].id]);
    assert.deepEqual(plan.markRetried, plan.cloneOf);
    assert.deepEqual(plan.changes.map((c) => [c.id, c.to, c.event]), [[jobs[6].id, 'created', 'process']]);

    // The clones start as created; processing enqueues those whose predecessors are complete.
    const after = processPipeline(applyPlan(jobs, plan.cloneOf, 'created', plan.markRetried, plan.changes), NOW, { pipelineStatus: 'failed' });
    const latest = Object.fromEntries(after.jobs.filter((j) => !j.retried).map((j) => [j.name, j.status]));
    assert.deepEqual(latest, { build: 'success', lint: 'pending', test: 'created', e2e: 'created', trigger: 'failed', deploy: 'created', approve: 'manual' });
    assert.equal(after.pipelineChange?.to, 'running');
  });

  test('nothing to retry gives an empty plan', () => {
    assert.deepEqual(retryPipelinePlan([job('a', 0, 'success')], NOW), { cloneOf: [], markRetried: [], changes: [] });
    assert.deepEqual(retryPipelinePlan([job('a', 0, 'failed')], NOW, { archived: true }).cloneOf, []);
  });
});

describe('autoRetryDecision', () => {
  const failed = { status: 'failed' as const };
  const cases: [string, string | null, number, RetryConfig, boolean, number][] = [
    ['no retry: configured', 'script_failure', 0, null, false, 0],
    ['retry: 2 retries any failure', 'script_failure', 0, 2, true, 2],
    ['retry: 2 after two retries stops', 'script_failure', 2, 2, false, 2],
    ['retry: 2 after one retry goes on', 'script_failure', 1, { max: 2 }, true, 2],
    ['when lists the reason', 'runner_system_failure', 0, { max: 1, when: ['runner_system_failure'] }, true, 1],
    ['when does not list the reason', 'script_failure', 0, { max: 1, when: ['runner_system_failure'] }, false, 0],
    ['when: always', 'unknown_failure', 0, { max: 1, when: ['always'] }, true, 1],
    ['a missing reason is unknown_failure', null, 0, { max: 1, when: ['unknown_failure'] }, true, 1],
    ['max given as text', 'script_failure', 0, { max: '2' }, true, 2],
    ['max not an integer', 'script_failure', 0, { max: 'two' }, false, 0],
    ['when without max', 'script_failure', 0, { when: ['script_failure'] }, false, 0],
    ['scheduler_failure retried twice by default', 'scheduler_failure', 1, null, true, 2],
    ['scheduler_failure follows retry: when it covers it', 'scheduler_failure', 1, { max: 1 }, false, 1],
    ['scheduler_failure keeps its default when retry: does not cover it', 'scheduler_failure', 0, { max: 1, when: ['script_failure'] }, true, 2],
    ['missing_dependency_failure never', 'missing_dependency_failure', 0, 2, false, 0],
    ['no_matching_runner never', 'no_matching_runner', 0, { max: 2, when: ['always'] }, false, 0],
    ['ci_quota_exceeded never', 'ci_quota_exceeded', 0, 2, false, 0],
    ['forward_deployment_failure never', 'forward_deployment_failure', 0, 2, false, 0],
    ['environment_creation_failure never', 'environment_creation_failure', 0, 2, false, 0],
  ];
  for (const [name, reason, count, config, retry, max] of cases) {
    test(name, () => assert.deepEqual(autoRetryDecision(failed, reason, count, config), { retry, maxRetries: max }));
  }
  test('an archived pipeline is not retried', () => {
    assert.equal(autoRetryDecision(failed, 'script_failure', 0, 2, { archived: true }).retry, false);
  });
});
