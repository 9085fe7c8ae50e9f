// Instance defaults come from the application settings: changing a setting changes what new
// projects, groups, users and sessions get, and what applies where a group sets nothing.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { ACCESS } from '../src/core/access/levels.ts';
import { APPLICATION_SETTINGS } from '../src/domain/settings/application-settings.ts';
import { GroupDetailEntity } from '../src/modules/groups/groups.schemas.ts';
import { ProjectEntity } from '../src/modules/projects/projects.schemas.ts';
import { UserAdminEntity } from '../src/modules/users/users.schemas.ts';
import { createGroup, setInstanceSettings } from './factories.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from './harness.ts';
import { expectEntity, expectError, expectStatus } from './matchers.ts';

let t: TestApp;
let alice: TestUser;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  alice = await t.user();
});
afterEach(() => setInstanceSettings(t, APPLICATION_SETTINGS.defaults));
after(() => t.close());

const newProject = async (body: Record<string, unknown>) => {
  const res = await t.post('/api/v4/projects', { token: alice.token, body: { name: `p${++sequence}`, ...body } });
  expectStatus(res, 201);
  expectEntity(res.json(), ProjectEntity);
  return res.json();
};

const newGroup = async (body: Record<string, unknown> = {}) => {
  const path = `g${++sequence}`;
  const res = await t.post('/api/v4/groups', { token: alice.token, body: { name: path, path, ...body } });
  expectStatus(res, 201);
  expectEntity(res.json(), GroupDetailEntity);
  return res.json();
};

const newUser = (body: Record<string, unknown> = {}) => {
  const username = `u${++sequence}`;
  return t.post('/api/v4/users', { token: ROOT_TOKEN, body: { username, name: username, email: `${username}@example.com`, password: PASSWORD, ...body } });
};

describe('new projects', () => {
  test('their first branch is default_branch_name (main when unset)', async () => {
    assert.equal((await newProject({ initialize_with_readme: true })).default_branch, 'main');
    await setInstanceSettings(t, { default_branch_name: 'trunk' });
    assert.equal((await newProject({ initialize_with_readme: true })).default_branch, 'trunk');
    // A branch the creator names still wins.
    assert.equal((await newProject({ initialize_with_readme: true, default_branch: 'dev' })).default_branch, 'dev');
  });

  test('their visibility is default_project_visibility unless given', async () => {
    assert.equal((await newProject({})).visibility, 'private');
    await setInstanceSettings(t, { default_project_visibility: 'internal' });
    assert.equal((await newProject({})).visibility, 'internal');
    assert.equal((await newProject({ visibility: 'public' })).visibility, 'public');
  });

  test('their ci_config_path is default_ci_config_path, copied at creation; one given wins', async () => {
    assert.equal((await newProject({})).ci_config_path, null);
    await setInstanceSettings(t, { default_ci_config_path: 'ci/pipeline.yml' });
    const project = await newProject({});
    assert.equal(project.ci_config_path, 'ci/pipeline.yml');
    assert.equal((await newProject({ ci_config_path: 'mine.yml' })).ci_config_path, 'mine.yml');
    await setInstanceSettings(t, { default_ci_config_path: null });
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, { token: alice.token })).json().ci_config_path, 'ci/pipeline.yml');
  });

  test('shared runners follow shared_runners_enabled', async () => {
    assert.equal((await newProject({})).shared_runners_enabled, true);
    await setInstanceSettings(t, { shared_runners_enabled: false });
    assert.equal((await newProject({})).shared_runners_enabled, false);
  });

  test('their default branch gets default_branch_protection, unless their group sets its own', async () => {
    const protections = async (project: { id: number }) =>
      (await t.get(`/api/v4/projects/${project.id}/protected_branches`, { token: alice.token })).json() as { name: string }[];
    assert.deepEqual((await protections(await newProject({ initialize_with_readme: true }))).map((p) => p.name), ['main']);
    await setInstanceSettings(t, { default_branch_protection: 0 });
    assert.deepEqual(await protections(await newProject({ initialize_with_readme: true })), []);
    const strict = await createGroup(t, { members: [[alice.user.id, ACCESS.OWNER]], settings: { default_branch_protection: 2 } });
    assert.deepEqual((await protections(await newProject({ initialize_with_readme: true, namespace_id: strict.id }))).map((p) => p.name), ['main']);
  });
});

describe('new groups', () => {
  test('their visibility is default_group_visibility unless given', async () => {
    assert.equal((await newGroup()).visibility, 'private');
    await setInstanceSettings(t, { default_group_visibility: 'internal' });
    assert.equal((await newGroup()).visibility, 'internal');
  });

  test('who may create projects in them follows default_project_creation', async () => {
    assert.equal((await newGroup()).project_creation_level, 'developer');
    await setInstanceSettings(t, { default_project_creation: 1 });
    assert.equal((await newGroup()).project_creation_level, 'maintainer');
    assert.equal((await newGroup({ project_creation_level: 'noone' })).project_creation_level, 'noone');
  });

  test('a group without a protection of its own shows the instance default_branch_protection', async () => {
    const group = await newGroup();
    assert.equal(group.default_branch_protection, 2);
    await setInstanceSettings(t, { default_branch_protection: 1 });
    assert.equal((await t.get(`/api/v4/groups/${group.id}`, { token: alice.token })).json().default_branch_protection, 1);
    const own = await newGroup({ default_branch_protection: 3 });
    assert.equal(own.default_branch_protection, 3);
  });
});

describe('new users and sessions', () => {
  test('projects_limit is default_projects_limit; external by user_default_external', async () => {
    await setInstanceSettings(t, { default_projects_limit: 3 });
    const res = await newUser();
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().projects_limit, 3);
    assert.equal(res.json().external, false);
    await setInstanceSettings(t, { user_default_external: true });
    const external = (await newUser()).json();
    assert.equal(external.external, true);
    assert.equal(external.projects_limit, 0);
    assert.equal((await newUser({ external: false })).json().external, false);
  });

  test('passwords need minimum_password_length characters', async () => {
    await setInstanceSettings(t, { minimum_password_length: 20 });
    expectError(await newUser(), 400, { message: { password: ['is too short (minimum is 20 characters)'] } });
    expectStatus(await newUser({ password: 'a-long-enough-password-1' }), 201);
  });

  test('a web session lasts session_expire_delay minutes', async () => {
    await setInstanceSettings(t, { session_expire_delay: 30 });
    const user = await t.user();
    const res = await t.post('/users/sign_in', { form: `user%5Blogin%5D=${user.user.username}&user%5Bpassword%5D=${encodeURIComponent(PASSWORD)}` });
    expectStatus(res, 302);
    assert.match(String(res.headers['set-cookie']), /Max-Age=1800;/);
  });
});

describe('restricted_visibility_levels', () => {
  test('a regular user may not create or change projects and groups to a restricted level; administrators may', async () => {
    await setInstanceSettings(t, { restricted_visibility_levels: ['public', 'internal'] });
    const projectsBefore = await t.count('projects');
    expectError(await t.post('/api/v4/projects', { token: alice.token, body: { name: 'open', visibility: 'public' } }), 400, {
      message: { visibility_level: ['public has been restricted by your GitLab administrator'] },
    });
    // The default level counts too when it is restricted.
    await setInstanceSettings(t, { restricted_visibility_levels: ['private'] });
    expectError(await t.post('/api/v4/projects', { token: alice.token, body: { name: 'closed' } }), 400, {
      message: { visibility_level: ['private has been restricted by your GitLab administrator'] },
    });
    assert.equal(await t.count('projects'), projectsBefore);

    await setInstanceSettings(t, { restricted_visibility_levels: ['public'] });
    const groupsBefore = await t.count('namespaces');
    expectError(await t.post('/api/v4/groups', { token: alice.token, body: { name: 'open', path: 'open-group', visibility: 'public' } }), 400, {
      message: 'Failed to save group {:visibility_level=>["public has been restricted by your GitLab administrator"]}',
    });
    assert.equal(await t.count('namespaces'), groupsBefore);

    // Changes: refused towards a restricted level, not for other edits of a project already there.
    const project = await newProject({ visibility: 'internal' });
    expectError(await t.put(`/api/v4/projects/${project.id}`, { token: alice.token, body: { visibility: 'public' } }), 400, {
      message: { visibility_level: ['public has been restricted by your GitLab administrator'] },
    });
    const group = await newGroup({ visibility: 'internal' });
    expectError(await t.put(`/api/v4/groups/${group.id}`, { token: alice.token, body: { visibility: 'public' } }), 400, {
      message: { visibility_level: ['public has been restricted by your GitLab administrator'] },
    });
    await t.deps.db.updateTable('projects').set({ visibility_level: 20 }).where('id', '=', project.id).execute();
    expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: alice.token, body: { description: 'still public' } }), 200);

    // Administrators are exempt.
    const admin = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'admin-open', visibility: 'public' } });
    expectStatus(admin, 201);
    expectEntity(admin.json(), ProjectEntity);
    expectStatus(await t.put(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN, body: { visibility: 'public' } }), 200);
  });
});

describe('restricted_visibility_levels: public', () => {
  test('anonymous callers may no longer read users, not even by username; signed-in callers still may', async () => {
    const who = await t.user();
    expectStatus(await t.get('/api/v4/users', { query: { username: who.user.username } }), 200);
    expectStatus(await t.get(`/api/v4/users/${who.user.id}`), 200);
    await setInstanceSettings(t, { restricted_visibility_levels: ['public'] });
    expectError(await t.get('/api/v4/users', { query: { username: who.user.username } }), 403, { message: '403 Forbidden - Not authorized to access /api/v4/users' });
    expectError(await t.get(`/api/v4/users/${who.user.id}`), 404, { message: '404 User Not Found' });
    expectStatus(await t.get(`/api/v4/users/${who.user.id}`, { token: alice.token }), 200);
    expectStatus(await t.get('/api/v4/users', { token: alice.token, query: { username: who.user.username } }), 200);
  });
});
