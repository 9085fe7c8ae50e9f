// Delayed jobs become pending (or wait for their resource) once their time has passed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type PipelineJob } from './pipeline-job.ts';
import { processPipeline } from './processing.ts';
import { enqueueDueScheduled } from './scheduled.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const job = (id: number, overrides: Partial<PipelineJob>): PipelineJob => ({
  id, name: `job${id}`, stageIdx: 1, status: 'scheduled', when: 'delayed', allowFailure: false, schedulingType: 'stage',
  needs: null, retried: false, resourceGroup: null, scheduledAt: null, startInSeconds: 60, ...overrides,
});

test('only scheduled jobs whose time has passed move on', () => {
  const jobs = [
    job(1, { scheduledAt: at(-1) }),
    job(2, { scheduledAt: at(0) }), // not yet past: the platform's `past?` is strict
    job(3, { scheduledAt: at(30) }),
    job(4, { scheduledAt: null }),
    job(5, { status: 'manual', scheduledAt: at(-100) }),
    job(6, { scheduledAt: at(-5), resourceGroup: 'prod' }),
  ];
  assert.deepEqual(enqueueDueScheduled(jobs, NOW), [
    { id: 1, from: 'scheduled', to: 'pending', event: 'enqueue_scheduled', queuedAt: NOW, scheduledAt: null },
    { id: 4, from: 'scheduled', to: 'pending', event: 'enqueue_scheduled', queuedAt: NOW, scheduledAt: null },
    { id: 6, from: 'scheduled', to: 'waiting_for_resource', event: 'enqueue_scheduled', waitingForResourceAt: NOW, scheduledAt: null },
  ]);
  assert.deepEqual(enqueueDueScheduled([], NOW), []);
});

test('from delayed to pending through processing', () => {
  const build = job(1, { name: 'build', stageIdx: 0, status: 'success', when: 'on_success' });
  const later = job(2, { name: 'later', status: 'created' });
  const first = processPipeline([build, later], NOW);
  assert.equal(first.pipelineStatus, 'scheduled');
  const scheduledAt = first.jobs[1].scheduledAt as Date;
  assert.deepEqual(scheduledAt, at(60));
  const due = new Date(scheduledAt.getTime() + 1);
  assert.deepEqual(enqueueDueScheduled(first.jobs, NOW), []);
  const [change] = enqueueDueScheduled(first.jobs, due);
  assert.equal(change.to, 'pending');
});
