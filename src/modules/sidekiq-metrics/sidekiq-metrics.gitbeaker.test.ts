// A real client against a listening server: @gitbeaker/rest reads the Sidekiq metrics; the
// Community Edition's missing license API answers its License.show with 404.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { CompoundMetricsResponse, JobStatsResponse, ProcessMetricsResponse, QueueMetricsResponse } from './sidekiq-metrics.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: SidekiqMetrics, and License on the Community Edition', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  expectEntity(await api.SidekiqMetrics.queueMetrics(), QueueMetricsResponse);
  const processes = await api.SidekiqMetrics.processMetrics();
  expectEntity(processes, ProcessMetricsResponse);
  assert.equal(processes.processes?.[0]?.pid, process.pid);
  const stats = await api.SidekiqMetrics.jobStats();
  expectEntity(stats, JobStatsResponse);
  expectEntity(await api.SidekiqMetrics.compoundMetrics(), CompoundMetricsResponse);
  assert.deepEqual(await failureOf(api.License.show()), { status: 404, body: '404 Not Found' });
});
