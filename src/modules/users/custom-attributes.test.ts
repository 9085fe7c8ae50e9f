// GET/PUT/DELETE /users/:id/custom_attributes[/:key]: administrators only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { CustomAttributeEntity } from './custom-attributes.schemas.ts';

let t: TestApp;
let alice: TestUser;
let path: string;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  path = `/api/v4/users/${alice.user.id}/custom_attributes`;
});
after(() => t.close());

const put = (key: string, body: unknown, token = ROOT_TOKEN) => t.put(`${path}/${key}`, { token, body });

describe('as an administrator', () => {
  test('PUT creates an attribute and answers it', async () => {
    const res = await put('location', { value: 'Antarctica' });
    expectStatus(res, 200);
    expectEntity(res.json(), CustomAttributeEntity);
    assert.deepEqual(res.json(), { key: 'location', value: 'Antarctica' });
  });

  test('PUT replaces the value of an existing key without adding a row', async () => {
    await put('role', { value: 'Developer' });
    const rows = await t.count('user_custom_attributes');
    const res = await put('role', { value: 'Maintainer' });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { key: 'role', value: 'Maintainer' });
    assert.equal(await t.count('user_custom_attributes'), rows);
  });

  test('PUT takes the value from a form body or the query string', async () => {
    expectStatus(await t.put(`${path}/team`, { token: ROOT_TOKEN, form: 'value=red' }), 200);
    const res = await t.put(`${path}/shift`, { token: ROOT_TOKEN, query: { value: 'night' } });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { key: 'shift', value: 'night' });
  });

  test('GET lists them in the order they were first set', async () => {
    const res = await t.get(path, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntities(res.json(), CustomAttributeEntity);
    assert.deepEqual(res.json(), [
      { key: 'location', value: 'Antarctica' },
      { key: 'role', value: 'Maintainer' },
      { key: 'team', value: 'red' },
      { key: 'shift', value: 'night' },
    ]);
  });

  test('GET of one key answers it', async () => {
    const res = await t.get(`${path}/location`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), CustomAttributeEntity);
    assert.deepEqual(res.json(), { key: 'location', value: 'Antarctica' });
  });

  test('keys with dots and encoded characters round-trip', async () => {
    expectStatus(await put('team.lead%20name', { value: 'Ann' }), 200);
    assert.deepEqual((await t.get(`${path}/team.lead%20name`, { token: ROOT_TOKEN })).json(), { key: 'team.lead name', value: 'Ann' });
  });

  test('a user without attributes has an empty list', async () => {
    const other = await t.user();
    const res = await t.get(`/api/v4/users/${other.user.id}/custom_attributes`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
  });

  test('they feed the list filter and with_custom_attributes', async () => {
    const list = await t.get('/api/v4/users', { token: ROOT_TOKEN, query: { 'custom_attributes[team]': 'red', with_custom_attributes: 'true' } });
    assert.deepEqual(
      list.json().map((u: { id: number }) => u.id),
      [alice.user.id],
    );
    assert.deepEqual(list.json()[0].custom_attributes[0], { key: 'location', value: 'Antarctica' });
  });

  test('DELETE answers 204 and the key is gone', async () => {
    const res = await t.del(`${path}/shift`, { token: ROOT_TOKEN });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    expectError(await t.get(`${path}/shift`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  });

  test('a missing key: GET is the generic 404 Not found, DELETE names the custom attribute', async () => {
    expectError(await t.get(`${path}/nothing`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.del(`${path}/nothing`, { token: ROOT_TOKEN }), 404, { message: '404 Custom attribute Not Found' });
  });

  test('an unknown user is 404 Not Found on every route', async () => {
    const missing = '/api/v4/users/999999/custom_attributes';
    expectError(await t.get(missing, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.get(`${missing}/a`, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.put(`${missing}/a`, { token: ROOT_TOKEN, body: { value: 'b' } }), 404, { message: '404 Not Found' });
    expectError(await t.del(`${missing}/a`, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.get('/api/v4/users/alice/custom_attributes', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
  });

  test('value is required and may not be blank', async () => {
    const rows = await t.count('user_custom_attributes');
    expectError(await put('empty', {}), 400, { error: 'value is missing' });
    expectError(await put('empty', { value: '' }), 400, { message: { value: ["can't be blank"] } });
    expectError(await put('empty', { value: '   ' }), 400, { message: { value: ["can't be blank"] } });
    assert.equal(await t.count('user_custom_attributes'), rows);
  });

  test('they go with the user', async () => {
    const doomed = await t.user();
    expectStatus(await t.put(`/api/v4/users/${doomed.user.id}/custom_attributes/x`, { token: ROOT_TOKEN, body: { value: 'y' } }), 200);
    const rows = await t.count('user_custom_attributes');
    expectStatus(await t.del(`/api/v4/users/${doomed.user.id}`, { token: ROOT_TOKEN }), 204);
    assert.equal(await t.count('user_custom_attributes'), rows - 1);
  });
});

describe('as anyone else', () => {
  test('reads are 403 for anonymous and regular callers, even for themselves', async () => {
    for (const token of [undefined, alice.token]) {
      expectError(await t.get(path, { token }), 403, { message: '403 Forbidden' });
      expectError(await t.get(`${path}/location`, { token }), 403, { message: '403 Forbidden' });
    }
  });

  test('writes are 401 anonymous and 403 for regular users, and change nothing', async () => {
    expectError(await t.put(`${path}/location`, { body: { value: 'x' } }), 401, { message: '401 Unauthorized' });
    expectError(await t.del(`${path}/location`), 401, { message: '401 Unauthorized' });
    expectError(await put('location', { value: 'x' }, alice.token), 403, { message: '403 Forbidden' });
    expectError(await t.del(`${path}/location`, { token: alice.token }), 403, { message: '403 Forbidden' });
    assert.deepEqual((await t.get(`${path}/location`, { token: ROOT_TOKEN })).json(), { key: 'location', value: 'Antarctica' });
  });

  test('the user is looked up first: an unknown one is 404 for everybody', async () => {
    expectError(await t.get('/api/v4/users/999999/custom_attributes', { token: alice.token }), 404, { message: '404 Not Found' });
    expectError(await t.get('/api/v4/users/999999/custom_attributes'), 404, { message: '404 Not Found' });
  });

  test('parameters are checked before the ability, as the platform does', async () => {
    expectError(await put('location', {}, alice.token), 400, { error: 'value is missing' });
  });
});
