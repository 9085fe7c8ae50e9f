// Pipeline duration (union of running intervals), queued duration and coverage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TimedJob, formatTwoDecimals, pipelineCoverage, pipelineDuration, pipelineQueuedDuration } from './pipeline-metrics.ts';
import { type Status } from './status.ts';

const T0 = Date.parse('2021-10-01T12:00:00.000Z');
const t = (s: number) => new Date(T0 + s * 1000);
const timed = (status: Status, start: number | null, end: number | null, extra: Partial<TimedJob> = {}): TimedJob => ({
  retried: false, status, startedAt: start === null ? null : t(start), finishedAt: end === null ? null : t(end), ...extra,
});

describe('pipelineDuration', () => {
  const now = t(100);
  const cases: [string, TimedJob[], number][] = [
    ['no jobs', [], 0],
    ['the platform example: (1,3) (2,4) (6,7) → 4', [timed('success', 1, 3), timed('success', 2, 4), timed('success', 6, 7)], 4],
    ['unsorted input', [timed('success', 6, 7), timed('failed', 2, 4), timed('canceled', 1, 3)], 4],
    ['a period inside another', [timed('success', 0, 10), timed('success', 2, 3)], 10],
    ['touching periods merge', [timed('success', 0, 5), timed('success', 5, 8)], 8],
    ['a running job runs to now', [timed('running', 90, null)], 10],
    ['pending, skipped and manual jobs do not count', [timed('pending', 1, null), timed('skipped', 1, 50), timed('manual', 1, 50)], 0],
    ['jobs never started do not count', [timed('failed', null, 5)], 0],
    ['retried jobs do not count', [timed('success', 0, 50, { retried: true }), timed('success', 60, 70)], 10],
    ['fractions are truncated', [timed('success', 0, 2.9)], 2],
  ];
  for (const [name, jobs, seconds] of cases) test(name, () => assert.equal(pipelineDuration(jobs, now), seconds));
});

test('pipelineQueuedDuration', () => {
  assert.equal(pipelineQueuedDuration({ createdAt: t(0), startedAt: null }), null);
  assert.equal(pipelineQueuedDuration({ createdAt: t(0), startedAt: t(0.9) }), null);
  assert.equal(pipelineQueuedDuration({ createdAt: t(0), startedAt: t(12.7) }), 12);
});

describe('pipelineCoverage', () => {
  test('averages latest jobs with coverage', () => {
    assert.equal(pipelineCoverage([]), null);
    assert.equal(pipelineCoverage([timed('success', 0, 1, { coverage: null }), timed('success', 0, 1)]), null);
    assert.equal(pipelineCoverage([timed('success', 0, 1, { coverage: 30 })]), '30.00');
    assert.equal(pipelineCoverage([timed('success', 0, 1, { coverage: 50 }), timed('failed', 0, 1, { coverage: 25 }), timed('success', 0, 1, { coverage: null })]), '37.50');
    assert.equal(pipelineCoverage([timed('success', 0, 1, { coverage: 10, retried: true }), timed('success', 0, 1, { coverage: 20 })]), '20.00');
    assert.equal(pipelineCoverage([timed('success', 0, 1, { coverage: 1 }), timed('success', 0, 1, { coverage: 2 }), timed('success', 0, 1, { coverage: 2 })]), '1.67');
  });
  test("'%.2f' rounds exact ties to even as C does", () => {
    const cases: [number, string][] = [
      [0.125, '0.12'], [0.375, '0.38'], [0.625, '0.62'], [0.875, '0.88'], [1.005, '1.00'], [2.675, '2.67'],
      [99.995, '100.00'], [-0.125, '-0.12'], [33.333333, '33.33'], [0, '0.00'], [100, '100.00'],
    ];
    for (const [value, text] of cases) assert.equal(formatTwoDecimals(value), text, String(value));
  });
});
