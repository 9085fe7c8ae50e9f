// POST /projects and POST /projects/user/:user_id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, type Role, buildMatrixWorld, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { createGroup, personalNamespace } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { ProjectEntity } from './projects.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  alice = await t.user({ username: 'alice', name: 'Alice' });
});
after(() => t.close());

/** `null` sends no credentials. */
const create = (body: unknown, token: string | null | undefined = alice.token) => t.post('/api/v4/projects', { token: token ?? undefined, body });

/** Proves a refused request wrote nothing. */
async function unchanged(run: () => Promise<unknown>): Promise<void> {
  const before = [await t.count('projects'), await t.count('members'), await t.count('events')];
  await run();
  assert.deepEqual([await t.count('projects'), await t.count('members'), await t.count('events')], before);
}

describe('POST /projects', () => {
  test('a personal project from a name: 201, the full form with the admin fields, path derived', async () => {
    const res = await create({ name: 'My First. Project', description: 'hello' });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, ProjectEntity);
    assert.equal(body.name, 'My First. Project');
    assert.equal(body.path, 'my-first-project');
    assert.equal(body.path_with_namespace, 'alice/my-first-project');
    assert.equal(body.name_with_namespace, 'Alice / My First. Project');
    assert.equal(body.description, 'hello');
    assert.equal(body.visibility, 'private');
    assert.equal(body.creator_id, alice.user.id);
    assert.equal(body.owner.id, alice.user.id);
    assert.equal(body.namespace.id, (await personalNamespace(t, alice.user.id)).id);
    assert.equal(body.default_branch, null);
    assert.equal(body.star_count, 0);
    assert.equal(body.archived, false);
    assert.match(body.runners_token, /^[0-9a-f]{20}$/);
    assert.equal(body.import_error, null);
    assert.equal(body.build_git_strategy, 'fetch');
    assert.equal('permissions' in body, false);
  });

  test('side effects: the creator is a Maintainer member, has Owner access, and a created event is recorded', async () => {
    const res = await create({ path: 'side-effects' });
    expectStatus(res, 201);
    const id = res.json().id;
    assert.equal(res.json().name, 'side-effects');
    const member = await t.deps.db.selectFrom('members').selectAll().where('source_type', '=', 'Project').where('source_id', '=', id).execute();
    assert.deepEqual(
      member.map((m) => [m.user_id, m.access_level]),
      [[alice.user.id, ACCESS.MAINTAINER]],
    );
    const auth = await t.deps.db.selectFrom('project_authorizations').selectAll().where('project_id', '=', id).execute();
    assert.deepEqual(
      auth.map((a) => [a.user_id, a.access_level]),
      [[alice.user.id, ACCESS.OWNER]],
    );
    const events = await t.deps.db.selectFrom('events').selectAll().where('project_id', '=', id).execute();
    assert.deepEqual(
      events.map((e) => [e.action, e.author_id, e.target_type]),
      [['created', alice.user.id, null]],
    );
    // The creator reads it back with their permissions.
    const show = await t.get(`/api/v4/projects/${id}`, { token: alice.token });
    assert.deepEqual(show.json().permissions, { project_access: { access_level: 40, notification_level: 3 }, group_access: null });
  });

  test('topics (or the deprecated tag_list), features, settings', async () => {
    const res = await create({
      name: 'settings',
      topics: ' go , web,go,',
      visibility: 'internal',
      issues_enabled: false,
      wiki_access_level: 'private',
      jobs_enabled: false,
      builds_access_level: 'enabled',
      merge_method: 'ff',
      squash_option: 'always',
      only_allow_merge_if_pipeline_succeeds: true,
      remove_source_branch_after_merge: false,
      ci_default_git_depth: 10,
      public_builds: false,
      request_access_enabled: false,
      suggestion_commit_message: 'Apply',
    });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, ProjectEntity);
    assert.deepEqual(body.topics, ['go', 'web']);
    assert.deepEqual(body.tag_list, ['go', 'web']);
    assert.equal(body.visibility, 'internal');
    assert.equal(body.issues_enabled, false);
    assert.equal(body.issues_access_level, 'disabled');
    assert.equal('open_issues_count' in body, false);
    assert.equal(body.wiki_access_level, 'private');
    assert.equal(body.wiki_enabled, true);
    // An explicit access level wins over the legacy switch.
    assert.equal(body.builds_access_level, 'enabled');
    assert.equal(body.jobs_enabled, true);
    assert.equal(body.merge_method, 'ff');
    assert.equal(body.squash_option, 'always');
    assert.equal(body.only_allow_merge_if_pipeline_succeeds, true);
    assert.equal(body.remove_source_branch_after_merge, false);
    assert.equal(body.ci_default_git_depth, 10);
    assert.equal(body.public_jobs, false);
    assert.equal(body.request_access_enabled, false);
    assert.equal(body.suggestion_commit_message, 'Apply');
    const tags = await create({ name: 'tags', tag_list: ['b', 'a'] });
    assert.deepEqual(tags.json().topics, ['a', 'b']);
  });

  test('form bodies work too', async () => {
    const res = await t.post('/api/v4/projects', { token: alice.token, form: 'name=from+form&visibility=public&topics=x,y' });
    expectStatus(res, 201);
    assert.equal(res.json().path, 'from-form');
    assert.equal(res.json().visibility, 'public');
    assert.deepEqual(res.json().topics, ['x', 'y']);
  });

  test('initialize_with_readme records the wish and names the default branch', async () => {
    const readme = await create({ name: 'with-readme', initialize_with_readme: true });
    expectStatus(readme, 201);
    assert.equal(readme.json().default_branch, 'main');
    const named = await create({ name: 'with-trunk', initialize_with_readme: true, default_branch: 'trunk' });
    assert.equal(named.json().default_branch, 'trunk');
    const plain = await create({ name: 'no-readme', default_branch: 'trunk' });
    assert.equal(plain.json().default_branch, null);
    const row = await t.deps.db.selectFrom('project_settings').select('initialize_with_readme').where('project_id', '=', readme.json().id).executeTakeFirstOrThrow();
    assert.equal(Boolean(row.initialize_with_readme), true);
  });

  test('name and path: at least one is required', async () => {
    await unchanged(async () => {
      expectError(await create({}), 400, { error: 'name, path are missing, at least one parameter must be provided' });
      expectError(await create({ description: 'x' }), 400, { error: 'name, path are missing, at least one parameter must be provided' });
    });
  });

  test('validation messages', async () => {
    await unchanged(async () => {
      expectError(await create({ name: '-bad name' }), 400, {
        message: {
          name: ["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."],
        },
      });
      expectError(await create({ name: 'ok', path: '-bad' }), 400, {
        message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] },
      });
      expectError(await create({ name: 'ok', path: 'repo.git' }), 400, {
        message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] },
      });
      expectError(await create({ path: 'tree' }), 400, { message: { path: ['tree is a reserved name'] } });
      expectError(await create({ name: 'x'.repeat(256), path: 'long' }), 400, { message: { name: ['is too long (maximum is 255 characters)'] } });
      expectError(await create({ name: 'desc', description: 'd'.repeat(2001) }), 400, { message: { description: ['is too long (maximum is 2000 characters)'] } });
      expectError(await create({ name: '   ', path: 'blank' }), 400, { message: { name: ["can't be blank"] } });
      expectError(await create({ name: 'x', visibility: 'secret' }), 400, { error: 'visibility does not have a valid value' });
      expectError(await create({ name: 'x', merge_method: 'squash' }), 400, { error: 'merge_method does not have a valid value' });
      expectError(await create({ name: 'x', issues_access_level: 'public' }), 400, { error: 'issues_access_level does not have a valid value' });
      expectError(await create({ name: 'x', namespace_id: 'abc' }), 400, { error: 'namespace_id is invalid' });
    });
  });

  test('name and path must be free in the namespace (case-insensitive)', async () => {
    expectStatus(await create({ name: 'Taken', path: 'taken' }), 201);
    await unchanged(async () => {
      expectError(await create({ name: 'taken' }), 400, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
      expectError(await create({ name: 'Other', path: 'TAKEN' }), 400, { message: { path: ['has already been taken'] } });
      expectError(await create({ name: 'TAKEN', path: 'other' }), 400, { message: { name: ['has already been taken'] } });
    });
    // Another namespace may use them.
    const bob = await t.user();
    expectStatus(await create({ name: 'Taken', path: 'taken' }, bob.token), 201);
  });

  test('a project path may not be a subgroup path (case-insensitive)', async () => {
    const group = await createGroup(t, { path: 'parent-g', members: [[alice.user.id, ACCESS.OWNER]] });
    await createGroup(t, { path: 'child', parent: group });
    await unchanged(async () => {
      expectError(await create({ name: 'child', namespace_id: group.id }), 400, { message: { path: ['has already been taken'] } });
      expectError(await create({ name: 'Other child', path: 'Child', namespace_id: group.id }), 400, { message: { path: ['has already been taken'] } });
    });
  });

  test('namespace_id: a group the caller may create in, or the personal namespace of its owner', async () => {
    const group = await createGroup(t, { visibility: 'public', members: [[alice.user.id, ACCESS.MAINTAINER]] });
    const res = await create({ name: 'in-group', namespace_id: group.id, visibility: 'public' });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, ProjectEntity);
    assert.equal(body.path_with_namespace, `${group.full_path}/in-group`);
    assert.equal('owner' in body, false);
    assert.equal(body.namespace.kind, 'group');
    // Group projects add no member row: access comes from the group.
    assert.equal((await t.deps.db.selectFrom('members').select('id').where('source_type', '=', 'Project').where('source_id', '=', body.id).execute()).length, 0);
    const auth = await t.deps.db.selectFrom('project_authorizations').select('access_level').where('project_id', '=', body.id).where('user_id', '=', alice.user.id).executeTakeFirst();
    assert.equal(auth?.access_level, ACCESS.MAINTAINER);

    const bob = await t.user();
    const guestOnly = await createGroup(t, { members: [[alice.user.id, ACCESS.GUEST]] });
    const closed = await createGroup(t, { members: [[alice.user.id, ACCESS.OWNER]], settings: { project_creation_level: 'noone' } });
    const invisible = await createGroup(t);
    await unchanged(async () => {
      const invalid = { message: { namespace: ['is not valid'] } };
      expectError(await create({ name: 'theirs', namespace_id: (await personalNamespace(t, bob.user.id)).id }), 400, invalid);
      expectError(await create({ name: 'nowhere', namespace_id: 999999 }), 400, invalid);
      expectError(await create({ name: 'guest', namespace_id: guestOnly.id }), 400, invalid);
      expectError(await create({ name: 'noone', namespace_id: closed.id }), 400, invalid);
      expectError(await create({ name: 'hidden', namespace_id: invisible.id }), 400, invalid);
    });
    // An administrator may create in anyone's namespace.
    const admin = await create({ name: 'for-bob', namespace_id: (await personalNamespace(t, bob.user.id)).id }, ROOT_TOKEN);
    expectStatus(admin, 201);
    assert.equal(admin.json().path_with_namespace, `${bob.user.username}/for-bob`);
  });

  test('a project may not be more visible than its group', async () => {
    const group = await createGroup(t, { visibility: 'internal', members: [[alice.user.id, ACCESS.OWNER]] });
    await unchanged(async () => {
      expectError(await create({ name: 'too-open', namespace_id: group.id, visibility: 'public' }), 400, {
        message: { visibility_level: ['public is not allowed in a internal group.'] },
      });
    });
    expectStatus(await create({ name: 'fine', namespace_id: group.id, visibility: 'internal' }), 201);
  });

  test('projects_limit: 403 with the platform array body; group projects do not count', async () => {
    const limited = await t.user({ projects_limit: 1 });
    expectStatus(await create({ name: 'one' }, limited.token), 201);
    await unchanged(async () => {
      expectError(await create({ name: 'two' }, limited.token), 403, {
        error: ['Your project limit is 1 projects! Please contact your administrator to increase it'],
      });
    });
    const none = await t.user({ projects_limit: 0 });
    expectError(await create({ name: 'zero' }, none.token), 403, {
      error: ['Personal project creation is not allowed. Please contact your administrator with questions'],
    });
    const group = await createGroup(t, { members: [[none.user.id, ACCESS.MAINTAINER]] });
    expectStatus(await create({ name: 'group-ok', namespace_id: group.id }, none.token), 201);
  });

  test('who may call: anonymous 401, blocked 403, external users have no personal projects', async () => {
    await unchanged(async () => {
      expectError(await create({ name: 'anon' }, null), 401, { message: '401 Unauthorized' });
      expectError(await create({}, null), 401, { message: '401 Unauthorized' });
      expectError(await create({ name: 'blocked' }, world.callers.blocked.token), 403, { message: '403 Forbidden - Your account has been blocked.' });
      expectError(await create({ name: 'external' }, world.callers.external.token), 403, {
        error: ['Personal project creation is not allowed. Please contact your administrator with questions'],
      });
    });
  });

  test('role × visibility: creating in a group needs create_projects (Developer by default)', async () => {
    let n = 0;
    const allowed: Role[] = ['developer', 'maintainer', 'owner', 'admin'];
    await runMatrix(world, {
      // Each creation recomputes the authorizations of the group's members, the shared callers.
      serial: true,
      expect: (role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : allowed.includes(role) ? 201 : 400),
      errors: refusals('Group', { 400: { message: { namespace: ['is not valid'] } } }),
      call: ({ caller, group }) => create({ name: `matrix-${++n}`, namespace_id: group.id }, caller.token ?? null),
      verify(res, { role, group }) {
        expectEntity(res.json(), ProjectEntity);
        assert.equal(res.json().namespace.id, group.id);
        // Only those who administer the new project see its runners token.
        assert.equal('runners_token' in res.json(), role !== 'developer');
      },
    });
  });
});

describe('POST /projects/user/:user_id', () => {
  const path = () => `/api/v4/projects/user/${alice.user.id}`;

  test('an administrator creates a project for a user', async () => {
    const res = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'Made For Alice', visibility: 'public' } });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, ProjectEntity);
    assert.equal(body.path_with_namespace, 'alice/made-for-alice');
    assert.equal(body.creator_id, alice.user.id);
    assert.equal(body.owner.id, alice.user.id);
    assert.equal(body.visibility, 'public');
    const event = await t.deps.db.selectFrom('events').selectAll().where('project_id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(event.author_id, alice.user.id);
  });

  test('in a group the user may create in', async () => {
    const group = await createGroup(t, { members: [[alice.user.id, ACCESS.DEVELOPER]] });
    const res = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'grouped', namespace_id: group.id } });
    expectStatus(res, 201);
    assert.equal(res.json().namespace.id, group.id);
    const other = await createGroup(t);
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'nope', namespace_id: other.id } }), 400, { message: { namespace: ['is not valid'] } });
  });

  test('refusals: 401, 400 before 403, 403, 404, and the limit as a field', async () => {
    await unchanged(async () => {
      expectError(await t.post(path(), { body: { name: 'x' } }), 401, { message: '401 Unauthorized' });
      expectError(await t.post(path(), { token: alice.token, body: {} }), 400, { error: 'name is missing' });
      expectError(await t.post(path(), { token: alice.token, body: { name: 'x' } }), 403, { message: '403 Forbidden' });
      expectError(await t.post('/api/v4/projects/user/999999', { token: ROOT_TOKEN, body: { name: 'x' } }), 404, { message: '404 User Not Found' });
      expectError(await t.post('/api/v4/projects/user/abc', { token: ROOT_TOKEN, body: { name: 'x' } }), 400, { error: 'user_id is invalid' });
      const none = await t.user({ projects_limit: 0 });
      expectError(await t.post(`/api/v4/projects/user/${none.user.id}`, { token: ROOT_TOKEN, body: { name: 'x' } }), 400, {
        message: { limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
      });
    });
  });
});
