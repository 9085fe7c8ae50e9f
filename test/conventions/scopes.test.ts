// Token scopes (notes §3.3): api everywhere, read_api on reads (HEAD included), read_user on user
// reads, /version and /metadata; the insufficient_scope body lists every scope the route
// registers; admin_mode decides administrator rights when admin mode is on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';
import { MetadataEntity } from '../../src/modules/metadata/metadata.routes.ts';
import { PersonalAccessTokenEntity } from '../../src/modules/access-tokens/access-tokens.schemas.ts';
import { UserAdminEntity, UserBasicEntity, UserEntity, UserSelfEntity } from '../../src/modules/users/users.schemas.ts';

const DESCRIPTION = 'The request requires higher privileges than provided by the access token.';
const insufficient = (scope: string) => ({ error: 'insufficient_scope', error_description: DESCRIPTION, scope });
const newUser = (username: string) => ({ username, email: `${username}@example.com`, name: username, password: PASSWORD });

let t: TestApp;
let readApi: string;
let readUser: string;
let readRepository: string;
let api: string;
let targetId: number;

before(async () => {
  t = await createTestApp();
  api = (await t.user({ username: 'apiuser' }, ['api'])).token;
  readApi = (await t.user({ username: 'readapi' }, ['read_api'])).token;
  readUser = (await t.user({ username: 'readuser' }, ['read_user'])).token;
  const target = await t.user({ username: 'readrepo' }, ['read_repository']);
  readRepository = target.token;
  targetId = target.user.id;
});
after(() => t.close());

describe('api', () => {
  test('reads and writes', async () => {
    const read = await t.get('/api/v4/user', { token: api });
    expectStatus(read, 200);
    expectEntity(read.json(), UserSelfEntity);
    // Authenticated but not an administrator: the scope let the request through.
    expectError(await t.post('/api/v4/users', { token: api, body: newUser('viaapi') }), 403, { message: '403 Forbidden' });
  });
});

describe('read_api', () => {
  test('GET is allowed', async () => {
    const res = await t.get('/api/v4/personal_access_tokens', { token: readApi });
    expectStatus(res, 200);
    expectEntities(res.json(), PersonalAccessTokenEntity);
  });

  test('HEAD counts as a read', async () => {
    const res = await t.request('HEAD', '/api/v4/user', { token: readApi });
    expectStatus(res, 200);
    assert.equal(res.body, '');
  });

  test('POST, PUT and DELETE are refused with the route\'s scopes', async () => {
    const before = await t.count('users');
    expectError(await t.post('/api/v4/users', { token: readApi, body: newUser('viareadapi') }), 403, insufficient('read_user api read_api'));
    expectError(await t.put(`/api/v4/users/${targetId}`, { token: readApi, body: { name: 'x' } }), 403, insufficient('read_user api read_api'));
    expectError(await t.del(`/api/v4/personal_access_tokens/1`, { token: readApi }), 403, insufficient('api read_api'));
    assert.equal(await t.count('users'), before);
  });

  test('the 403 carries no WWW-Authenticate', async () => {
    const res = await t.post('/api/v4/users', { token: readApi, body: newUser('viareadapi2') });
    expectStatus(res, 403);
    assert.equal(res.headers['www-authenticate'], undefined);
  });
});

describe('read_user', () => {
  test('GET /user, /users, /users/:id, /version and /metadata are allowed', async () => {
    const self = await t.get('/api/v4/user', { token: readUser });
    expectStatus(self, 200);
    expectEntity(self.json(), UserSelfEntity);
    const list = await t.get('/api/v4/users', { token: readUser });
    expectStatus(list, 200);
    expectEntities(list.json(), UserBasicEntity);
    const one = await t.get(`/api/v4/users/${targetId}`, { token: readUser });
    expectStatus(one, 200);
    expectEntity(one.json(), UserEntity);
    for (const path of ['/api/v4/version', '/api/v4/metadata']) {
      const res = await t.get(path, { token: readUser });
      expectStatus(res, 200);
      expectEntity(res.json(), MetadataEntity);
    }
  });

  test('HEAD on a user read is allowed', async () => {
    expectStatus(await t.request('HEAD', '/api/v4/users', { token: readUser }), 200);
  });

  test('refused elsewhere, with the scopes that route accepts', async () => {
    expectError(await t.get('/api/v4/personal_access_tokens', { token: readUser }), 403, insufficient('api read_api'));
    const head = await t.request('HEAD', '/api/v4/personal_access_tokens', { token: readUser });
    expectStatus(head, 403);
    assert.equal(head.body, '');
  });

  test('writes to users are refused: read_user applies to reads only', async () => {
    expectError(await t.post('/api/v4/users', { token: readUser, body: newUser('viareaduser') }), 403, insufficient('read_user api read_api'));
  });
});

describe('a scope no API route accepts', () => {
  test('read_repository is refused on API reads', async () => {
    expectError(await t.get('/api/v4/user', { token: readRepository }), 403, insufficient('read_user api read_api'));
    expectError(await t.get('/api/v4/version', { token: readRepository }), 403, insufficient('read_user api read_api'));
    expectError(await t.get('/api/v4/personal_access_tokens', { token: readRepository }), 403, insufficient('api read_api'));
  });

  test('but a token may always read and revoke itself', async () => {
    const res = await t.get('/api/v4/personal_access_tokens/self', { token: readRepository });
    expectStatus(res, 200);
    expectEntity(res.json(), PersonalAccessTokenEntity);
    assert.deepEqual(res.json().scopes, ['read_repository']);
  });
});

describe('OAuth tokens carry scopes too', () => {
  test('a read_user OAuth token reads /user and cannot write', async () => {
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'apiuser', password: PASSWORD, scope: 'read_user' } });
    expectStatus(grant, 200);
    const bearer = { authorization: `Bearer ${grant.json().access_token}` };
    expectStatus(await t.get('/api/v4/user', { headers: bearer }), 200);
    expectError(await t.get('/api/v4/personal_access_tokens', { headers: bearer }), 403, insufficient('api read_api'));
    expectError(await t.post('/api/v4/users', { headers: bearer, body: newUser('viaoauth') }), 403, insufficient('read_user api read_api'));
  });
});

describe('admin_mode', () => {
  test('with admin mode off, any administrator token acts as administrator', async () => {
    const res = await t.post(`/api/v4/users/1/personal_access_tokens`, { token: ROOT_TOKEN, body: { name: 'plain admin', scopes: ['api'] } });
    expectStatus(res, 201);
    const plain = res.json().token;
    const user = await t.get('/api/v4/user', { token: plain });
    expectEntity(user.json(), UserAdminEntity);
    expectStatus(await t.post('/api/v4/users', { token: plain, body: newUser('adminmodeoff') }), 201);
  });

  test('with admin mode on, an administrator needs the admin_mode scope', async () => {
    const on = await createTestApp({ QUARRY_ADMIN_MODE: 'true' });
    try {
      // The root token carries every scope, admin_mode included.
      expectStatus(await on.post('/api/v4/users', { token: ROOT_TOKEN, body: newUser('withscope') }), 201);
      const plain = await on.post('/api/v4/users/1/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'no admin mode', scopes: ['api'] } });
      expectStatus(plain, 201);
      const token = plain.json().token;
      expectError(await on.post('/api/v4/users', { token, body: newUser('withoutscope') }), 403, { message: '403 Forbidden' });
      // Without admin mode the administrator reads itself in the ordinary form.
      const self = await on.get('/api/v4/user', { token });
      expectStatus(self, 200);
      expectEntity(self.json(), UserSelfEntity);
      const withScope = await on.post('/api/v4/users/1/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'admin mode', scopes: ['api', 'admin_mode'] } });
      expectStatus(withScope, 201);
      const admin = await on.get('/api/v4/user', { token: withScope.json().token });
      expectEntity(admin.json(), UserAdminEntity);
    } finally {
      await on.close();
    }
  });

  test('admin_mode alone is not enough to call the API', async () => {
    const res = await t.post('/api/v4/users/1/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'only admin mode', scopes: ['admin_mode'] } });
    expectStatus(res, 201);
    expectError(await t.get('/api/v4/user', { token: res.json().token }), 403, insufficient('read_user api read_api'));
  });
});
