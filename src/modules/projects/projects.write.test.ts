// PUT /projects/:id, DELETE /projects/:id, archive / unarchive, star / unstar, custom attributes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, type Visibility, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { addMember, createGroup, createProject, personalNamespace } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import { ProjectEntity, UPDATE_KEYS } from './projects.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let owner: TestUser;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  owner = await t.user({ username: 'olga', name: 'Olga' });
});
after(() => t.close());

/** A new project with the matrix project's visibility and memberships, for routes that change or remove it. */
async function freshMatrixProject(visibility: Visibility): Promise<ProjectRow> {
  const { callers } = world;
  const namespace = await personalNamespace(t, callers.owner.user!.id);
  const members: [number, number][] = (['guest', 'reporter', 'developer', 'maintainer', 'blocked'] as const).map((role) => [
    callers[role].user!.id,
    role === 'blocked' ? ACCESS.DEVELOPER : { guest: 10, reporter: 20, developer: 30, maintainer: 40 }[role],
  ]);
  return createProject(t, { visibility, namespace, creatorId: callers.owner.user!.id, members });
}

describe('PUT /projects/:id', () => {
  test('role × visibility: Maintainer and above change settings', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.put(`/api/v4/projects/${project.id}`, { token: caller.token, body: { description: 'changed' } }),
      verify(res, { project }) {
        expectEntity(res.json(), ProjectEntity);
        assert.equal(res.json().id, project.id);
        assert.equal(res.json().description, 'changed');
        assert.equal(typeof res.json().runners_token, 'string');
        assert.equal('permissions' in res.json(), false);
      },
    });
  });

  test('role × visibility: renaming and visibility changes need an owner', async () => {
    let n = 0;
    for (const body of [() => ({ name: `Renamed ${++n}` }), () => ({ visibility: 'private' })]) {
      await runMatrix(world, {
        // Each call makes a project whose members are the shared callers.
        serial: true,
        expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.OWNER }),
        errors: refusals('Project'),
        call: async ({ caller, visibility }) => {
          const project = await freshMatrixProject(visibility);
          return t.put(`/api/v4/projects/${project.id}`, { token: caller.token, body: body() });
        },
        verify(res) {
          expectEntity(res.json(), ProjectEntity);
        },
      });
    }
  });

  test('renames keep full_path and name_with_namespace in step; the old path is gone', async () => {
    const project = await createProject(t, { path: 'before', name: 'Before', creatorId: owner.user.id });
    const res = await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { name: 'After', path: 'after' } });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectEntity);
    assert.equal(res.json().path_with_namespace, 'olga/after');
    assert.equal(res.json().name_with_namespace, 'Olga / After');
    expectStatus(await t.get('/api/v4/projects/olga%2Fafter', { token: owner.token }), 200);
    expectError(await t.get('/api/v4/projects/olga%2Fbefore', { token: owner.token }), 404, { message: '404 Project Not Found' });
  });

  test('settings, features and topics', async () => {
    const project = await createProject(t, { creatorId: owner.user.id, topics: ['old'] });
    const res = await t.put(`/api/v4/projects/${project.id}`, {
      token: owner.token,
      body: {
        topics: 'one, two',
        merge_method: 'rebase_merge',
        squash_option: 'default_on',
        merge_requests_enabled: false,
        snippets_access_level: 'private',
        ci_forward_deployment_enabled: false,
        restrict_user_defined_variables: true,
        keep_latest_artifact: false,
        visibility: 'public',
        description: 'new description',
      },
    });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, ProjectEntity);
    assert.deepEqual(body.topics, ['one', 'two']);
    assert.equal(body.merge_method, 'rebase_merge');
    assert.equal(body.squash_option, 'default_on');
    assert.equal(body.merge_requests_enabled, false);
    assert.equal(body.merge_requests_access_level, 'disabled');
    assert.equal('merge_requests' in body._links, false);
    assert.equal(body.can_create_merge_request_in, false);
    assert.equal(body.snippets_access_level, 'private');
    assert.equal(body.ci_forward_deployment_enabled, false);
    assert.equal(body.restrict_user_defined_variables, true);
    assert.equal(body.keep_latest_artifact, false);
    assert.equal(body.visibility, 'public');
    assert.equal(body.description, 'new description');
    // Unchanged settings keep their values.
    const again = await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { description: 'again' } });
    assert.equal(again.json().merge_method, 'rebase_merge');
    assert.deepEqual(again.json().topics, ['one', 'two']);
    // The list filter sees the disabled feature.
    const list = await t.get('/api/v4/projects', { token: owner.token, query: { with_merge_requests_enabled: 'true', owned: 'true' } });
    assert.ok(!list.json().some((p: { id: number }) => p.id === project.id));
  });

  test('repository_storage is for administrators only (others are silently ignored) and must be configured', async () => {
    const project = await createProject(t, { creatorId: owner.user.id });
    expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { repository_storage: 'other' } }), 200);
    const row = await t.deps.db.selectFrom('projects').select('repository_storage').where('id', '=', project.id).executeTakeFirstOrThrow();
    assert.equal(row.repository_storage, 'default');
    expectError(await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { repository_storage: 'other' } }), 400, {
      message: { repository_storage: ['is not included in the list'] },
    });
    const admin = await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { repository_storage: 'default' } });
    assert.equal(admin.json().repository_storage, 'default');
  });

  test('a new path may not be a subgroup path (case-insensitive)', async () => {
    const group = await createGroup(t, { path: 'renamed-g', members: [[owner.user.id, ACCESS.OWNER]] });
    await createGroup(t, { path: 'sub', parent: group });
    const project = await createProject(t, { path: 'before', namespace: group, creatorId: owner.user.id });
    expectError(await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { path: 'SUB' } }), 400, { message: { path: ['has already been taken'] } });
    const row = await t.deps.db.selectFrom('projects').select('path').where('id', '=', project.id).executeTakeFirstOrThrow();
    assert.equal(row.path, 'before');
  });

  test('validation: at least one parameter, formats, taken names, group visibility, the default branch', async () => {
    const project = await createProject(t, { path: 'valid', creatorId: owner.user.id });
    await createProject(t, { path: 'occupied', name: 'Occupied', creatorId: owner.user.id });
    const put = (body: unknown) => t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body });
    expectError(await put({}), 400, { error: `${UPDATE_KEYS.join(', ')} are missing, at least one parameter must be provided` });
    expectError(await put({ path: 'bad path' }), 400, {
      message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] },
    });
    expectError(await put({ path: 'OCCUPIED' }), 400, { message: { path: ['has already been taken'] } });
    expectError(await put({ name: 'occupied' }), 400, { message: { name: ['has already been taken'] } });
    expectError(await put({ visibility: 'hidden' }), 400, { error: 'visibility does not have a valid value' });
    expectError(await put({ default_branch: 'develop' }), 400, { message: { base: ["Could not change HEAD: branch 'develop' does not exist"] } });
    // Renaming to its own name (another case) is no conflict.
    expectStatus(await put({ path: 'VALID' }), 200);

    const group = await createGroup(t, { visibility: 'internal', members: [[owner.user.id, ACCESS.OWNER]] });
    const grouped = await createProject(t, { namespace: group, visibility: 'internal' });
    expectError(await t.put(`/api/v4/projects/${grouped.id}`, { token: owner.token, body: { visibility: 'public' } }), 400, {
      message: { visibility_level: ['public is not allowed in a internal group.'] },
    });
  });

  test('parameters are checked before the project is looked up', async () => {
    expectError(await t.put('/api/v4/projects/999999', { token: owner.token, body: {} }), 400, {
      error: `${UPDATE_KEYS.join(', ')} are missing, at least one parameter must be provided`,
    });
    expectError(await t.put('/api/v4/projects/999999', { token: owner.token, body: { description: 'x' } }), 404, { message: '404 Project Not Found' });
  });
});

describe('DELETE /projects/:id', () => {
  test('role × visibility: owners and administrators remove it (202)', async () => {
    await runMatrix(world, {
      // Each call makes a project whose members are the shared callers.
      serial: true,
      expect: expectation({ success: 202, auth: 'required', minLevel: ACCESS.OWNER }),
      errors: refusals('Project'),
      call: async ({ caller, visibility }) => {
        const project = await freshMatrixProject(visibility);
        return t.del(`/api/v4/projects/${project.id}`, { token: caller.token });
      },
      verify(res) {
        assert.deepEqual(res.json(), { message: '202 Accepted' });
      },
    });
  });

  test('everything that hangs off the project goes with it', async () => {
    const fan = await t.user();
    const project = await createProject(t, { creatorId: owner.user.id, visibility: 'public', topics: ['a'], members: [[fan.user.id, ACCESS.DEVELOPER]] });
    expectStatus(await t.post(`/api/v4/projects/${project.id}/star`, { token: fan.token }), 201);
    await t.put(`/api/v4/projects/${project.id}/custom_attributes/k`, { token: ROOT_TOKEN, body: { value: 'v' } });
    const res = await t.del(`/api/v4/projects/${project.id}`, { token: owner.token });
    expectError(res, 202, { message: '202 Accepted' });
    expectError(await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
    // Removed at once: no list shows it any more.
    const listed = await t.get('/api/v4/projects', { token: ROOT_TOKEN, query: { per_page: '100', order_by: 'id' } });
    assert.ok(!(listed.json() as { id: number }[]).some((p) => p.id === project.id));
    const db = t.deps.db;
    assert.equal((await db.selectFrom('members').select('id').where('source_type', '=', 'Project').where('source_id', '=', project.id).execute()).length, 0);
    for (const table of ['project_authorizations', 'project_topics', 'users_star_projects', 'project_custom_attributes', 'project_statistics'] as const) {
      assert.equal((await db.selectFrom(table).select('project_id').where('project_id', '=', project.id).execute()).length, 0, table);
    }
    expectError(await t.del(`/api/v4/projects/${project.id}`, { token: owner.token }), 404, { message: '404 Project Not Found' });
  });

  test('If-Unmodified-Since before the last change: 412, nothing removed', async () => {
    const project = await createProject(t, { creatorId: owner.user.id });
    const earlier = new Date(Date.parse(project.updated_at) - 60_000).toUTCString();
    expectError(await t.del(`/api/v4/projects/${project.id}`, { token: owner.token, headers: { 'if-unmodified-since': earlier } }), 412, {
      message: '412 Precondition Failed',
    });
    expectStatus(await t.get(`/api/v4/projects/${project.id}`, { token: owner.token }), 200);
    const later = new Date(Date.parse(project.updated_at) + 60_000).toUTCString();
    expectStatus(await t.del(`/api/v4/projects/${project.id}`, { token: owner.token, headers: { 'if-unmodified-since': later } }), 202);
  });
});

describe('POST /projects/:id/archive and /unarchive', () => {
  test('role × visibility: owners archive (201, the full form)', async () => {
    for (const action of ['archive', 'unarchive']) {
      await runMatrix(world, {
        // Each call makes a project whose members are the shared callers.
        serial: true,
        expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.OWNER }),
        errors: refusals('Project'),
        call: async ({ caller, visibility }) => {
          const project = await freshMatrixProject(visibility);
          return t.post(`/api/v4/projects/${project.id}/${action}`, { token: caller.token });
        },
        verify(res) {
          expectEntity(res.json(), ProjectEntity);
          assert.equal(res.json().archived, action === 'archive');
          assert.equal('runners_token' in res.json(), false);
        },
      });
    }
  });

  test('archiving is idempotent and filters the lists; archived projects take no merge requests but stay readable', async () => {
    const project = await createProject(t, { creatorId: owner.user.id, path: 'to-archive' });
    for (let i = 0; i < 2; i++) {
      const res = await t.post(`/api/v4/projects/${project.id}/archive`, { token: owner.token });
      expectStatus(res, 201);
      assert.equal(res.json().archived, true);
    }
    const archived = await t.get('/api/v4/projects', { token: owner.token, query: { archived: 'true', owned: 'true' } });
    assert.deepEqual(
      archived.json().map((p: { id: number }) => p.id),
      [project.id],
    );
    const active = await t.get('/api/v4/projects', { token: owner.token, query: { archived: 'false' } });
    assert.ok(!active.json().some((p: { id: number }) => p.id === project.id));
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, { token: owner.token })).json().can_create_merge_request_in, false);
    const back = await t.post(`/api/v4/projects/${project.id}/unarchive`, { token: owner.token });
    expectStatus(back, 201);
    assert.equal(back.json().archived, false);
  });
});

describe('POST /projects/:id/star and /unstar', () => {
  test('role × visibility: every signed-in reader stars (201), then 304', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required' }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/star`, { token: caller.token }),
      verify(res) {
        expectEntity(res.json(), ProjectEntity);
      },
    });
    // Everyone who may read starred each project once.
    const counts = await t.deps.db.selectFrom('projects').select(['visibility_level', 'star_count']).where('id', 'in', Object.values(world.projects).map((p) => p.id)).execute();
    assert.deepEqual(Object.fromEntries(counts.map((c) => [c.visibility_level, c.star_count])), { 0: 6, 10: 7, 20: 8 });
    await runMatrix(world, {
      expect: expectation({ success: 304, auth: 'required' }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/star`, { token: caller.token }),
    });
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required' }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/unstar`, { token: caller.token }),
      verify(res) {
        expectEntity(res.json(), ProjectEntity);
      },
    });
    await runMatrix(world, {
      expect: expectation({ success: 304, auth: 'required' }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/unstar`, { token: caller.token }),
    });
    const after = await t.deps.db.selectFrom('projects').select('star_count').where('id', 'in', Object.values(world.projects).map((p) => p.id)).execute();
    assert.deepEqual(
      after.map((c) => c.star_count),
      [0, 0, 0],
    );
  });

  test('star_count in the answer and the starred filter', async () => {
    const project = await createProject(t, { visibility: 'public' });
    const fan = await t.user();
    const res = await t.post(`/api/v4/projects/${project.id}/star`, { token: fan.token });
    expectStatus(res, 201);
    assert.equal(res.json().star_count, 1);
    const starred = await t.get('/api/v4/projects', { token: fan.token, query: { starred: 'true' } });
    expectStatus(starred, 200);
    assert.deepEqual(
      starred.json().map((p: { id: number }) => p.id),
      [project.id],
    );
    const unstar = await t.post(`/api/v4/projects/${project.id}/unstar`, { token: fan.token });
    assert.equal(unstar.json().star_count, 0);
  });
});

describe('/projects/:id/custom_attributes', () => {
  let project: ProjectRow;
  let path: string;

  before(async () => {
    project = await createProject(t, { creatorId: owner.user.id, visibility: 'private' });
    path = `/api/v4/projects/${project.id}/custom_attributes`;
  });

  test('an administrator sets, reads, lists and deletes them', async () => {
    const set = await t.put(`${path}/colour`, { token: ROOT_TOKEN, body: { value: 'blue' } });
    expectStatus(set, 200);
    assert.deepEqual(set.json(), { key: 'colour', value: 'blue' });
    expectStatus(await t.put(`${path}/size`, { token: ROOT_TOKEN, form: 'value=big' }), 200);
    expectStatus(await t.put(`${path}/colour`, { token: ROOT_TOKEN, body: { value: 'red' } }), 200);
    const list = await t.get(path, { token: ROOT_TOKEN });
    expectEntities(list.json(), CustomAttributeEntity);
    assert.deepEqual(list.json(), [
      { key: 'colour', value: 'red' },
      { key: 'size', value: 'big' },
    ]);
    assert.deepEqual((await t.get(`${path}/size`, { token: ROOT_TOKEN })).json(), { key: 'size', value: 'big' });
    // They filter the list and come with it on request.
    const filtered = await t.get('/api/v4/projects', { token: ROOT_TOKEN, query: { 'custom_attributes[colour]': 'red', with_custom_attributes: 'true' } });
    assert.deepEqual(
      filtered.json().map((p: { id: number; custom_attributes: unknown }) => [p.id, p.custom_attributes]),
      [
        [
          project.id,
          [
            { key: 'colour', value: 'red' },
            { key: 'size', value: 'big' },
          ],
        ],
      ],
    );
    const res = await t.del(`${path}/size`, { token: ROOT_TOKEN });
    expectStatus(res, 204);
    expectError(await t.get(`${path}/size`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.del(`${path}/size`, { token: ROOT_TOKEN }), 404, { message: '404 Custom attribute Not Found' });
    expectError(await t.put(`${path}/empty`, { token: ROOT_TOKEN, body: { value: ' ' } }), 400, { message: { value: ["can't be blank"] } });
    expectError(await t.put(`${path}/empty`, { token: ROOT_TOKEN, body: {} }), 400, { error: 'value is missing' });
  });

  test('anyone else: the project is looked up first, then 403 (401 for anonymous writes)', async () => {
    const member = await t.user();
    await addMember(t, project, member.user.id, ACCESS.MAINTAINER);
    for (const token of [undefined, member.token, owner.token]) {
      expectError(await t.get(path, { token }), 403, { message: '403 Forbidden' });
      expectError(await t.get(`${path}/colour`, { token }), 403, { message: '403 Forbidden' });
    }
    expectError(await t.put(`${path}/colour`, { body: { value: 'x' } }), 401, { message: '401 Unauthorized' });
    expectError(await t.put(`${path}/colour`, { token: owner.token, body: { value: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(`${path}/colour`, { token: owner.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/projects/999999/custom_attributes', { token: owner.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.get('/api/v4/projects/999999/custom_attributes', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
    assert.deepEqual((await t.get(`${path}/colour`, { token: ROOT_TOKEN })).json(), { key: 'colour', value: 'red' });
  });
});
