// Who may call each GPG key route and the commit signature route: the caller's own keys for any
// signed-in user; another user's keys read by anyone and written by administrators; a commit's
// signature by whoever may download the project's code. A blocked account is refused everywhere.
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixWorld, type Role, buildMatrixWorld, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { gpgKey, signedCommit } from '../../../test/fixtures/gpg.ts';
import { codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { CommitSignatureEntity, GpgKeyEntity } from './gpg-keys.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let someone: { id: number; keyId: number };
/** A signed commit in each matrix project's repository. */
const signed = new Map<number, string>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  const user = await t.user({ username: 'gpg-owner', email: 'gpg-owner@example.com', skip_confirmation: true });
  const key = await gpgKey([{ name: 'Owner', email: 'gpg-owner@example.com' }]);
  const added = await t.post('/api/v4/user/gpg_keys', { token: user.token, body: { key: key.publicKey } });
  someone = { id: user.user.id, keyId: added.json().id };
  for (const project of Object.values(world.projects)) {
    const repo = await giveRepository(t, project);
    signed.set(project.id, await signedCommit(repo.dir, repo.head, key, { name: 'Owner', email: 'gpg-owner@example.com' }));
  }
});
after(() => t.close());

const FORBIDDEN = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };
const administrators = (success: number): Expectation => (role) => (role === 'anonymous' ? 401 : role === 'admin' ? success : 403);
const signedIn = (success: number): Expectation => (role: Role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : success);
const newKey = async () => (await gpgKey([{ name: 'Anyone', email: 'anyone@example.com' }])).publicKey;

test('/user/gpg_keys: any signed-in user, for their own keys', async () => {
  await runMatrix(world, { expect: signedIn(200), errors: FORBIDDEN, call: (c) => t.get('/api/v4/user/gpg_keys', { token: c.caller.token }), verify: (res) => expectEntities(res.json(), GpgKeyEntity) });
  await runMatrix(world, {
    expect: signedIn(201),
    errors: FORBIDDEN,
    call: async (c) => t.post('/api/v4/user/gpg_keys', { token: c.caller.token, body: { key: await newKey() } }),
    verify: (res) => expectEntity(res.json(), GpgKeyEntity),
  });
  const own = async (token: string | undefined) => (token ? (await t.post('/api/v4/user/gpg_keys', { token, body: { key: await newKey() } })).json().id ?? someone.keyId : someone.keyId);
  await runMatrix(world, {
    expect: signedIn(200),
    errors: FORBIDDEN,
    call: async (c) => t.get(`/api/v4/user/gpg_keys/${await own(c.caller.token)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), GpgKeyEntity),
  });
  await runMatrix(world, { expect: signedIn(204), errors: FORBIDDEN, call: async (c) => t.del(`/api/v4/user/gpg_keys/${await own(c.caller.token)}`, { token: c.caller.token }) });
  await runMatrix(world, { expect: signedIn(202), errors: FORBIDDEN, call: async (c) => t.post(`/api/v4/user/gpg_keys/${await own(c.caller.token)}/revoke`, { token: c.caller.token }) });
});

test('/users/:id/gpg_keys: read by anyone, written by administrators', async () => {
  await runMatrix(world, {
    expect: (role) => (role === 'blocked' ? 403 : 200),
    call: (c) => t.get(`/api/v4/users/${someone.id}/gpg_keys`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), GpgKeyEntity),
  });
  await runMatrix(world, {
    expect: (role) => (role === 'blocked' ? 403 : 200),
    call: (c) => t.get(`/api/v4/users/${someone.id}/gpg_keys/${someone.keyId}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), GpgKeyEntity),
  });
  await runMatrix(world, {
    expect: administrators(201),
    errors: FORBIDDEN,
    call: async (c) => t.post(`/api/v4/users/${someone.id}/gpg_keys`, { token: c.caller.token, body: { key: await newKey() } }),
    verify: (res) => expectEntity(res.json(), GpgKeyEntity),
  });
  const given = async () => (await t.post(`/api/v4/users/${someone.id}/gpg_keys`, { token: ROOT_TOKEN, body: { key: await newKey() } })).json().id;
  await runMatrix(world, { expect: administrators(204), errors: FORBIDDEN, call: async (c) => t.del(`/api/v4/users/${someone.id}/gpg_keys/${await given()}`, { token: c.caller.token }) });
  await runMatrix(world, { expect: administrators(202), errors: FORBIDDEN, call: async (c) => t.post(`/api/v4/users/${someone.id}/gpg_keys/${await given()}/revoke`, { token: c.caller.token }) });
});

test('GET /projects/:id/repository/commits/:sha/signature: whoever downloads the code', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`/api/v4/projects/${c.project.id}/repository/commits/${signed.get(c.project.id)}/signature`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), CommitSignatureEntity),
  });
});
