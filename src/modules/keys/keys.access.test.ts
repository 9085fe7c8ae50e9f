// Who may call each key route. A project's deploy keys are for those who administer the project
// (maintainers and owners; a project the caller may not see is a 404, one they see without the
// role a 403, anonymous callers a 401). The instance's deploy keys and the look-ups of any key are
// for administrators; users' own keys for any signed-in user; another user's keys are read by
// anyone and written by administrators. A blocked account is refused everywhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixCall, type MatrixWorld, type Role, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { sshKey } from '../../../test/fixtures/ssh-keys.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { DeployKeyEntity, DeployKeysProjectEntity } from './deploy-keys.schemas.ts';
import { DeployKeyWithUserEntity, SshKeyEntity, SshKeyWithUserEntity } from './keys.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
/** A deploy key of each project, and a key of another project that every maintainer reaches (public). */
const keyOf = new Map<number, number>();
let publicKeyId: number;
let someone: { id: number; keyId: number; fingerprint: string };

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) keyOf.set(project.id, await rootAdds(project.id));
  const elsewhere = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'key-source' } });
  publicKeyId = await rootAdds(elsewhere.json().id);
  await t.deps.db.updateTable('keys').set({ public: true }).where('id', '=', publicKeyId).execute();
  const user = await t.user({ username: 'key-owner' });
  const key = sshKey();
  const added = await t.post('/api/v4/user/keys', { token: user.token, body: { title: 'Owned', key: key.text } });
  someone = { id: user.user.id, keyId: added.json().id, fingerprint: key.sha256 };
});
after(() => t.close());

/** Root adds a new deploy key to a project; its id. */
async function rootAdds(projectId: number): Promise<number> {
  const res = await t.post(`/api/v4/projects/${projectId}/deploy_keys`, { token: ROOT_TOKEN, body: { title: 'Root’s', key: sshKey().text } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/deploy_keys`;
const maintainers = expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER });
const withStatus = (expect: Expectation, status: number): Expectation => (role, visibility) => {
  const got = expect(role, visibility);
  return got === 200 ? status : got;
};

test('GET /projects/:id/deploy_keys and /:key_id', async () => {
  await runMatrix(world, { expect: maintainers, errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), DeployKeysProjectEntity) });
  await runMatrix(world, {
    expect: maintainers,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${keyOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), DeployKeysProjectEntity),
  });
});

test('POST /projects/:id/deploy_keys', async () => {
  await runMatrix(world, {
    expect: withStatus(maintainers, 201),
    errors: refusals('Project'),
    call: (c) => t.post(base(c), { token: c.caller.token, body: { title: `by ${c.role}`, key: sshKey().text } }),
    verify: (res) => expectEntity(res.json(), DeployKeysProjectEntity),
  });
});

test('PUT /projects/:id/deploy_keys/:key_id', async () => {
  await runMatrix(world, {
    expect: maintainers,
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/${keyOf.get(c.project.id)}`, { token: c.caller.token, body: { title: `renamed by ${c.role}`, can_push: c.role === 'owner' } }),
    verify: (res) => expectEntity(res.json(), DeployKeysProjectEntity),
  });
});

test('POST /projects/:id/deploy_keys/:key_id/enable (a public key)', async () => {
  await runMatrix(world, {
    expect: withStatus(maintainers, 201),
    errors: refusals('Project'),
    call: (c) => t.post(`${base(c)}/${publicKeyId}/enable`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), DeployKeyEntity),
  });
});

test('DELETE /projects/:id/deploy_keys/:key_id', async () => {
  await runMatrix(world, {
    expect: withStatus(maintainers, 204),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${await rootAdds(c.project.id)}`, { token: c.caller.token }),
  });
});

// ---- Routes of no project: the visibility plays no part ----------------------------------------

const FORBIDDEN = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };

/** Administrators only: 401 anonymous, 403 for everyone else. */
const administrators = (success: number): Expectation => (role) => (role === 'anonymous' ? 401 : role === 'admin' ? success : 403);
/** Any signed-in user whose account is not blocked. */
const signedIn = (success: number): Expectation => (role: Role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : success);

test('GET /deploy_keys, GET /keys/:id, GET /keys?fingerprint=', async () => {
  await runMatrix(world, { expect: administrators(200), errors: FORBIDDEN, call: (c) => t.get('/api/v4/deploy_keys', { token: c.caller.token }), verify: (res) => expectEntities(res.json(), DeployKeyEntity) });
  await runMatrix(world, {
    expect: administrators(200),
    errors: FORBIDDEN,
    call: (c) => t.get(`/api/v4/keys/${someone.keyId}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), SshKeyWithUserEntity),
  });
  await runMatrix(world, {
    expect: administrators(200),
    errors: FORBIDDEN,
    call: (c) => t.get('/api/v4/keys', { token: c.caller.token, query: { fingerprint: someone.fingerprint } }),
    verify: (res) => {
      expectEntity(res.json(), SshKeyWithUserEntity);
      assert.equal(res.json().user.id, someone.id);
    },
  });
  // A deploy key's fingerprint answers the deploy key form.
  const stored = await t.deps.db.selectFrom('keys').select('fingerprint').where('id', '=', publicKeyId).executeTakeFirstOrThrow();
  expectEntity((await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint: stored.fingerprint } })).json(), DeployKeyWithUserEntity);
});

test('/user/keys: any signed-in user, for their own keys', async () => {
  await runMatrix(world, { expect: signedIn(200), errors: FORBIDDEN, call: (c) => t.get('/api/v4/user/keys', { token: c.caller.token }), verify: (res) => expectEntities(res.json(), SshKeyEntity) });
  await runMatrix(world, {
    expect: signedIn(201),
    errors: FORBIDDEN,
    call: (c) => t.post('/api/v4/user/keys', { token: c.caller.token, body: { title: `${c.role} ${c.visibility}`, key: sshKey().text } }),
    verify: (res) => expectEntity(res.json(), SshKeyEntity),
  });
  await runMatrix(world, {
    expect: signedIn(204),
    errors: FORBIDDEN,
    call: async (c) => {
      const own = c.role === 'anonymous' || c.role === 'blocked' ? someone.keyId : (await t.post('/api/v4/user/keys', { token: c.caller.token, body: { title: 'x', key: sshKey().text } })).json().id;
      return t.del(`/api/v4/user/keys/${own}`, { token: c.caller.token });
    },
  });
});

test('/users/:id/keys and /:key_id: read by anyone, written by administrators', async () => {
  await runMatrix(world, {
    expect: (role) => (role === 'blocked' ? 403 : 200),
    call: (c) => t.get(`/api/v4/users/${someone.id}/keys`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), SshKeyEntity),
  });
  await runMatrix(world, {
    expect: (role) => (role === 'blocked' ? 403 : 200),
    call: (c) => t.get(`/api/v4/users/${someone.id}/keys/${someone.keyId}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), SshKeyEntity),
  });
  await runMatrix(world, {
    expect: administrators(201),
    errors: FORBIDDEN,
    call: (c) => t.post(`/api/v4/users/${someone.id}/keys`, { token: c.caller.token, body: { title: 'Given', key: sshKey().text } }),
    verify: (res) => expectEntity(res.json(), SshKeyEntity),
  });
  await runMatrix(world, {
    expect: administrators(204),
    errors: FORBIDDEN,
    call: async (c) => {
      const given = await t.post(`/api/v4/users/${someone.id}/keys`, { token: ROOT_TOKEN, body: { title: 'To delete', key: sshKey().text } });
      return t.del(`/api/v4/users/${someone.id}/keys/${given.json().id}`, { token: c.caller.token });
    },
  });
});
