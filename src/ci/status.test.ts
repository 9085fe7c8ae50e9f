// The job and pipeline state machines as tables: every event from every status, the Build variants,
// the timestamps each transition writes, and the pipeline's set_status.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ACTIVE_STATUSES,
  ALIVE_STATUSES,
  BLOCKED_STATUSES,
  CANCELABLE_STATUSES,
  COMPLETED_STATUSES,
  JOB_EVENTS,
  type JobEvent,
  STATUSES,
  STOPPED_STATUSES,
  type Status,
  isStatus,
  jobDuration,
  jobQueuedDuration,
  jobTransition,
  jobTransitionTimestamps,
  pipelineTransition,
  pipelineTransitionEffects,
  setPipelineStatus,
} from './status.ts';

describe('status groups', () => {
  test('are the platform groups', () => {
    assert.deepEqual(STATUSES.length, 11);
    assert.deepEqual([...ACTIVE_STATUSES], ['waiting_for_resource', 'preparing', 'pending', 'running']);
    assert.deepEqual([...COMPLETED_STATUSES], ['success', 'failed', 'canceled', 'skipped']);
    assert.deepEqual([...BLOCKED_STATUSES], ['manual', 'scheduled']);
    assert.deepEqual([...STOPPED_STATUSES], ['success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled']);
    assert.deepEqual([...ALIVE_STATUSES], ['waiting_for_resource', 'preparing', 'pending', 'running', 'created']);
    assert.deepEqual([...CANCELABLE_STATUSES], ['waiting_for_resource', 'preparing', 'pending', 'running', 'created', 'scheduled']);
    assert.equal(isStatus('canceling'), false);
    assert.equal(isStatus('manual'), true);
  });
});

// Every (event, from) pair that has a transition without guards; all other pairs must be null.
const PLAIN: Record<JobEvent, Partial<Record<Status, Status>>> = {
  process: { skipped: 'created', manual: 'created' },
  enqueue: { created: 'pending', skipped: 'pending', manual: 'pending', scheduled: 'pending' },
  enqueue_scheduled: { scheduled: 'pending' },
  enqueue_waiting_for_resource: { waiting_for_resource: 'pending' },
  enqueue_preparing: { preparing: 'pending' },
  actionize: { created: 'manual' },
  schedule: { created: 'scheduled' },
  unschedule: { scheduled: 'manual' },
  run: { pending: 'running' },
  skip: { created: 'skipped', waiting_for_resource: 'skipped', preparing: 'skipped', pending: 'skipped' },
  drop: {
    created: 'failed', waiting_for_resource: 'failed', preparing: 'failed', pending: 'failed', running: 'failed',
    scheduled: 'failed',
  },
  success: { created: 'success', waiting_for_resource: 'success', preparing: 'success', pending: 'success', running: 'success' },
  cancel: {
    created: 'canceled', waiting_for_resource: 'canceled', preparing: 'canceled', pending: 'canceled',
    running: 'canceled', manual: 'canceled', scheduled: 'canceled',
  },
};

describe('jobTransition', () => {
  for (const event of JOB_EVENTS) {
    for (const from of STATUSES) {
      const expected = PLAIN[event][from] ?? null;
      test(`${event} from ${from} → ${expected}`, () => assert.equal(jobTransition(from, event), expected));
    }
  }

  test('enqueue waits for the resource when the job has a resource group', () => {
    for (const from of ['created', 'skipped', 'manual', 'scheduled'] as const) {
      assert.equal(jobTransition(from, 'enqueue', { resourceGroup: true }), 'waiting_for_resource');
    }
    assert.equal(jobTransition('scheduled', 'enqueue_scheduled', { resourceGroup: true }), 'waiting_for_resource');
    assert.equal(jobTransition('running', 'enqueue', { resourceGroup: true }), null);
  });

  test('enqueue prepares when prerequisites are unmet; the resource group comes first', () => {
    assert.equal(jobTransition('created', 'enqueue', { unmetPrerequisites: true }), 'preparing');
    assert.equal(jobTransition('created', 'enqueue', { unmetPrerequisites: true, resourceGroup: true }), 'waiting_for_resource');
    assert.equal(jobTransition('waiting_for_resource', 'enqueue_waiting_for_resource', { unmetPrerequisites: true }), 'preparing');
    assert.equal(jobTransition('preparing', 'enqueue_preparing', { unmetPrerequisites: true }), null);
    assert.equal(jobTransition('scheduled', 'enqueue_scheduled', { unmetPrerequisites: true }), 'preparing');
  });
});

describe('jobTransitionTimestamps', () => {
  const now = new Date('2021-10-01T12:00:00.000Z');
  const cases: [Status, Status, object][] = [
    ['created', 'pending', { queuedAt: now }],
    ['waiting_for_resource', 'pending', { queuedAt: now }],
    ['preparing', 'pending', { queuedAt: now }],
    ['skipped', 'pending', { queuedAt: now }],
    ['manual', 'pending', { queuedAt: now }],
    ['scheduled', 'pending', { queuedAt: now, scheduledAt: null }],
    ['pending', 'running', { startedAt: now }],
    ['created', 'running', { startedAt: now }],
    ['preparing', 'running', { startedAt: now }],
    ['running', 'success', { finishedAt: now }],
    ['running', 'failed', { finishedAt: now }],
    ['pending', 'canceled', { finishedAt: now }],
    ['scheduled', 'canceled', { finishedAt: now, scheduledAt: null }],
    ['scheduled', 'manual', { scheduledAt: null }],
    ['created', 'waiting_for_resource', { waitingForResourceAt: now }],
    ['created', 'skipped', {}],
    ['created', 'manual', {}],
    ['skipped', 'created', {}],
    ['pending', 'pending', {}],
  ];
  for (const [from, to, expected] of cases) {
    test(`${from} → ${to}`, () => assert.deepEqual(jobTransitionTimestamps(from, to, now), expected));
  }
  test('created → scheduled sets scheduled_at from start_in', () => {
    const at = new Date(now.getTime() + 60_000);
    assert.deepEqual(jobTransitionTimestamps('created', 'scheduled', now, at), { scheduledAt: at });
  });
  test('durations', () => {
    const started = new Date(now.getTime() - 90_500);
    assert.equal(jobDuration({ startedAt: null, finishedAt: null }, now), null);
    assert.equal(jobDuration({ startedAt: started, finishedAt: null }, now), 90.5);
    assert.equal(jobDuration({ startedAt: started, finishedAt: new Date(started.getTime() + 2000) }, now), 2);
    assert.equal(jobQueuedDuration({ queuedAt: null, startedAt: null }, now), null);
    assert.equal(jobQueuedDuration({ queuedAt: started, startedAt: null }, now), 90.5);
    assert.equal(jobQueuedDuration({ queuedAt: started, startedAt: new Date(started.getTime() + 500) }, now), 0.5);
  });
});

describe('pipeline set_status', () => {
  const table: [Status, Status, Status | null][] = [
    ['created', 'created', null],
    ['created', 'pending', 'pending'],
    ['pending', 'pending', null],
    ['manual', 'pending', 'pending'],
    ['scheduled', 'pending', 'pending'],
    ['skipped', 'pending', 'pending'],
    ['success', 'pending', 'running'],
    ['failed', 'pending', 'running'],
    ['canceled', 'pending', 'running'],
    ['running', 'pending', null],
    ['pending', 'running', 'running'],
    ['running', 'running', null],
    ['running', 'success', 'success'],
    ['running', 'failed', 'failed'],
    ['running', 'canceled', 'canceled'],
    ['created', 'skipped', 'skipped'],
    ['running', 'manual', 'manual'],
    ['running', 'scheduled', 'scheduled'],
    ['pending', 'waiting_for_resource', 'waiting_for_resource'],
    ['pending', 'preparing', 'preparing'],
    ['success', 'success', null],
  ];
  for (const [current, composite, to] of table) {
    test(`${current} with composite ${composite} → ${to}`, () => {
      assert.equal(setPipelineStatus(current, composite)?.to ?? null, to);
    });
  }
  test('events and effects', () => {
    assert.deepEqual(setPipelineStatus('running', 'manual'), { from: 'running', to: 'manual', event: 'block' });
    assert.equal(pipelineTransition('running', 'delay'), 'scheduled');
    assert.deepEqual(pipelineTransitionEffects('pending', 'running'), {
      setStartedAt: true, setFinishedAt: false, updateDuration: false, clearAutoCanceledBy: false,
    });
    assert.deepEqual(pipelineTransitionEffects('success', 'running'), {
      setStartedAt: false, setFinishedAt: false, updateDuration: false, clearAutoCanceledBy: false,
    });
    assert.deepEqual(pipelineTransitionEffects('running', 'failed'), {
      setStartedAt: false, setFinishedAt: true, updateDuration: true, clearAutoCanceledBy: false,
    });
    assert.deepEqual(pipelineTransitionEffects('running', 'manual'), {
      setStartedAt: false, setFinishedAt: false, updateDuration: true, clearAutoCanceledBy: false,
    });
    assert.deepEqual(pipelineTransitionEffects('canceled', 'running'), {
      setStartedAt: false, setFinishedAt: false, updateDuration: false, clearAutoCanceledBy: true,
    });
  });
});
