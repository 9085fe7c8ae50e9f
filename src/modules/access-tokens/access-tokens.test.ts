// Personal access token and impersonation token routes, with the platform's entities and statuses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import {
  ImpersonationTokenEntity,
  ImpersonationTokenWithSecretEntity,
  PersonalAccessTokenEntity,
  PersonalAccessTokenWithSecretEntity,
} from './access-tokens.schemas.ts';
import { issueToken, revokeToken } from './access-tokens.service.ts';
import { atTime, systemContext } from '../../core/context.ts';

const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
});
after(() => t.close());

describe('POST /users/:user_id/personal_access_tokens', () => {
  const path = () => `/api/v4/users/${alice.user.id}/personal_access_tokens`;

  test('an administrator creates a token for a user: 201 with the secret, which works', async () => {
    const res = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'ci', scopes: ['api', 'read_user'], expires_at: day(30) } });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, PersonalAccessTokenWithSecretEntity);
    assert.equal(body.name, 'ci');
    assert.deepEqual(body.scopes, ['api', 'read_user']);
    assert.equal(body.user_id, alice.user.id);
    assert.equal(body.expires_at, day(30));
    assert.equal(body.active, true);
    assert.equal(body.revoked, false);
    assert.equal(body.last_used_at, null);
    const me = await t.get('/api/v4/user', { token: body.token });
    expectStatus(me, 200);
    assert.equal(me.json().id, alice.user.id);
  });

  test('form bodies and comma-separated scopes', async () => {
    const res = await t.post(path(), { token: ROOT_TOKEN, form: 'name=form&scopes=read_api,read_user' });
    expectStatus(res, 201);
    expectEntity(res.json(), PersonalAccessTokenWithSecretEntity);
    assert.deepEqual(res.json().scopes, ['read_api', 'read_user']);
    assert.equal(res.json().expires_at, null);
  });

  test('anonymous 401, non-administrator 403, before the parameters are looked at', async () => {
    const before = await t.count('personal_access_tokens');
    expectError(await t.post(path(), { body: { name: 'x', scopes: ['api'] } }), 401, { message: '401 Unauthorized' });
    expectError(await t.post(path(), { token: alice.token, body: { name: 'x', scopes: ['api'] } }), 403, { message: '403 Forbidden' });
    expectError(await t.post(path(), { token: alice.token, body: {} }), 403, { message: '403 Forbidden' });
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('an unknown user is 404', async () => {
    expectError(await t.post('/api/v4/users/99999/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api'] } }), 404, {
      message: '404 User Not Found',
    });
  });

  test('parameter errors', async () => {
    const before = await t.count('personal_access_tokens');
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { scopes: ['api'] } }), 400, { error: 'name is missing' });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x' } }), 400, { error: 'scopes is missing' });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: {} }), 400, { error: 'name is missing, scopes is missing' });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api', 'everything'] } }), 400, {
      error: 'scopes does not have a valid value',
    });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api'], expires_at: 'soon' } }), 400, { error: 'expires_at is invalid' });
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('model validation: 422 with the errors as one sentence', async () => {
    const before = await t.count('personal_access_tokens');
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: '  ', scopes: ['api'] } }), 422, { message: "Name can't be blank" });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: [] } }), 422, { message: "Scopes can't be blank" });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: '', scopes: [] } }), 422, { message: "Name can't be blank and Scopes can't be blank" });
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('administrators\' scopes only for administrators', async () => {
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api', 'sudo'] } }), 422, {
      message: 'Scopes can only contain available scopes',
    });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: ['admin_mode'] } }), 422, {
      message: 'Scopes can only contain available scopes',
    });
    const forAdmin = await t.post('/api/v4/users/1/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api', 'sudo', 'admin_mode'] } });
    expectStatus(forAdmin, 201);
    expectEntity(forAdmin.json(), PersonalAccessTokenWithSecretEntity);
  });
});

describe('GET /personal_access_tokens', () => {
  let carol: TestUser;
  let carolTokens: number[];
  before(async () => {
    carol = await t.user({ username: 'carol' });
    const ctx = atTime(systemContext(t.deps), t.deps.now());
    const expired = await issueToken(ctx, { userId: carol.user.id, name: 'Old Deploy', scopes: ['read_api'], expiresAt: day(-1) }, carol.user);
    const revoked = await issueToken(ctx, { userId: carol.user.id, name: 'revoked one', scopes: ['api'] }, carol.user);
    await revokeToken(ctx, revoked.row.id);
    const deploy = await issueToken(ctx, { userId: carol.user.id, name: 'deploy key', scopes: ['api'], expiresAt: day(5) }, carol.user);
    await issueToken(ctx, { userId: carol.user.id, name: 'impersonation', scopes: ['api'], impersonation: true }, carol.user);
    const first = await t.deps.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', carol.user.id).orderBy('id').executeTakeFirstOrThrow();
    carolTokens = [first.id, expired.row.id, revoked.row.id, deploy.row.id];
  });

  const ids = (res: Awaited<ReturnType<TestApp['get']>>) => (res.json() as { id: number }[]).map((r) => r.id);

  test('a user sees their own tokens, impersonation tokens left out', async () => {
    const res = await t.get('/api/v4/personal_access_tokens', { token: carol.token });
    expectStatus(res, 200);
    expectEntities(res.json(), PersonalAccessTokenEntity);
    assert.deepEqual(ids(res), carolTokens);
    assert.equal(res.headers['x-total'], '4');
    assert.equal(res.headers['x-page'], '1');
    assert.equal(res.headers['x-per-page'], '20');
  });

  test('user_id: a user may name themself; anyone else is 401', async () => {
    const own = await t.get('/api/v4/personal_access_tokens', { token: carol.token, query: { user_id: String(carol.user.id) } });
    assert.deepEqual(ids(own), carolTokens);
    expectError(await t.get('/api/v4/personal_access_tokens', { token: carol.token, query: { user_id: String(alice.user.id) } }), 401, {
      message: '401 Unauthorized',
    });
  });

  test('an administrator sees every user\'s tokens, or one user\'s (impersonation tokens included)', async () => {
    const all = await t.get('/api/v4/personal_access_tokens', { token: ROOT_TOKEN, query: { per_page: '100' } });
    expectStatus(all, 200);
    expectEntities(all.json(), PersonalAccessTokenEntity);
    assert.equal(Number(all.headers['x-total']), await t.count('personal_access_tokens'));
    const one = await t.get('/api/v4/personal_access_tokens', { token: ROOT_TOKEN, query: { user_id: String(carol.user.id) } });
    assert.equal(ids(one).length, 5);
    expectError(await t.get('/api/v4/personal_access_tokens', { token: ROOT_TOKEN, query: { user_id: '99999' } }), 404, { message: '404 Not Found' });
  });

  test('state, revoked and search filters', async () => {
    const get = (query: Record<string, string>) => t.get('/api/v4/personal_access_tokens', { token: carol.token, query });
    assert.deepEqual(ids(await get({ state: 'active' })), [carolTokens[0], carolTokens[3]]);
    assert.deepEqual(ids(await get({ state: 'inactive' })), [carolTokens[1], carolTokens[2]]);
    assert.deepEqual(ids(await get({ revoked: 'true' })), [carolTokens[2]]);
    assert.deepEqual(ids(await get({ revoked: 'false' })), [carolTokens[0], carolTokens[1], carolTokens[3]]);
    assert.deepEqual(ids(await get({ search: 'DEPLOY' })), [carolTokens[1], carolTokens[3]]);
    assert.deepEqual(ids(await get({ search: 'old deploy' })), [carolTokens[1]]);
    assert.deepEqual(ids(await get({ search: '%' })), []);
    assert.deepEqual(ids(await get({ expires_before: day(0) })), [carolTokens[1]]);
    assert.deepEqual(ids(await get({ expires_after: day(0) })), [carolTokens[3]]);
    expectError(await get({ state: 'gone' }), 400, { error: 'state does not have a valid value' });
    expectError(await get({ revoked: 'maybe' }), 400, { error: 'revoked is invalid' });
  });

  test('pagination headers and links', async () => {
    const res = await t.get('/api/v4/personal_access_tokens', { token: carol.token, query: { per_page: '3', page: '2' } });
    expectStatus(res, 200);
    assert.deepEqual(ids(res), [carolTokens[3]]);
    assert.equal(res.headers['x-total'], '4');
    assert.equal(res.headers['x-total-pages'], '2');
    assert.equal(res.headers['x-next-page'], '');
    assert.equal(res.headers['x-prev-page'], '1');
    assert.equal(
      res.headers.link,
      '<http://quarry.test/api/v4/personal_access_tokens?page=1&per_page=3>; rel="prev", ' +
        '<http://quarry.test/api/v4/personal_access_tokens?page=1&per_page=3>; rel="first", ' +
        '<http://quarry.test/api/v4/personal_access_tokens?page=2&per_page=3>; rel="last"',
    );
  });

  test('anonymous 401', async () => {
    expectError(await t.get('/api/v4/personal_access_tokens'), 401, { message: '401 Unauthorized' });
  });
});

describe('GET /personal_access_tokens/self and /:id', () => {
  test('self shows the token used', async () => {
    const res = await t.get('/api/v4/personal_access_tokens/self', { token: alice.token });
    expectStatus(res, 200);
    expectEntity(res.json(), PersonalAccessTokenEntity);
    assert.equal(res.json().user_id, alice.user.id);
    assert.equal(res.json().name, 'test');
    assert.ok(res.json().last_used_at);
  });

  test('self is 400 for a credential that is not a personal token', async () => {
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'alice', password: 'correct-horse-9' } });
    const res = await t.get('/api/v4/personal_access_tokens/self', { headers: { authorization: `Bearer ${grant.json().access_token}` } });
    expectError(res, 400, { message: '400 Bad request - This endpoint requires token type to be a personal access token' });
  });

  test('one\'s own token by id', async () => {
    const self = await t.get('/api/v4/personal_access_tokens/self', { token: alice.token });
    const res = await t.get(`/api/v4/personal_access_tokens/${self.json().id}`, { token: alice.token });
    expectStatus(res, 200);
    expectEntity(res.json(), PersonalAccessTokenEntity);
    assert.deepEqual(res.json(), self.json());
  });

  test('another user\'s token, or a missing one: 401 for users, 404 only for administrators', async () => {
    const bobs = await t.get('/api/v4/personal_access_tokens/self', { token: bob.token });
    expectError(await t.get(`/api/v4/personal_access_tokens/${bobs.json().id}`, { token: alice.token }), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/personal_access_tokens/99999', { token: alice.token }), 401, { message: '401 Unauthorized' });
    const asAdmin = await t.get(`/api/v4/personal_access_tokens/${bobs.json().id}`, { token: ROOT_TOKEN });
    expectStatus(asAdmin, 200);
    expectEntity(asAdmin.json(), PersonalAccessTokenEntity);
    expectError(await t.get('/api/v4/personal_access_tokens/99999', { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.get('/api/v4/personal_access_tokens/abc', { token: ROOT_TOKEN }), 400, { error: 'id is invalid' });
  });
});

describe('DELETE /personal_access_tokens/:id and /self', () => {
  test('a user revokes their own token: 204, then it stops working', async () => {
    const { row, token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'doomed', scopes: ['api'] }, alice.user);
    const res = await t.del(`/api/v4/personal_access_tokens/${row.id}`, { token: alice.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    const after = await t.get(`/api/v4/personal_access_tokens/${row.id}`, { token: alice.token });
    assert.equal(after.json().revoked, true);
    assert.equal(after.json().active, false);
    expectError(await t.get('/api/v4/user', { token }), 401, REVOKED);
  });

  test('another user\'s token is 400; a missing one is the record 404', async () => {
    const { row } = await issueToken(systemContext(t.deps), { userId: bob.user.id, name: 'bobs', scopes: ['api'] }, bob.user);
    expectError(await t.del(`/api/v4/personal_access_tokens/${row.id}`, { token: alice.token }), 400, { message: '400 Bad request' });
    expectError(await t.del('/api/v4/personal_access_tokens/99999', { token: alice.token }), 404, { message: '404 Not found' });
    expectStatus(await t.del(`/api/v4/personal_access_tokens/${row.id}`, { token: ROOT_TOKEN }), 204);
  });

  test('revoking twice is fine', async () => {
    const { row } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'twice', scopes: ['api'] }, alice.user);
    expectStatus(await t.del(`/api/v4/personal_access_tokens/${row.id}`, { token: alice.token }), 204);
    expectStatus(await t.del(`/api/v4/personal_access_tokens/${row.id}`, { token: alice.token }), 204);
  });

  test('DELETE /self revokes the token used, whatever its scopes', async () => {
    const { token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'self', scopes: ['read_repository'] }, alice.user);
    expectStatus(await t.del('/api/v4/personal_access_tokens/self', { token }), 204);
    expectError(await t.get('/api/v4/personal_access_tokens/self', { token }), 401, REVOKED);
    expectError(await t.del('/api/v4/personal_access_tokens/self', { token }), 401, REVOKED);
  });

  test('DELETE /self with an OAuth token is 400', async () => {
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'alice', password: 'correct-horse-9' } });
    const res = await t.del('/api/v4/personal_access_tokens/self', { headers: { authorization: `Bearer ${grant.json().access_token}` } });
    expectError(res, 400, { message: '400 Bad request - This endpoint requires token type to be a personal access token' });
  });
});

describe('impersonation tokens', () => {
  const path = () => `/api/v4/users/${alice.user.id}/impersonation_tokens`;

  test('POST creates one: 201 with the secret; it authenticates as the user', async () => {
    const res = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'support', scopes: ['api'], expires_at: day(10) } });
    expectStatus(res, 201);
    expectEntity(res.json(), ImpersonationTokenWithSecretEntity);
    assert.equal(res.json().impersonation, true);
    assert.equal(res.json().user_id, alice.user.id);
    const me = await t.get('/api/v4/user', { token: res.json().token });
    expectStatus(me, 200);
    assert.equal(me.json().username, 'alice');
    const self = await t.get('/api/v4/personal_access_tokens/self', { token: res.json().token });
    expectStatus(self, 200);
    assert.equal(self.json().id, res.json().id);
  });

  test('administrators only; unknown users 404', async () => {
    const before = await t.count('personal_access_tokens');
    expectError(await t.get(path()), 401, { message: '401 Unauthorized' });
    expectError(await t.get(path(), { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(path(), { token: alice.token, body: { name: 'x', scopes: ['api'] } }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/users/99999/impersonation_tokens', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectError(await t.post('/api/v4/users/99999/impersonation_tokens', { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api'] } }), 404, {
      message: '404 User Not Found',
    });
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('validation: parameters, then the model\'s field messages', async () => {
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { scopes: ['api'] } }), 400, { error: 'name is missing' });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x' } }), 400, { message: { scopes: ["can't be blank"] } });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: ' ', scopes: ['nope'] } }), 400, {
      message: { name: ["can't be blank"], scopes: ['can only contain available scopes'] },
    });
    expectError(await t.post(path(), { token: ROOT_TOKEN, body: { name: 'x', scopes: ['sudo'] } }), 400, {
      message: { scopes: ['can only contain available scopes'] },
    });
  });

  test('GET lists them with a state filter', async () => {
    const dave = await t.user({ username: 'dave' });
    const p = `/api/v4/users/${dave.user.id}/impersonation_tokens`;
    const active = await t.post(p, { token: ROOT_TOKEN, body: { name: 'active', scopes: ['api'] } });
    const gone = await t.post(p, { token: ROOT_TOKEN, body: { name: 'gone', scopes: ['api'] } });
    expectStatus(await t.del(`${p}/${gone.json().id}`, { token: ROOT_TOKEN }), 204);
    const list = (state?: string) => t.get(p, { token: ROOT_TOKEN, query: state ? { state } : {} });
    const all = await list();
    expectStatus(all, 200);
    expectEntities(all.json(), ImpersonationTokenEntity);
    assert.deepEqual(all.json().map((r: { id: number }) => r.id), [active.json().id, gone.json().id]);
    assert.equal(all.headers['x-total'], '2');
    assert.deepEqual((await list('active')).json().map((r: { id: number }) => r.id), [active.json().id]);
    assert.deepEqual((await list('inactive')).json().map((r: { id: number }) => r.id), [gone.json().id]);
    expectError(await list('bogus'), 400, { error: 'state does not have a valid value' });
  });

  test('GET one, and 404 "Impersonation Token Not Found" for a personal token or another user\'s', async () => {
    const created = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'one', scopes: ['read_api'] } });
    const res = await t.get(`${path()}/${created.json().id}`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), ImpersonationTokenEntity);
    assert.equal(res.json().name, 'one');
    const notFound = { message: '404 Impersonation Token Not Found' };
    const personal = await t.get('/api/v4/personal_access_tokens/self', { token: alice.token });
    expectError(await t.get(`${path()}/${personal.json().id}`, { token: ROOT_TOKEN }), 404, notFound);
    expectError(await t.get(`/api/v4/users/${bob.user.id}/impersonation_tokens/${created.json().id}`, { token: ROOT_TOKEN }), 404, notFound);
    expectError(await t.get(`${path()}/99999`, { token: ROOT_TOKEN }), 404, notFound);
    expectError(await t.del(`${path()}/99999`, { token: ROOT_TOKEN }), 404, notFound);
  });

  test('DELETE revokes: 204, then the token stops working', async () => {
    const created = await t.post(path(), { token: ROOT_TOKEN, body: { name: 'bye', scopes: ['api'] } });
    const res = await t.del(`${path()}/${created.json().id}`, { token: ROOT_TOKEN });
    expectStatus(res, 204);
    expectError(await t.get('/api/v4/user', { token: created.json().token }), 401, REVOKED);
    const shown = await t.get(`${path()}/${created.json().id}`, { token: ROOT_TOKEN });
    assert.equal(shown.json().revoked, true);
    assert.equal(shown.json().active, false);
  });
});
