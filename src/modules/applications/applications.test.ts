// The Applications API: administrators register OAuth applications, list them, renew a secret and
// delete them; the platform's validation messages; nobody else may call it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ApplicationEntity, ApplicationWithSecretEntity } from './applications.schemas.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user();
});
after(() => t.close());

const create = (body: Record<string, unknown>, token = ROOT_TOKEN) => t.post('/api/v4/applications', { token, body });

describe('POST /applications', () => {
  test('201 with the secret, shown once; confidential by default; several redirect URIs', async () => {
    const res = await create({ name: 'My App', redirect_uri: 'https://app.example/callback http://localhost:3000/cb', scopes: 'api read_user openid' });
    expectStatus(res, 201);
    expectEntity(res.json(), ApplicationWithSecretEntity);
    const app = res.json();
    assert.match(app.application_id, /^[0-9a-f]{64}$/);
    assert.match(app.secret, /^[0-9a-f]{64}$/);
    assert.equal(app.application_name, 'My App');
    assert.equal(app.callback_url, 'https://app.example/callback\nhttp://localhost:3000/cb');
    assert.equal(app.confidential, true);
    const row = await t.deps.db.selectFrom('oauth_applications').selectAll().where('id', '=', app.id).executeTakeFirstOrThrow();
    assert.notEqual(row.secret_digest, app.secret, 'the secret is kept as a digest');
    const listed = (await t.get('/api/v4/applications', { token: ROOT_TOKEN })).json().find((a: { id: number }) => a.id === app.id);
    assert.equal(listed.secret, undefined);
  });

  test('confidential=false, and the native out-of-band redirect URI', async () => {
    const res = await create({ name: 'CLI', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read_api', confidential: false });
    expectStatus(res, 201);
    assert.equal(res.json().confidential, false);
  });

  test('missing or blank parameters: 400 in the platform words', async () => {
    expectError(await create({}), 400, { error: 'name is missing, redirect_uri is missing, scopes is missing' });
    expectError(await create({ name: 'x', redirect_uri: 'https://a.example', scopes: '  ' }), 400, { error: 'scopes is empty' });
  });

  test('invalid values: the validation messages of the OAuth provider', async () => {
    expectError(await create({ name: 'x', redirect_uri: 'not a uri', scopes: 'api' }), 400, { message: { redirect_uri: ['must be an absolute URI.'] } });
    expectError(await create({ name: 'x', redirect_uri: 'https://a.example/cb#part', scopes: 'api' }), 400, { message: { redirect_uri: ['cannot contain a fragment.'] } });
    expectError(await create({ name: 'x', redirect_uri: 'https://a.example', scopes: 'api bogus' }), 400, { message: { scopes: ["doesn't match configured on the server."] } });
    expectError(await create({ name: ' ', redirect_uri: 'https://a.example', scopes: 'api' }), 400, { message: { name: ["can't be blank"] } });
  });

  test('administrators only', async () => {
    const body = { name: 'x', redirect_uri: 'https://a.example', scopes: 'api' };
    expectError(await t.post('/api/v4/applications', { body }), 401, { message: '401 Unauthorized' });
    expectError(await create(body, alice.token), 403, { message: '403 Forbidden' });
  });
});

describe('GET /applications', () => {
  test('every application, oldest first, without secrets; administrators only', async () => {
    const res = await t.get('/api/v4/applications', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntities(res.json(), ApplicationEntity);
    const ids = res.json().map((a: { id: number }) => a.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.ok(ids.length >= 2);
    expectError(await t.get('/api/v4/applications', { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/applications'), 401, { message: '401 Unauthorized' });
  });
});

describe('renew-secret and DELETE', () => {
  test('a renewed secret replaces the old one; a deleted application is gone', async () => {
    const app = (await create({ name: 'Short-lived', redirect_uri: 'https://a.example/cb', scopes: 'api' })).json();
    const renewed = await t.post(`/api/v4/applications/${app.id}/renew-secret`, { token: ROOT_TOKEN });
    expectStatus(renewed, 201);
    expectEntity(renewed.json(), ApplicationWithSecretEntity);
    assert.notEqual(renewed.json().secret, app.secret);
    expectError(await t.post(`/api/v4/applications/${app.id}/renew-secret`, { token: alice.token }), 403, { message: '403 Forbidden' });

    expectError(await t.del(`/api/v4/applications/${app.id}`, { token: alice.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(`/api/v4/applications/${app.id}`, { token: ROOT_TOKEN }), 204);
    expectError(await t.del(`/api/v4/applications/${app.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Application Not Found' });
    expectError(await t.post(`/api/v4/applications/${app.id}/renew-secret`, { token: ROOT_TOKEN }), 404, { message: '404 Application Not Found' });
    expectError(await t.del('/api/v4/applications/abc', { token: ROOT_TOKEN }), 400, { error: 'id is invalid' });
  });
});
