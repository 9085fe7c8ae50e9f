// Reported states as job transitions: a new status reaches any state, a live one moves on or is
// refused in the platform's words, with the timestamps each transition sets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMIT_STATUS_STATES, commitStatusChange } from './commit-status.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');

test('a new status reaches every state, with its times and the failure reason', () => {
  assert.deepEqual(commitStatusChange('created', 'pending', NOW), { to: 'pending', timestamps: { queuedAt: NOW }, failureReason: null });
  assert.deepEqual(commitStatusChange('created', 'running', NOW), { to: 'running', timestamps: { queuedAt: NOW, startedAt: NOW }, failureReason: null });
  assert.deepEqual(commitStatusChange('created', 'success', NOW), { to: 'success', timestamps: { finishedAt: NOW }, failureReason: null });
  assert.deepEqual(commitStatusChange('created', 'failed', NOW), { to: 'failed', timestamps: { finishedAt: NOW }, failureReason: 'api_failure' });
  assert.deepEqual(commitStatusChange('created', 'canceled', NOW), { to: 'canceled', timestamps: { finishedAt: NOW }, failureReason: null });
});

test('a pending status runs or finishes; pending again is refused', () => {
  assert.deepEqual(commitStatusChange('pending', 'running', NOW), { to: 'running', timestamps: { startedAt: NOW }, failureReason: null });
  for (const state of ['success', 'failed', 'canceled'] as const) assert.equal((commitStatusChange('pending', state, NOW) as { to: string }).to, state);
  assert.deepEqual(commitStatusChange('pending', 'pending', NOW), {
    refused: 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")',
  });
});

test('a running status finishes; pending and running again are refused', () => {
  for (const state of ['success', 'failed', 'canceled'] as const) {
    assert.deepEqual(commitStatusChange('running', state, NOW), { to: state, timestamps: { finishedAt: NOW }, failureReason: state === 'failed' ? 'api_failure' : null });
  }
  assert.deepEqual(commitStatusChange('running', 'running', NOW), {
    refused: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")',
  });
  assert.deepEqual(commitStatusChange('running', 'pending', NOW), {
    refused: 'Cannot transition status via :enqueue from :running (Reason(s): Status cannot transition via "enqueue")',
  });
});

test('a finished status moves no further', () => {
  for (const from of ['success', 'failed', 'canceled'] as const) {
    for (const state of COMMIT_STATUS_STATES) assert.ok('refused' in commitStatusChange(from, state, NOW), `${from} → ${state}`);
  }
});
