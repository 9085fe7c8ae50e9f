// Atomic processing as tables of pipelines: the `when` rules, allow_failure, blocking and optional
// manual jobs, DAG needs and skip propagation, delayed jobs, resource groups, retried jobs, and the
// cascade reached in one call.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PipelineJob, applyJobChanges, processPipeline } from './processing.ts';
import { type Status } from './status.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');
let nextId = 1;

/** A job: `name@stage` with overrides; stage-scheduled on_success by default. */
function job(name: string, stageIdx: number, overrides: Partial<PipelineJob> = {}): PipelineJob {
  return {
    id: nextId++,
    name,
    stageIdx,
    status: 'created',
    when: 'on_success',
    allowFailure: false,
    schedulingType: overrides.needs ? 'dag' : 'stage',
    needs: null,
    retried: false,
    resourceGroup: null,
    scheduledAt: null,
    ...overrides,
  };
}

function statuses(jobs: readonly PipelineJob[]): Record<string, Status> {
  return Object.fromEntries(jobs.filter((j) => !j.retried).map((j) => [j.name, j.status]));
}

interface Case {
  name: string;
  jobs: () => PipelineJob[];
  after: Record<string, Status>;
  pipeline: Status | null;
  stages?: Status[];
}

const cases: Case[] = [
  { name: 'an empty pipeline is left alone', jobs: () => [], after: {}, pipeline: null, stages: [] },
  {
    name: 'the first stage is enqueued, later ones wait',
    jobs: () => [job('build', 0), job('test', 1), job('deploy', 2)],
    after: { build: 'pending', test: 'created', deploy: 'created' },
    pipeline: 'pending',
    stages: ['pending', 'created', 'created'],
  },
  {
    name: 'a finished stage enqueues the next',
    jobs: () => [job('build', 0, { status: 'success' }), job('test', 1), job('deploy', 2)],
    after: { build: 'success', test: 'pending', deploy: 'created' },
    pipeline: 'running',
  },
  {
    name: 'a failure skips later on_success jobs and runs on_failure and always jobs',
    jobs: () => [
      job('build', 0, { status: 'failed' }),
      job('test', 1),
      job('cleanup', 1, { when: 'on_failure' }),
      job('notify', 2, { when: 'always' }),
      job('deploy', 2),
    ],
    after: { build: 'failed', test: 'skipped', cleanup: 'pending', notify: 'created', deploy: 'created' },
    pipeline: 'running',
  },
  {
    name: 'after the on_failure job succeeds the previous status is still failed',
    jobs: () => [
      job('build', 0, { status: 'failed' }),
      job('test', 1, { status: 'skipped' }),
      job('cleanup', 1, { when: 'on_failure', status: 'success' }),
      job('notify', 2, { when: 'always' }),
      job('deploy', 2),
    ],
    after: { build: 'failed', test: 'skipped', cleanup: 'success', notify: 'pending', deploy: 'skipped' },
    pipeline: 'running',
  },
  {
    name: 'an allowed failure counts as success: on_failure jobs after it are skipped',
    jobs: () => [
      job('lint', 0, { status: 'failed', allowFailure: true }),
      job('build', 0, { status: 'success' }),
      job('test', 1),
      job('rollback', 1, { when: 'on_failure' }),
    ],
    after: { lint: 'failed', build: 'success', test: 'pending', rollback: 'skipped' },
    pipeline: 'running',
    stages: ['success', 'pending'],
  },
  {
    name: 'a canceled stage skips on_success and always jobs alike',
    jobs: () => [job('build', 0, { status: 'canceled' }), job('test', 1), job('notify', 1, { when: 'always' })],
    after: { build: 'canceled', test: 'skipped', notify: 'skipped' },
    pipeline: 'canceled',
  },
  {
    name: 'a blocking manual job blocks later stages and the pipeline',
    jobs: () => [job('build', 0, { status: 'success' }), job('approve', 1, { when: 'manual' }), job('deploy', 2)],
    after: { build: 'success', approve: 'manual', deploy: 'created' },
    pipeline: 'manual',
    stages: ['success', 'manual', 'created'],
  },
  {
    name: 'an optional manual job is ignored and the pipeline proceeds',
    jobs: () => [
      job('build', 0, { status: 'success' }),
      job('review', 1, { when: 'manual', allowFailure: true }),
      job('deploy', 2),
    ],
    after: { build: 'success', review: 'manual', deploy: 'pending' },
    pipeline: 'running',
    stages: ['success', 'skipped', 'pending'],
  },
  {
    name: 'a pipeline of only optional manual jobs ends skipped',
    jobs: () => [job('review', 0, { when: 'manual', allowFailure: true })],
    after: { review: 'manual' },
    pipeline: 'skipped',
  },
  {
    name: 'all jobs skipped',
    jobs: () => [job('a', 0, { when: 'on_failure' }), job('b', 1, { when: 'on_failure' })],
    after: { a: 'skipped', b: 'skipped' },
    pipeline: 'skipped',
    stages: ['skipped', 'skipped'],
  },
  {
    name: 'a skipped stage lets on_success jobs run',
    jobs: () => [job('a', 0, { status: 'skipped' }), job('b', 1)],
    after: { a: 'skipped', b: 'pending' },
    pipeline: 'pending',
  },
  {
    name: 'needs: [] starts at once whatever its stage',
    jobs: () => [job('build', 0), job('lint', 2, { needs: [] })],
    after: { build: 'pending', lint: 'pending' },
    pipeline: 'pending',
  },
  {
    name: 'a DAG job starts when its needs succeed, before its stage',
    jobs: () => [job('build', 0, { status: 'success' }), job('slow', 0, { status: 'running' }), job('test', 1, { needs: ['build'] }), job('other', 1)],
    after: { build: 'success', slow: 'running', test: 'pending', other: 'created' },
    pipeline: 'running',
  },
  {
    name: 'a DAG job waits while a need runs',
    jobs: () => [job('build', 0, { status: 'running' }), job('test', 1, { needs: ['build'] })],
    after: { build: 'running', test: 'created' },
    pipeline: 'running',
  },
  {
    name: 'a DAG job needing a failed job is skipped; an on_failure one runs',
    jobs: () => [
      job('build', 0, { status: 'failed' }),
      job('test', 1, { needs: ['build'] }),
      job('report', 1, { needs: ['build'], when: 'on_failure' }),
    ],
    after: { build: 'failed', test: 'skipped', report: 'pending' },
    pipeline: 'running',
  },
  {
    name: 'a DAG job needing an allowed failure runs (success with warnings)',
    jobs: () => [job('build', 0, { status: 'failed', allowFailure: true }), job('test', 1, { needs: ['build'] })],
    after: { build: 'failed', test: 'pending' },
    pipeline: 'pending',
  },
  {
    name: 'needs on a skipped job skip the DAG job; `always` still runs',
    jobs: () => [
      job('build', 0, { status: 'skipped' }),
      job('test', 1, { needs: ['build'] }),
      job('manual-after', 1, { needs: ['build'], when: 'manual' }),
      job('notify', 1, { needs: ['build'], when: 'always' }),
    ],
    after: { build: 'skipped', test: 'skipped', 'manual-after': 'skipped', notify: 'pending' },
    pipeline: 'pending',
  },
  {
    name: 'skips propagate through a chain of needs in one call',
    jobs: () => [
      job('build', 0, { status: 'failed' }),
      job('test', 1, { needs: ['build'] }),
      job('package', 2, { needs: ['test'] }),
      job('deploy', 3, { needs: ['package'] }),
    ],
    after: { build: 'failed', test: 'skipped', package: 'skipped', deploy: 'skipped' },
    pipeline: 'failed',
  },
  {
    name: 'needs on a later stage (refused by the compiler) leave both jobs waiting, without looping',
    jobs: () => [
      job('build', 0, { status: 'failed' }),
      job('early', 1, { needs: ['late'] }),
      job('late', 2),
    ],
    after: { build: 'failed', early: 'created', late: 'created' },
    pipeline: 'running',
  },
  {
    name: 'a blocking manual need holds a DAG job (manual blocking in DAG mode)',
    jobs: () => [job('approve', 0, { when: 'manual' }), job('deploy', 1, { needs: ['approve'] })],
    after: { approve: 'manual', deploy: 'created' },
    pipeline: 'manual',
  },
  {
    name: 'an optional manual need skips the DAG job',
    jobs: () => [job('approve', 0, { when: 'manual', allowFailure: true }), job('deploy', 1, { needs: ['approve'] })],
    after: { approve: 'manual', deploy: 'skipped' },
    pipeline: 'skipped',
  },
  {
    name: 'a blocking manual job of an earlier stage does not hold a DAG job that does not need it',
    jobs: () => [job('approve', 0, { when: 'manual' }), job('build', 0), job('test', 1, { needs: ['build'] })],
    after: { approve: 'manual', build: 'pending', test: 'created' },
    pipeline: 'running',
  },
  {
    name: 'a delayed job is scheduled; without start_in it is manual',
    jobs: () => [
      job('build', 0, { status: 'success' }),
      job('later', 1, { when: 'delayed', startInSeconds: 1800 }),
      job('odd', 1, { when: 'delayed' }),
    ],
    after: { build: 'success', later: 'scheduled', odd: 'manual' },
    pipeline: 'manual',
  },
  {
    name: 'a scheduled job blocks the pipeline as scheduled',
    jobs: () => [job('build', 0, { status: 'success' }), job('later', 1, { when: 'delayed', startInSeconds: 60 }), job('deploy', 2)],
    after: { build: 'success', later: 'scheduled', deploy: 'created' },
    pipeline: 'scheduled',
  },
  {
    name: 'a job of a resource group waits for the resource',
    jobs: () => [job('deploy', 0, { resourceGroup: 'production' })],
    after: { deploy: 'waiting_for_resource' },
    pipeline: 'waiting_for_resource',
  },
  {
    name: 'retried jobs are not looked at',
    jobs: () => [job('build', 0, { status: 'failed', retried: true }), job('build', 0, { status: 'success' }), job('test', 1)],
    after: { build: 'success', test: 'pending' },
    pipeline: 'running',
  },
  {
    name: 'a pipeline whose jobs all finished is complete',
    jobs: () => [job('build', 0, { status: 'success' }), job('test', 1, { status: 'failed', allowFailure: true })],
    after: { build: 'success', test: 'failed' },
    pipeline: 'success',
  },
];

describe('processPipeline', () => {
  for (const c of cases) {
    test(c.name, () => {
      const jobs = c.jobs();
      const before = structuredClone(jobs);
      const result = processPipeline(jobs, NOW);
      assert.deepEqual(statuses(result.jobs), c.after);
      assert.equal(result.pipelineStatus, c.pipeline);
      if (c.stages) assert.deepEqual(result.stages.map((s) => s.status), c.stages);
      assert.deepEqual(jobs, before, 'the input is not changed');
      // The changes alone lead to the same jobs, and a second run finds nothing to do.
      assert.deepEqual(applyJobChanges(jobs, result.changes), result.jobs);
      assert.deepEqual(processPipeline(result.jobs, NOW).changes, []);
    });
  }

  test('changes carry events, previous statuses and timestamps', () => {
    const jobs = [
      job('build', 0, { status: 'success' }),
      job('test', 1),
      job('approve', 1, { when: 'manual' }),
      job('later', 1, { when: 'delayed', startInSeconds: 90 }),
      job('deploy', 1, { resourceGroup: 'prod' }),
      job('cleanup', 1, { when: 'on_failure' }),
    ];
    const [, test_, approve, later, deploy, cleanup] = jobs;
    assert.deepEqual(processPipeline(jobs, NOW).changes, [
      { id: test_.id, from: 'created', to: 'pending', event: 'enqueue', queuedAt: NOW },
      { id: approve.id, from: 'created', to: 'manual', event: 'actionize' },
      { id: later.id, from: 'created', to: 'scheduled', event: 'schedule', scheduledAt: new Date(NOW.getTime() + 90_000) },
      { id: deploy.id, from: 'created', to: 'waiting_for_resource', event: 'enqueue', waitingForResourceAt: NOW },
      { id: cleanup.id, from: 'created', to: 'skipped', event: 'skip' },
    ]);
  });

  test('jobs of a stage are taken in the order of their needs', () => {
    const jobs = [job('b', 0, { needs: ['a'] }), job('a', 0, { when: 'on_failure', needs: [] })];
    const result = processPipeline(jobs, NOW);
    assert.deepEqual(result.changes.map((c) => [c.id, c.to]), [[jobs[1].id, 'skipped'], [jobs[0].id, 'skipped']]);
  });

  test('needs naming jobs absent from the pipeline count as none', () => {
    const result = processPipeline([job('test', 1, { needs: ['optional-build'] })], NOW);
    assert.deepEqual(statuses(result.jobs), { test: 'pending' });
  });

  test('pipeline change from its current status', () => {
    const jobs = [job('build', 0, { status: 'success' }), job('test', 1)];
    assert.deepEqual(processPipeline(jobs, NOW, { pipelineStatus: 'running' }).pipelineChange, null);
    assert.deepEqual(processPipeline(jobs, NOW, { pipelineStatus: 'success' }).pipelineChange, { from: 'success', to: 'running', event: 'run' });
    assert.deepEqual(processPipeline([job('a', 0)], NOW, { pipelineStatus: 'created' }).pipelineChange, { from: 'created', to: 'pending', event: 'enqueue' });
    assert.equal(processPipeline([], NOW, { pipelineStatus: 'skipped' }).pipelineChange, null);
  });

  test('a large pipeline is processed in one call', () => {
    const jobs: PipelineJob[] = [job('root', 0, { status: 'failed' })];
    for (let i = 1; i <= 300; i++) jobs.push(job(`j${i}`, 1 + (i % 5), { needs: [i === 1 ? 'root' : `j${i - 1}`] }));
    const result = processPipeline(jobs, NOW);
    assert.equal(result.changes.length, 300);
    assert.ok(result.jobs.slice(1).every((j) => j.status === 'skipped'));
  });
});
