// Cancelling a pipeline cancels what is alive or scheduled and leaves manual and finished jobs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cancelJobChange, cancelPipelineChanges } from './cancel.ts';
import { type PipelineJob, applyJobChanges } from './pipeline-job.ts';
import { processPipeline } from './processing.ts';
import { STATUSES, type Status } from './status.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');
const job = (id: number, status: Status, overrides: Partial<PipelineJob> = {}): PipelineJob => ({
  id, name: `job${id}`, stageIdx: 0, status, when: 'on_success', allowFailure: false, schedulingType: 'stage',
  needs: null, retried: false, resourceGroup: null, scheduledAt: null, ...overrides,
});

test('pipeline cancel touches exactly the cancelable statuses', () => {
  const jobs = STATUSES.map((status, i) => job(i + 1, status));
  const changes = cancelPipelineChanges(jobs, NOW);
  assert.deepEqual(
    changes.map((c) => c.from),
    ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'],
  );
  for (const change of changes) {
    assert.equal(change.to, 'canceled');
    assert.equal(change.event, 'cancel');
    assert.deepEqual(change.finishedAt, NOW);
  }
  assert.equal(changes.find((c) => c.from === 'scheduled')?.scheduledAt, null);
});

test('cancel leaves manual jobs: the pipeline ends canceled, or manual when a blocking one remains', () => {
  const optional = [job(1, 'success'), job(2, 'running', { stageIdx: 1 }), job(3, 'manual', { stageIdx: 1, when: 'manual', allowFailure: true }), job(4, 'created', { stageIdx: 2 })];
  const after = processPipeline(applyJobChanges(optional, cancelPipelineChanges(optional, NOW)), NOW);
  assert.deepEqual(after.jobs.map((j) => j.status), ['success', 'canceled', 'manual', 'canceled']);
  assert.equal(after.pipelineStatus, 'canceled');

  const blocking = [job(1, 'success'), job(2, 'manual', { stageIdx: 1, when: 'manual' }), job(3, 'created', { stageIdx: 2 })];
  const blocked = processPipeline(applyJobChanges(blocking, cancelPipelineChanges(blocking, NOW)), NOW);
  assert.deepEqual(blocked.jobs.map((j) => j.status), ['success', 'manual', 'canceled']);
  assert.equal(blocked.pipelineStatus, 'manual');
});

test('job cancel follows the state machine (manual and scheduled jobs too)', () => {
  assert.equal(cancelJobChange(job(1, 'manual'), NOW)?.to, 'canceled');
  assert.equal(cancelJobChange(job(1, 'running'), NOW)?.to, 'canceled');
  assert.equal(cancelJobChange(job(1, 'success'), NOW), null);
  assert.equal(cancelJobChange(job(1, 'skipped'), NOW), null);
  assert.deepEqual(cancelPipelineChanges([], NOW), []);
});
