// The runners API (14.x `lib/api/ci/runners.rb`): who sees and changes which runner (administrators
// every one; others the runners of the projects they maintain and the groups they own), the
// entities, the filters, enabling and disabling runners on projects with the platform's 403s, a
// runner's jobs, and the registration token resets (the old token stops registering, runners
// registered before keep working).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ACCESS } from '../../src/core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.ts';
import { JobBasicWithProjectEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { ResetTokenEntity, RunnerDetailsEntity, RunnerEntity } from '../../src/modules/runners/runners.schemas.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { createGroup, createProject, personalNamespace } from '../factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';

let t: TestApp;
let alice: TestUser; // owns p1, p2 and the group
let bob: TestUser; // developer of p1
let carol: TestUser; // no member of anything
let p1: ProjectRow;
let p2: ProjectRow;
let group: NamespaceRow;
let world: MatrixWorld;

interface Registered {
  id: number;
  token: string;
}

async function register(token: string, body: Record<string, unknown> = {}): Promise<Registered> {
  const res = await t.post('/api/v4/runners', { body: { token, ...body } });
  expectStatus(res, 201);
  return res.json();
}

async function resetToken(path: string, token: string): Promise<string> {
  const res = await t.post(`/api/v4${path}/reset_registration_token`, { token });
  expectStatus(res, 201);
  expectEntity(res.json(), ResetTokenEntity);
  return res.json().token;
}

const ids = (body: { id: number }[]) => body.map((r) => r.id);

let projectRunner: Registered;
let groupRunner: Registered;
let instanceRunner: Registered;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  alice = await t.user();
  bob = await t.user();
  carol = await t.user();
  const ns = await personalNamespace(t, alice.user.id);
  p1 = await createProject(t, { path: 'runners-one', namespace: ns, creatorId: alice.user.id, members: [[bob.user.id, ACCESS.DEVELOPER]] });
  p2 = await createProject(t, { path: 'runners-two', namespace: ns, creatorId: alice.user.id });
  group = await createGroup(t, { path: 'runner-group', members: [[alice.user.id, ACCESS.OWNER], [bob.user.id, ACCESS.MAINTAINER]] });
  projectRunner = await register(await resetToken(`/projects/${p1.id}/runners`, alice.token), { description: 'project runner', tag_list: 'linux,docker' });
  groupRunner = await register(await resetToken(`/groups/${group.id}/runners`, alice.token), { description: 'group runner', tag_list: 'linux' });
  instanceRunner = await register(await resetToken('/runners', ROOT_TOKEN), { description: 'instance runner', paused: true });
  world = await buildMatrixWorld(t, 'runners');
});
after(() => t.close());

describe('GET /runners and /runners/all', () => {
  test("a user's runners: those of the projects they maintain and the groups they own", async () => {
    const res = await t.get('/api/v4/runners', { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), RunnerEntity);
    assert.deepEqual(ids(res.json()), [projectRunner.id, groupRunner.id]);
    const first = res.json()[0];
    assert.equal(first.description, 'project runner');
    assert.equal(first.is_shared, false);
    assert.equal(first.runner_type, 'project_type');
    assert.equal(first.active, true);
    assert.equal(first.online, true);
    assert.equal(first.status, 'online');
    assert.equal(res.headers['x-total'], '2');
    // A developer of the project and a maintainer (not owner) of the group own none.
    assert.deepEqual((await t.get('/api/v4/runners', { token: bob.token })).json(), []);
    expectError(await t.get('/api/v4/runners'), 401, { message: '401 Unauthorized' });
  });

  test('filters: scope (statuses only), type, status, tag_list', async () => {
    const list = async (query: Record<string, string>) => ids((await t.get('/api/v4/runners', { token: alice.token, query })).json());
    assert.deepEqual(await list({ type: 'group_type' }), [groupRunner.id]);
    assert.deepEqual(await list({ status: 'online' }), [projectRunner.id, groupRunner.id]);
    assert.deepEqual(await list({ scope: 'paused' }), []);
    assert.deepEqual(await list({ tag_list: 'docker' }), [projectRunner.id]);
    assert.deepEqual(await list({ tag_list: 'linux,DOCKER' }), [projectRunner.id]);
    assert.deepEqual(await list({ tag_list: 'linux' }), [projectRunner.id, groupRunner.id]);
    expectError(await t.get('/api/v4/runners', { token: alice.token, query: { scope: 'shared' } }), 400, { error: 'scope does not have a valid value' });
    expectError(await t.get('/api/v4/runners', { token: alice.token, query: { type: 'shared' } }), 400, { error: 'type does not have a valid value' });
  });

  test('every runner, for administrators only; the legacy scopes shared and specific', async () => {
    const all = await t.get('/api/v4/runners/all', { token: ROOT_TOKEN });
    expectStatus(all, 200);
    expectEntities(all.json(), RunnerEntity);
    assert.deepEqual(ids(all.json()).slice(0, 3), [projectRunner.id, groupRunner.id, instanceRunner.id]);
    const shared = (await t.get('/api/v4/runners/all', { token: ROOT_TOKEN, query: { scope: 'shared' } })).json();
    assert.deepEqual(ids(shared), [instanceRunner.id]);
    assert.equal(shared[0].is_shared, true);
    assert.equal(shared[0].status, 'paused');
    const specific = ids((await t.get('/api/v4/runners/all', { token: ROOT_TOKEN, query: { scope: 'specific' } })).json());
    assert.deepEqual(specific, [projectRunner.id, groupRunner.id]);
    assert.deepEqual(ids((await t.get('/api/v4/runners/all', { token: ROOT_TOKEN, query: { status: 'paused' } })).json()), [instanceRunner.id]);
    expectError(await t.get('/api/v4/runners/all', { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/runners/all'), 401, { message: '401 Unauthorized' });
  });

  test('a runner never contacted is not_connected, and offline as 14.x counts it', async () => {
    await t.deps.db.updateTable('ci_runners').set({ contacted_at: null }).where('id', '=', groupRunner.id).execute();
    const shown = (await t.get(`/api/v4/runners/${groupRunner.id}`, { token: alice.token })).json();
    assert.equal(shown.status, 'not_connected');
    assert.equal(shown.online, false);
    const list = async (query: Record<string, string>) => ids((await t.get('/api/v4/runners', { token: alice.token, query })).json());
    assert.deepEqual(await list({ status: 'not_connected' }), [groupRunner.id]);
    assert.deepEqual(await list({ status: 'offline' }), [groupRunner.id]);
    await t.deps.db.updateTable('ci_runners').set({ contacted_at: new Date().toISOString() }).where('id', '=', groupRunner.id).execute();
  });
});

describe('GET, PUT, DELETE /runners/:id', () => {
  test('details with the projects and groups the caller sees', async () => {
    const res = await t.get(`/api/v4/runners/${projectRunner.id}`, { token: alice.token });
    expectStatus(res, 200);
    expectEntity(res.json(), RunnerDetailsEntity);
    const body = res.json();
    assert.deepEqual(body.tag_list, ['docker', 'linux']);
    assert.equal(body.run_untagged, true);
    assert.equal(body.locked, false);
    assert.equal(body.access_level, 'not_protected');
    assert.equal(body.maximum_timeout, null);
    assert.deepEqual(ids(body.projects), [p1.id]);
    assert.equal(body.projects[0].path_with_namespace, p1.full_path);
    assert.deepEqual(body.groups, []);
    const grouped = (await t.get(`/api/v4/runners/${groupRunner.id}`, { token: alice.token })).json();
    assert.deepEqual(grouped.groups, [{ id: group.id, web_url: `http://quarry.test/groups/${group.full_path}`, name: group.name }]);
  });

  test('an instance runner is shown to every signed-in user; others only to their owners and administrators', async () => {
    expectStatus(await t.get(`/api/v4/runners/${instanceRunner.id}`, { token: carol.token }), 200);
    expectError(await t.get(`/api/v4/runners/${projectRunner.id}`, { token: carol.token }), 403, { message: '403 Forbidden - No access granted' });
    expectError(await t.get(`/api/v4/runners/${projectRunner.id}`, { token: bob.token }), 403, { message: '403 Forbidden - No access granted' });
    const admin = (await t.get(`/api/v4/runners/${projectRunner.id}`, { token: ROOT_TOKEN })).json();
    assert.deepEqual(ids(admin.projects), [p1.id]);
    expectError(await t.get('/api/v4/runners/999999', { token: alice.token }), 404, { message: '404 Runner Not Found' });
    expectError(await t.get(`/api/v4/runners/${instanceRunner.id}`), 401, { message: '401 Unauthorized' });
  });

  test('owners change a runner; the model refuses what 14.x refuses', async () => {
    const res = await t.put(`/api/v4/runners/${projectRunner.id}`, {
      token: alice.token,
      body: { description: 'renamed', tag_list: 'a, b,a', active: false, locked: true, access_level: 'ref_protected', maximum_timeout: 3600 },
    });
    expectStatus(res, 200);
    expectEntity(res.json(), RunnerDetailsEntity);
    const body = res.json();
    assert.equal(body.description, 'renamed');
    assert.deepEqual(body.tag_list, ['a', 'b']);
    assert.equal(body.active, false);
    assert.equal(body.status, 'paused');
    assert.equal(body.locked, true);
    assert.equal(body.access_level, 'ref_protected');
    assert.equal(body.maximum_timeout, 3600);
    expectError(await t.put(`/api/v4/runners/${projectRunner.id}`, { token: alice.token, body: { maximum_timeout: 100 } }), 400, {
      message: { maximum_timeout: ['needs to be at least 10 minutes'] },
    });
    expectError(await t.put(`/api/v4/runners/${projectRunner.id}`, { token: alice.token, body: { tag_list: [], run_untagged: false } }), 400, {
      message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] },
    });
    expectStatus(await t.put(`/api/v4/runners/${projectRunner.id}`, { token: alice.token, body: {} }), 400);
    expectError(await t.put(`/api/v4/runners/${projectRunner.id}`, { token: bob.token, body: { description: 'x' } }), 403, { message: '403 Forbidden - No access granted' });
    expectError(await t.put(`/api/v4/runners/${instanceRunner.id}`, { token: alice.token, body: { description: 'x' } }), 403, { message: '403 Forbidden - No access granted' });
    expectStatus(await t.put(`/api/v4/runners/${instanceRunner.id}`, { token: ROOT_TOKEN, body: { description: 'shared one' } }), 200);
    // Back as it was, for the tests below.
    expectStatus(await t.put(`/api/v4/runners/${projectRunner.id}`, { token: alice.token, body: { active: true, locked: false, access_level: 'not_protected' } }), 200);
  });

  test('removal: owners when the runner serves one project, administrators always', async () => {
    const token = await resetToken(`/projects/${p2.id}/runners`, alice.token);
    const spare = await register(token);
    expectError(await t.del(`/api/v4/runners/${spare.id}`, { token: carol.token }), 403, { message: '403 Forbidden - No access granted' });
    expectStatus(await t.post(`/api/v4/projects/${p1.id}/runners`, { token: alice.token, body: { runner_id: spare.id } }), 201);
    expectError(await t.del(`/api/v4/runners/${spare.id}`, { token: alice.token }), 403, { message: '403 Forbidden - Runner associated with more than one project' });
    expectError(await t.del(`/api/v4/runners/${spare.id}`, { token: carol.token }), 403, { message: '403 Forbidden - Runner associated with more than one project' });
    expectStatus(await t.del(`/api/v4/runners/${spare.id}`, { token: ROOT_TOKEN, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } }), 412);
    expectStatus(await t.del(`/api/v4/runners/${spare.id}`, { token: ROOT_TOKEN }), 204);
    expectError(await t.del(`/api/v4/runners/${spare.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Runner Not Found' });
    // The removed runner is refused by the runner protocol.
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: spare.token } }), 403);
    const single = await register(token);
    expectStatus(await t.del(`/api/v4/runners/${single.id}`, { token: alice.token }), 204);
  });
});

describe('a project\'s runners', () => {
  test("the project's, its groups' and the instance's runners, for maintainers", async () => {
    const grouped = await createProject(t, { path: 'in-group', namespace: group });
    const res = await t.get(`/api/v4/projects/${grouped.id}/runners`, { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), RunnerEntity);
    assert.deepEqual(ids(res.json()), [groupRunner.id, instanceRunner.id]);
    assert.deepEqual(ids((await t.get(`/api/v4/projects/${p1.id}/runners`, { token: alice.token, query: { scope: 'specific' } })).json()), [projectRunner.id]);
    assert.deepEqual(ids((await t.get(`/api/v4/projects/${p1.id}/runners`, { token: alice.token, query: { type: 'instance_type' } })).json()), [instanceRunner.id]);
  });

  test('enabling a runner on another project: the platform\'s refusals', async () => {
    const enable = (project: ProjectRow, runnerId: number, token = alice.token) => t.post(`/api/v4/projects/${project.id}/runners`, { token, body: { runner_id: runnerId } });
    const res = await enable(p2, projectRunner.id);
    expectStatus(res, 201);
    expectEntity(res.json(), RunnerEntity);
    assert.equal(res.json().id, projectRunner.id);
    expectError(await enable(p2, projectRunner.id), 400, { message: { assign_to: ['Validation failed: Runner has already been taken'] } });
    expectError(await enable(p2, groupRunner.id), 403, { message: '403 Forbidden - Runner is a group runner' });
    expectError(await enable(p2, groupRunner.id, ROOT_TOKEN), 403, { message: '403 Forbidden - Runner is a group runner' });
    expectError(await enable(p2, instanceRunner.id), 403, { message: '403 Forbidden - No access granted' });
    expectError(await enable(p2, 999999), 404, { message: '404 Runner Not Found' });
    expectError(await enable(p1, projectRunner.id, bob.token), 403, { message: '403 Forbidden' });
    expectError(await t.post(`/api/v4/projects/${p2.id}/runners`, { token: alice.token, body: {} }), 400, { error: 'runner_id is missing' });

    // A locked runner stays on its projects, except for administrators.
    const locked = await register(await resetToken(`/projects/${p1.id}/runners`, alice.token), { locked: true });
    expectError(await enable(p2, locked.id), 403, { message: '403 Forbidden - Runner is locked' });
    expectStatus(await enable(p2, locked.id, ROOT_TOKEN), 201);

    // An administrator enabling an instance runner on a project makes it that project's runner.
    const shared = await register(await resetToken('/runners', ROOT_TOKEN));
    const made = await enable(p2, shared.id, ROOT_TOKEN);
    expectStatus(made, 201);
    assert.equal(made.json().runner_type, 'project_type');
    assert.equal(made.json().is_shared, false);
  });

  test('disabling: never the last project of a runner', async () => {
    const disable = (project: ProjectRow, runnerId: number, token = alice.token) => t.del(`/api/v4/projects/${project.id}/runners/${runnerId}`, { token });
    expectError(await disable(p2, projectRunner.id, bob.token), 404, { message: '404 Project Not Found' });
    expectStatus(await disable(p2, projectRunner.id), 204);
    expectError(await disable(p2, projectRunner.id), 404, { message: '404 Runner Not Found' });
    expectError(await disable(p1, projectRunner.id), 403, { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' });
    expectError(await disable(p1, groupRunner.id), 404, { message: '404 Runner Not Found' });
  });

  test("a group's runners (its own and its parents'), for owners", async () => {
    const child = await createGroup(t, { path: 'child', parent: group });
    const res = await t.get(`/api/v4/groups/${child.id}/runners`, { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), RunnerEntity);
    assert.deepEqual(ids(res.json()), [groupRunner.id]);
    assert.deepEqual((await t.get(`/api/v4/groups/${child.id}/runners`, { token: alice.token, query: { tag_list: 'windows' } })).json(), []);
    expectError(await t.get(`/api/v4/groups/${group.id}/runners`, { token: bob.token }), 403, { message: '403 Forbidden' });
  });
});

describe('registration token resets', () => {
  test("a project's: the old token stops registering, runners registered with it keep working", async () => {
    const old = await resetToken(`/projects/${p1.id}/runners`, alice.token);
    const before = await register(old);
    const fresh = await resetToken(`/projects/${p1.id}/runners`, alice.token);
    assert.notEqual(fresh, old);
    expectStatus(await t.post('/api/v4/runners', { body: { token: old } }), 403);
    expectStatus(await t.post('/api/v4/runners', { body: { token: fresh } }), 201);
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: before.token } }), 200);
    // The project shows its maintainers the new token.
    assert.equal((await t.get(`/api/v4/projects/${p1.id}`, { token: alice.token })).json().runners_token, fresh);
  });

  test("a group's", async () => {
    const old = await resetToken(`/groups/${group.id}/runners`, alice.token);
    const before = await register(old);
    const fresh = await resetToken(`/groups/${group.id}/runners`, alice.token);
    expectStatus(await t.post('/api/v4/runners', { body: { token: old } }), 403);
    expectStatus(await t.post('/api/v4/runners', { body: { token: fresh } }), 201);
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: before.token } }), 200);
    assert.equal((await t.get(`/api/v4/groups/${group.id}`, { token: alice.token })).json().runners_token, fresh);
  });

  test("the instance's, for administrators only", async () => {
    const old = await resetToken('/runners', ROOT_TOKEN);
    const before = await register(old);
    const fresh = await resetToken('/runners', ROOT_TOKEN);
    expectStatus(await t.post('/api/v4/runners', { body: { token: old } }), 403);
    const registered = await register(fresh);
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: before.token } }), 200);
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: registered.token } }), 200);
    expectError(await t.post('/api/v4/runners/reset_registration_token', { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post('/api/v4/runners/reset_registration_token'), 401, { message: '401 Unauthorized' });
  });
});

describe("a runner's jobs", () => {
  test('the jobs a runner took, with their project; status filter and order', async () => {
    const created = await t.post('/api/v4/projects', { token: alice.token, body: { name: 'Runner jobs', initialize_with_readme: true } });
    expectStatus(created, 201);
    const project = created.json();
    await t.runJobs();
    const config = 'one:\n  script: [echo one]\ntwo:\n  script: [echo two]\n';
    expectStatus(
      await t.post(`/api/v4/projects/${project.id}/repository/commits`, {
        token: alice.token,
        body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: config }] },
      }),
      201,
    );
    await t.runJobs();
    const runner = await register(project.runners_token);
    const taken: number[] = [];
    const jobTokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await t.post('/api/v4/jobs/request', { body: { token: runner.token, info: { name: 'gitlab-runner', version: '16.0.0' } } });
      expectStatus(res, 201);
      taken.push(res.json().id);
      jobTokens.push(res.json().token);
    }
    expectStatus(await t.put(`/api/v4/jobs/${taken[0]}`, { body: { token: jobTokens[0], state: 'success' } }), 200);

    const res = await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), JobBasicWithProjectEntity);
    assert.deepEqual(ids(res.json()).sort(), [...taken].sort());
    assert.equal(res.json()[0].project.path_with_namespace, project.path_with_namespace);
    const running = (await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: alice.token, query: { status: 'running' } })).json();
    assert.deepEqual(ids(running), [taken[1]]);
    const asc = (await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: alice.token, query: { order_by: 'id', sort: 'asc' } })).json();
    const desc = (await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: alice.token, query: { order_by: 'id' } })).json();
    assert.deepEqual(ids(asc), ids(desc).reverse());
    expectError(await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: alice.token, query: { status: 'done' } }), 400, { error: 'status does not have a valid value' });
    expectError(await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: carol.token }), 403, { message: '403 Forbidden - No access granted' });
    expectStatus(await t.get(`/api/v4/runners/${runner.id}/jobs`, { token: ROOT_TOKEN }), 200);
    expectError(await t.get('/api/v4/runners/999999/jobs', { token: alice.token }), 404, { message: '404 Runner Not Found' });
  });
});

describe('who may call the project and group routes (roles × visibility)', () => {
  const projectRule = expectation({ success: 200, auth: 'required', minLevel: ACCESS.MAINTAINER });
  const groupRule = expectation({ success: 200, auth: 'required', minLevel: ACCESS.OWNER });

  test('GET /projects/:id/runners', async () => {
    await runMatrix(world, {
      expect: projectRule,
      call: (c) => t.get(`/api/v4/projects/${c.project.id}/runners`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), RunnerEntity),
      errors: refusals('Project'),
    });
  });

  test('POST /projects/:id/runners/reset_registration_token', async () => {
    await runMatrix(world, {
      expect: (role, visibility) => (projectRule(role, visibility) === 200 ? 201 : projectRule(role, visibility)),
      call: (c) => t.post(`/api/v4/projects/${c.project.id}/runners/reset_registration_token`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), ResetTokenEntity),
      errors: refusals('Project'),
    });
  });

  test('GET /groups/:id/runners', async () => {
    await runMatrix(world, {
      expect: groupRule,
      call: (c) => t.get(`/api/v4/groups/${c.group.id}/runners`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), Type.Array(RunnerEntity)),
      errors: refusals('Group'),
    });
  });

  test('POST /groups/:id/runners/reset_registration_token', async () => {
    await runMatrix(world, {
      expect: (role, visibility) => (groupRule(role, visibility) === 200 ? 201 : groupRule(role, visibility)),
      call: (c) => t.post(`/api/v4/groups/${c.group.id}/runners/reset_registration_token`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), ResetTokenEntity),
      errors: refusals('Group'),
    });
  });

  test("GET /runners/:id of a matrix project's runner: its maintainers and owner, and administrators", async () => {
    const project = world.projects.private;
    const token = await resetToken(`/projects/${project.id}/runners`, ROOT_TOKEN);
    const runner = await register(token);
    for (const role of ['anonymous', 'non_member', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'external'] as const) {
      const res = await t.get(`/api/v4/runners/${runner.id}`, { token: world.callers[role].token });
      const want = role === 'anonymous' ? 401 : ['maintainer', 'owner', 'admin'].includes(role) ? 200 : 403;
      assert.equal(res.statusCode, want, `${role}: ${res.body}`);
    }
  });
});
