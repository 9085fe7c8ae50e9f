// /users/:id/custom_attributes as only users have them (what every subject shares is tested in
// modules/custom-attributes): the user is looked up first, they filter GET /users, they go with
// the user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectError, expectStatus } from '../../../test/matchers.ts';

let t: TestApp;
let alice: TestUser;
let path: string;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  path = `/api/v4/users/${alice.user.id}/custom_attributes`;
  for (const [key, value] of [['location', 'Antarctica'], ['team', 'red']]) {
    expectStatus(await t.put(`${path}/${key}`, { token: ROOT_TOKEN, body: { value } }), 200);
  }
});
after(() => t.close());

describe('user custom attributes', () => {
  test('they feed the list filter and with_custom_attributes', async () => {
    await t.user();
    const list = await t.get('/api/v4/users', { token: ROOT_TOKEN, query: { 'custom_attributes[team]': 'red', with_custom_attributes: 'true' } });
    assert.deepEqual(
      list.json().map((u: { id: number }) => u.id),
      [alice.user.id],
    );
    assert.deepEqual(list.json()[0].custom_attributes[0], { key: 'location', value: 'Antarctica' });
  });

  test('an unknown user is 404 Not Found on every route', async () => {
    const missing = '/api/v4/users/999999/custom_attributes';
    expectError(await t.get(missing, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.get(`${missing}/a`, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.put(`${missing}/a`, { token: ROOT_TOKEN, body: { value: 'b' } }), 404, { message: '404 Not Found' });
    expectError(await t.del(`${missing}/a`, { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
    expectError(await t.get('/api/v4/users/alice/custom_attributes', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
  });

  test('the user is looked up first: an unknown one is 404 for everybody', async () => {
    expectError(await t.get('/api/v4/users/999999/custom_attributes', { token: alice.token }), 404, { message: '404 Not Found' });
    expectError(await t.get('/api/v4/users/999999/custom_attributes'), 404, { message: '404 Not Found' });
  });

  test('a user may not read their own', async () => {
    expectError(await t.get(path, { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`${path}/location`, { token: alice.token }), 403, { message: '403 Forbidden' });
  });

  test('they go with the user', async () => {
    const doomed = await t.user();
    expectStatus(await t.put(`/api/v4/users/${doomed.user.id}/custom_attributes/x`, { token: ROOT_TOKEN, body: { value: 'y' } }), 200);
    const rows = await t.count('user_custom_attributes');
    expectStatus(await t.del(`/api/v4/users/${doomed.user.id}`, { token: ROOT_TOKEN }), 204);
    assert.equal(await t.count('user_custom_attributes'), rows - 1);
  });
});
