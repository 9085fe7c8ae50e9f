// The Bridge entity's downstream pipeline (notes gitlab-ci.md §4.3): a child pipeline is shown under
// the bridge's project, a multi-project one under the other project, whose page it is.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BridgeEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { PipelineBasicEntity } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { BASE_URL, type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../matchers.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
});
after(() => t.close());

test('a multi-project bridge carries the web_url of the other project\'s pipeline; a child bridge its own project\'s', async () => {
  const upstream = await ciProject(t);
  const other = await ciProject(t);
  await other.commitConfig('there:\n  script: [x]\n');
  await t.post(`/api/v4/projects/${other.projectId}/members`, { token: other.owner.token, body: { user_id: upstream.owner.user.id, access_level: 30 } });
  const path = async (id: number, token: string) => (await t.get(`/api/v4/projects/${id}`, { token })).json().path_with_namespace as string;
  const upstreamPath = await path(upstream.projectId, upstream.owner.token);
  const otherPath = await path(other.projectId, other.owner.token);
  expectStatus(
    await t.post(`/api/v4/projects/${upstream.projectId}/repository/files/child.yml`, { token: upstream.owner.token, body: { branch: 'main', commit_message: 'child', content: 'inner:\n  script: [x]\n' } }),
    201,
  );
  await t.runJobs();
  await upstream.commitConfig(`child:\n  trigger:\n    include: child.yml\nmulti:\n  trigger:\n    project: ${otherPath}\n`);

  const parent = (await t.get(`/api/v4/projects/${upstream.projectId}/pipelines`, { token: upstream.owner.token, query: { source: 'push' } })).json()[0];
  const res = await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/${parent.id}/bridges`, { token: upstream.owner.token });
  expectStatus(res, 200);
  expectEntities(res.json(), BridgeEntity);
  const bridges = new Map(res.json().map((b: { name: string }) => [b.name, b]));
  const multi = bridges.get('multi') as { pipeline: { web_url: string }; downstream_pipeline: Record<string, unknown> };
  const child = bridges.get('child') as { downstream_pipeline: Record<string, unknown> };

  const [there] = (await t.get(`/api/v4/projects/${other.projectId}/pipelines`, { token: other.owner.token })).json();
  expectEntity(multi.downstream_pipeline, PipelineBasicEntity);
  assert.deepEqual(multi.downstream_pipeline, there);
  assert.equal(multi.downstream_pipeline.project_id, other.projectId);
  assert.equal(multi.downstream_pipeline.web_url, `${BASE_URL}/${otherPath}/-/pipelines/${there.id}`);
  // The bridge's own pipeline stays under its project.
  assert.equal(multi.pipeline.web_url, `${BASE_URL}/${upstreamPath}/-/pipelines/${parent.id}`);

  const shown = (await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/${child.downstream_pipeline.id}`, { token: upstream.owner.token })).json();
  assert.equal(shown.source, 'parent_pipeline');
  assert.equal(child.downstream_pipeline.project_id, upstream.projectId);
  assert.equal(child.downstream_pipeline.web_url, `${BASE_URL}/${upstreamPath}/-/pipelines/${shown.id}`);
  assert.equal(child.downstream_pipeline.web_url, shown.web_url);

  // A pipeline of another project, or none, is not found here.
  expectStatus(await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/${there.id}/bridges`, { token: upstream.owner.token }), 404);
  expectStatus(await t.get(`/api/v4/projects/${upstream.projectId}/pipelines/999999/bridges`, { token: upstream.owner.token }), 404);
});
