import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectError } from '../matchers.ts';
import { UserAdminEntity } from '../../src/modules/users/users.schemas.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('root reads itself through GET /user', async () => {
  const res = await t.get('/api/v4/user', { token: ROOT_TOKEN });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  expectEntity(res.json(), UserAdminEntity);
  assert.equal(res.json().id, 1);
});

test('anonymous GET /user is 401', async () => {
  expectError(await t.get('/api/v4/user'), 401, { message: '401 Unauthorized' });
});
