// GET /job/allowed_agents (notes gitlab-ci.md §5): what a cluster agent checks of a job, for the
// job's own token (header or query) while it runs. No agents (Quarry has none), the job and its
// pipeline, the project with its group and the group's ancestors, the user with the roles of their
// access to the project, and the job's environment with its tier and slug. Like GET /job: 401
// without credentials or with a token of a job that no longer runs, 404 for other credentials.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { environmentSlug } from '../../src/ci/slug.ts';
import { AllowedAgentsEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';

const CONFIG = `
review:
  script: [deploy]
  environment:
    name: review/$CI_COMMIT_REF_NAME
ship:
  script: [deploy]
  environment:
    name: production
    deployment_tier: staging
plain:
  script: [test]
`;

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let root: number;
let sub: number;
let projectId: number;
let runner: string;

type Payload = { id: number; token: string; job_info: { name: string } };

/** Takes every pending job, by name. */
async function takeAll(): Promise<Map<string, Payload>> {
  const jobs = new Map<string, Payload>();
  for (;;) {
    const res = await t.post('/api/v4/jobs/request', { body: { token: runner } });
    if (res.statusCode === 204) return jobs;
    expectStatus(res, 201);
    jobs.set(res.json().job_info.name, res.json());
  }
}

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  owner = await t.user();
  developer = await t.user();
  const group = await t.post('/api/v4/groups', { token: owner.token, body: { name: 'Platform', path: `platform-${Date.now()}` } });
  expectStatus(group, 201);
  root = group.json().id;
  const subgroup = await t.post('/api/v4/groups', { token: owner.token, body: { name: 'Deploy', path: 'deploy', parent_id: root } });
  expectStatus(subgroup, 201);
  sub = subgroup.json().id;
  const project = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Service', namespace_id: sub, initialize_with_readme: true } });
  expectStatus(project, 201);
  projectId = project.json().id;
  await t.runJobs();
  expectStatus(await t.post(`/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: developer.user.id, access_level: 30 } }), 201);
  const commit = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CONFIG }] },
  });
  expectStatus(commit, 201);
  const runnersToken = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json().runners_token;
  runner = (await t.post('/api/v4/runners', { body: { token: runnersToken } })).json().token;
  await t.runJobs();
  await takeAll(); // the push's pipeline, run by the owner
});
after(() => t.close());

test("a developer's job: no agents, the project's groups root first, the developer's roles, the environment's tier and slug", async () => {
  expectStatus(await t.post(`/api/v4/projects/${projectId}/repository/branches`, { token: owner.token, query: { branch: 'feature', ref: 'main' } }), 201);
  await t.runJobs();
  await takeAll();
  const pipeline = await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: developer.token, body: { ref: 'feature' } });
  expectStatus(pipeline, 201);
  await t.runJobs();
  const jobs = await takeAll();
  const review = jobs.get('review') as Payload;

  const res = await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': review.token } });
  expectStatus(res, 200);
  expectEntity(res.json(), AllowedAgentsEntity);
  assert.deepEqual(Object.keys(res.json()), ['allowed_agents', 'job', 'pipeline', 'project', 'user', 'environment']);
  assert.deepEqual(res.json(), {
    allowed_agents: [],
    job: { id: review.id },
    pipeline: { id: pipeline.json().id },
    project: { id: projectId, groups: [{ id: root }, { id: sub }] },
    user: { id: developer.user.id, username: developer.user.username, roles_in_project: ['guest', 'reporter', 'developer'] },
    environment: { tier: 'development', slug: environmentSlug('review/feature') },
  });
  assert.match(res.json().environment.slug, /^review-feature-[a-z0-9]{6}$/);

  // The declared tier wins over the name; a job without an environment has none; the query parameter works too.
  const ship = await t.get('/api/v4/job/allowed_agents', { query: { job_token: (jobs.get('ship') as Payload).token } });
  expectStatus(ship, 200);
  assert.deepEqual(ship.json().environment, { tier: 'staging', slug: 'production' });
  const plain = await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': (jobs.get('plain') as Payload).token } });
  expectStatus(plain, 200);
  expectEntity(plain.json(), AllowedAgentsEntity);
  assert.equal('environment' in plain.json(), false);
});

test("the group's owner has every role; a project of a user has no groups", async () => {
  await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: owner.token, body: { ref: 'main' } });
  await t.runJobs();
  const jobs = await takeAll();
  const res = await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': (jobs.get('plain') as Payload).token } });
  expectStatus(res, 200);
  assert.deepEqual(res.json().user.roles_in_project, ['guest', 'reporter', 'developer', 'maintainer', 'owner']);

  const personal = await t.post('/api/v4/projects', { token: developer.token, body: { name: 'Mine', initialize_with_readme: true } });
  expectStatus(personal, 201);
  await t.runJobs();
  await t.post(`/api/v4/projects/${personal.json().id}/repository/commits`, {
    token: developer.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'only:\n  script: [x]\n' }] },
  });
  await t.runJobs();
  const token = (await t.get(`/api/v4/projects/${personal.json().id}`, { token: developer.token })).json().runners_token;
  const own = (await t.post('/api/v4/runners', { body: { token } })).json().token;
  const job = (await t.post('/api/v4/jobs/request', { body: { token: own } })).json();
  const mine = await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': job.token } });
  expectStatus(mine, 200);
  expectEntity(mine.json(), AllowedAgentsEntity);
  assert.deepEqual(mine.json().project, { id: personal.json().id, groups: [] });
  assert.deepEqual(mine.json().user.roles_in_project, ['guest', 'reporter', 'developer', 'maintainer', 'owner']);
});

test('who may call: a running job only, by its token; 401 without one or for a finished job, 404 for other credentials', async () => {
  await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: owner.token, body: { ref: 'main' } });
  await t.runJobs();
  const job = (await takeAll()).get('plain') as Payload;
  expectError(await t.get('/api/v4/job/allowed_agents'), 401, { message: '401 Unauthorized' });
  expectError(await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': 'glcbt-not-a-job' } }), 401, { message: '401 Unauthorized' });
  expectError(await t.get('/api/v4/job/allowed_agents', { token: owner.token }), 404, { message: '404 Job Not Found' });
  expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } }), 200);
  expectError(await t.get('/api/v4/job/allowed_agents', { headers: { 'job-token': job.token } }), 401, { message: '401 Unauthorized' });
});
