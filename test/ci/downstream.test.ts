// Bridges: a child pipeline from `trigger:include` and a multi-project pipeline from
// `trigger:project`, the bridge succeeding at once or, with `strategy: depend`, mirroring the
// downstream pipeline; the Bridge entity with its downstream pipeline.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectStatus } from '../matchers.ts';
import { BridgeEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
});
after(() => t.close());

test('a child pipeline runs the included files; a depending bridge mirrors it', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  const child = await t.post(`/api/v4/projects/${ci.projectId}/repository/files/child.yml`, {
    token: ci.owner.token,
    body: { branch: 'main', commit_message: 'child', content: 'inner:\n  script: [echo inner]\n' },
  });
  expectStatus(child, 201);
  await t.runJobs();
  await ci.commitConfig('stages: [build, after]\nkick:\n  stage: build\n  variables:\n    FROM_PARENT: "yes"\n  trigger:\n    include: child.yml\n    strategy: depend\nlast:\n  stage: after\n  script: [x]\n');
  const [downstream, parent] = await ci.pipelines();
  assert.equal(parent.status, 'running');
  const bridges = await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${parent.id}/bridges`, { token: ci.owner.token });
  expectStatus(bridges, 200);
  expectEntities(bridges.json(), BridgeEntity);
  assert.equal(bridges.json()[0].status, 'running');
  assert.equal(bridges.json()[0].downstream_pipeline.id, downstream.id);
  const detail = (await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${downstream.id}`, { token: ci.owner.token })).json();
  assert.equal(detail.source, 'parent_pipeline');

  const inner = await ci.takeJob(runner);
  assert.equal(inner?.job_info.name, 'inner');
  const vars = new Map((inner?.variables as { key: string; value: string }[]).map((v) => [v.key, v.value]));
  assert.equal(vars.get('FROM_PARENT'), 'yes');
  assert.equal(vars.get('CI_PIPELINE_SOURCE'), 'parent_pipeline');
  await ci.finishJob(inner as { id: number; token: string }, 'success');
  await t.runJobs();
  assert.equal((await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${parent.id}/bridges`, { token: ci.owner.token })).json()[0].status, 'success');
  const last = await ci.takeJob(runner);
  assert.equal(last?.job_info.name, 'last');
});

test('a multi-project bridge makes a pipeline in the other project, or fails without the rights', async () => {
  const upstream = await ciProject(t);
  const other = await ciProject(t);
  await other.commitConfig('there:\n  script: [x]\n');
  const otherPath = (await t.get(`/api/v4/projects/${other.projectId}`, { token: other.owner.token })).json().path_with_namespace;
  await upstream.commitConfig(`go:\n  trigger: ${otherPath}\n`);
  let [pipeline] = await upstream.pipelines();
  let bridge = (await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/${pipeline.id}/bridges`, { token: upstream.owner.token })).json()[0];
  assert.equal(bridge.status, 'failed'); // the upstream owner is no member of the other project

  await t.post(`/api/v4/projects/${other.projectId}/members`, { token: other.owner.token, body: { user_id: upstream.owner.user.id, access_level: 30 } });
  await upstream.commitConfig(`go:\n  trigger:\n    project: ${otherPath}\n`, 'again');
  [pipeline] = await upstream.pipelines();
  bridge = (await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/${pipeline.id}/bridges`, { token: upstream.owner.token })).json()[0];
  assert.equal(bridge.status, 'success');
  assert.equal(pipeline.status, 'success');
  const [downstream] = await other.pipelines();
  assert.equal(bridge.downstream_pipeline.id, downstream.id);
  assert.equal((await t.get(`/api/v4/projects/${other.projectId}/pipelines/${downstream.id}`, { token: other.owner.token })).json().source, 'pipeline');
});

test('include:artifact: only for child pipelines; a parent job without such an archive fails the bridge', async () => {
  const ci = await ciProject(t);
  const topLevel = await t.post(`/api/v4/projects/${ci.projectId}/ci/lint`, {
    token: ci.owner.token,
    body: { content: 'include:\n  - artifact: generated.yml\n    job: gen\nx:\n  script: [x]\n' },
  });
  expectStatus(topLevel, 200);
  assert.deepEqual(topLevel.json().errors, ['Including configs from artifacts is only allowed when triggering child pipelines']);

  await ci.commitConfig('gen:\n  stage: build\n  script: [x]\nkick:\n  stage: test\n  trigger:\n    include:\n      - artifact: generated.yml\n        job: gen\n');
  const runner = await ci.registerRunner();
  const gen = await ci.takeJob(runner);
  assert.equal(gen?.job_info.name, 'gen');
  await ci.finishJob(gen as { id: number; token: string }, 'success');
  await t.runJobs();
  const [pipeline] = await ci.pipelines();
  const bridge = (await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${pipeline.id}/bridges`, { token: ci.owner.token })).json()[0];
  assert.equal(bridge.status, 'failed');
  assert.equal(bridge.downstream_pipeline, null);
  const row = await t.deps.db.selectFrom('ci_builds').select('failure_reason').where('id', '=', bridge.id).executeTakeFirstOrThrow();
  assert.equal(row.failure_reason, 'downstream_pipeline_creation_failed');
});
