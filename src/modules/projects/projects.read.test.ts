// GET /projects/:id (forms, exposure rules, statistics, license, paths) and GET /projects/:id/users.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, type Role, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { UserBasicEntity } from '../users/users.schemas.ts';
import { ProjectSimpleEntity, ProjectWithAccessEntity } from './projects.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const ADMINISTERS: Role[] = ['maintainer', 'owner', 'admin'];

describe('GET /projects/:id', () => {
  test('role × visibility: readers get the project, others 404, anonymous the simple form', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}`, { token: caller.token }),
      verify(res, { role, project }) {
        const body = res.json();
        if (role === 'anonymous') {
          expectEntity(body, ProjectSimpleEntity);
          assert.equal(body.default_branch, null);
          return;
        }
        expectEntity(body, ProjectWithAccessEntity);
        assert.equal(body.id, project.id);
        // runners_token and friends only for those who administer the project.
        assert.equal('runners_token' in body, ADMINISTERS.includes(role), 'runners_token');
        // import_error is in every full form (spec Part 2 §2.1): null while no import failed.
        assert.equal(body.import_error, null, 'import_error');
        assert.equal('build_git_strategy' in body, ADMINISTERS.includes(role), 'build_git_strategy');
        assert.equal('repository_storage' in body, role === 'admin', 'repository_storage');
        // A guest of a private project may not download its code.
        assert.equal('default_branch' in body, !(role === 'guest' && project.visibility_level === 0), 'default_branch');
        const direct = ['guest', 'reporter', 'developer', 'maintainer'].includes(role);
        assert.deepEqual(body.permissions, {
          project_access: direct ? { access_level: { guest: 10, reporter: 20, developer: 30, maintainer: 40 }[role as 'guest'], notification_level: 3 } : null,
          group_access: null,
        });
        assert.equal(body.owner.username, 'matrix-owner');
      },
    });
  });

  test('the id may be the URL-encoded full path, in any case', async () => {
    const project = world.projects.public;
    for (const ref of [encodeURIComponent(project.full_path), encodeURIComponent(project.full_path.toUpperCase())]) {
      const res = await t.get(`/api/v4/projects/${ref}`, { token: ROOT_TOKEN });
      expectStatus(res, 200);
      assert.equal(res.json().id, project.id);
    }
    expectError(await t.get('/api/v4/projects/nobody%2Fnothing', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
    expectError(await t.get('/api/v4/projects/999999', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
    expectError(await t.get('/api/v4/projects/no-slash', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
  });

  test('the full form carries every field with its defaults', async () => {
    const res = await t.get(`/api/v4/projects/${world.projects.internal.id}`, { token: world.callers.owner.token });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, ProjectWithAccessEntity);
    const p = world.projects.internal;
    assert.deepEqual(
      {
        path_with_namespace: body.path_with_namespace,
        name_with_namespace: body.name_with_namespace,
        web_url: body.web_url,
        http_url_to_repo: body.http_url_to_repo,
        ssh_url_to_repo: body.ssh_url_to_repo,
        visibility: body.visibility,
        namespace: body.namespace,
        _links: body._links,
        merge_method: body.merge_method,
        squash_option: body.squash_option,
        issues_access_level: body.issues_access_level,
        pages_access_level: body.pages_access_level,
        empty_repo: body.empty_repo,
        marked_for_deletion_on: body.marked_for_deletion_on,
        container_registry_image_prefix: body.container_registry_image_prefix,
      },
      {
        path_with_namespace: p.full_path,
        name_with_namespace: p.name_with_namespace,
        web_url: `http://quarry.test/${p.full_path}`,
        http_url_to_repo: `http://quarry.test/${p.full_path}.git`,
        ssh_url_to_repo: `git@quarry.test:${p.full_path}.git`,
        visibility: 'internal',
        namespace: {
          id: p.namespace_id,
          name: world.callers.owner.user!.name,
          path: 'matrix-owner',
          kind: 'user',
          full_path: 'matrix-owner',
          parent_id: null,
          avatar_url: null,
          web_url: 'http://quarry.test/matrix-owner',
        },
        _links: {
          self: `http://quarry.test/api/v4/projects/${p.id}`,
          issues: `http://quarry.test/api/v4/projects/${p.id}/issues`,
          merge_requests: `http://quarry.test/api/v4/projects/${p.id}/merge_requests`,
          repo_branches: `http://quarry.test/api/v4/projects/${p.id}/repository/branches`,
          labels: `http://quarry.test/api/v4/projects/${p.id}/labels`,
          events: `http://quarry.test/api/v4/projects/${p.id}/events`,
          members: `http://quarry.test/api/v4/projects/${p.id}/members`,
        },
        merge_method: 'merge',
        squash_option: 'default_off',
        issues_access_level: 'enabled',
        pages_access_level: 'private',
        empty_repo: true,
        marked_for_deletion_on: null,
        container_registry_image_prefix: `quarry.test/${p.full_path}`,
      },
    );
    assert.equal(body.owner.id, world.callers.owner.user!.id);
    assert.equal(body.owner.created_at, world.callers.owner.user!.created_at);
  });

  test('statistics=true: only for Reporter and above, zeros until anything is stored', async () => {
    const project = world.projects.public;
    const zeros = {
      commit_count: 0,
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
    };
    for (const role of ['reporter', 'developer', 'maintainer', 'owner', 'admin'] as const) {
      const res = await t.get(`/api/v4/projects/${project.id}`, { token: world.callers[role].token, query: { statistics: 'true' } });
      expectEntity(res.json(), ProjectWithAccessEntity);
      assert.deepEqual(res.json().statistics, zeros, role);
    }
    for (const role of ['guest', 'non_member'] as const) {
      const res = await t.get(`/api/v4/projects/${project.id}`, { token: world.callers[role].token, query: { statistics: 'true' } });
      assert.equal('statistics' in res.json(), false, role);
    }
    assert.equal('statistics' in (await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN })).json(), false);
  });

  test('statistics come from the stored figures', async () => {
    const project = await createProject(t, { visibility: 'private' });
    await t.deps.db.insertInto('project_statistics').values({ project_id: project.id, repository_size: 2048, storage_size: 4096, commit_count: 3, build_artifacts_size: 7 }).execute();
    const stats = (await t.get(`/api/v4/projects/${project.id}?statistics=true`, { token: ROOT_TOKEN })).json().statistics;
    assert.equal(stats.repository_size, 2048);
    assert.equal(stats.storage_size, 4096);
    assert.equal(stats.commit_count, 3);
    assert.equal(stats.job_artifacts_size, 7);
  });

  test('license=true adds license and license_url (null without a repository)', async () => {
    for (const token of [undefined, ROOT_TOKEN]) {
      const res = await t.get(`/api/v4/projects/${world.projects.public.id}?license=true`, { token });
      expectStatus(res, 200);
      expectEntity(res.json(), token ? ProjectWithAccessEntity : ProjectSimpleEntity);
      assert.equal(res.json().license, null);
      assert.equal(res.json().license_url, null);
    }
    assert.equal('license' in (await t.get(`/api/v4/projects/${world.projects.public.id}`)).json(), false);
  });

  test('a group project: no owner, group_access from the group or an ancestor', async () => {
    const alice = await t.user();
    const top = await createGroup(t, { visibility: 'private', members: [[alice.user.id, ACCESS.DEVELOPER]] });
    const sub = await createGroup(t, { visibility: 'private', parent: top });
    const project = await createProject(t, { namespace: sub, members: [[alice.user.id, ACCESS.REPORTER]] });
    const res = await t.get(`/api/v4/projects/${project.id}`, { token: alice.token });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, ProjectWithAccessEntity);
    assert.equal('owner' in body, false);
    assert.deepEqual(body.permissions, { project_access: { access_level: 20, notification_level: 3 }, group_access: { access_level: 30, notification_level: 3 } });
    assert.equal(body.namespace.kind, 'group');
    assert.equal(body.namespace.parent_id, top.id);
    assert.equal(body.namespace.web_url, `http://quarry.test/groups/${sub.full_path}`);
    assert.equal('runners_token' in body, false);
  });

  test('with_custom_attributes only for administrators', async () => {
    const project = world.projects.public;
    await t.put(`/api/v4/projects/${project.id}/custom_attributes/team`, { token: ROOT_TOKEN, body: { value: 'red' } });
    const res = await t.get(`/api/v4/projects/${project.id}?with_custom_attributes=true`, { token: ROOT_TOKEN });
    expectEntity(res.json(), ProjectWithAccessEntity);
    assert.deepEqual(res.json().custom_attributes, [{ key: 'team', value: 'red' }]);
    const other = await t.get(`/api/v4/projects/${project.id}?with_custom_attributes=true`, { token: world.callers.owner.token });
    assert.equal('custom_attributes' in other.json(), false);
  });

  test('features set to private: shown as enabled only to members who reach them', async () => {
    const owner = world.callers.owner;
    const project = await createProject(t, { visibility: 'public', creatorId: owner.user!.id });
    const guest = await t.user();
    await addMember(t, project, guest.user.id, ACCESS.GUEST);
    const put = await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { issues_access_level: 'private', merge_requests_access_level: 'private' } });
    expectStatus(put, 200);
    const outsider = (await t.get(`/api/v4/projects/${project.id}`, { token: world.callers.non_member.token })).json();
    assert.equal(outsider.issues_enabled, false);
    assert.equal(outsider.merge_requests_enabled, false);
    assert.equal(outsider.issues_access_level, 'private');
    assert.equal('open_issues_count' in outsider, false);
    assert.equal('issues' in outsider._links, false);
    const asGuest = (await t.get(`/api/v4/projects/${project.id}`, { token: guest.token })).json();
    assert.equal(asGuest.issues_enabled, true);
    // Merge requests set to private need Reporter.
    assert.equal(asGuest.merge_requests_enabled, false);
    assert.equal(asGuest.can_create_merge_request_in, false);
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN })).json().merge_requests_enabled, true);
  });

  test('bad parameters are 400', async () => {
    expectError(await t.get(`/api/v4/projects/${world.projects.public.id}?statistics=maybe`), 400, { error: 'statistics is invalid' });
  });
});

describe('GET /projects/:id/users', () => {
  let alice: TestUser;
  let bob: TestUser;
  let project: Awaited<ReturnType<typeof createProject>>;

  before(async () => {
    alice = await t.user({ username: 'alice-users', name: 'Alice Liddell' });
    bob = await t.user({ username: 'bob-users', name: 'Bob Builder' });
    const group = await createGroup(t, { visibility: 'public', members: [[alice.user.id, ACCESS.GUEST]] });
    project = await createProject(t, { namespace: group, visibility: 'public', members: [[bob.user.id, ACCESS.DEVELOPER]] });
  });

  test('role × visibility: readers list the users', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/users`, { token: caller.token }),
      verify(res) {
        expectEntities(res.json(), UserBasicEntity);
        const names = res.json().map((u: { username: string }) => u.username);
        for (const name of ['matrix-owner', 'matrix-guest', 'matrix-maintainer']) assert.ok(names.includes(name), name);
      },
    });
  });

  test('members, inherited ones included, ordered by id', async () => {
    const res = await t.get(`/api/v4/projects/${project.id}/users`);
    expectStatus(res, 200);
    expectEntities(res.json(), UserBasicEntity);
    assert.deepEqual(
      res.json().map((u: { id: number }) => u.id),
      [alice.user.id, bob.user.id],
    );
    assert.equal(res.headers['x-total'], '2');
  });

  test('search and skip_users', async () => {
    const search = await t.get(`/api/v4/projects/${project.id}/users`, { query: { search: 'liddell' } });
    assert.deepEqual(
      search.json().map((u: { id: number }) => u.id),
      [alice.user.id],
    );
    const skip = await t.get(`/api/v4/projects/${project.id}/users`, { query: { skip_users: String(alice.user.id) } });
    assert.deepEqual(
      skip.json().map((u: { id: number }) => u.id),
      [bob.user.id],
    );
    expectError(await t.get(`/api/v4/projects/${project.id}/users`, { query: { skip_users: 'x' } }), 400, { error: 'skip_users is invalid' });
  });
});
