// GET/PUT/DELETE /users|groups|projects/:id/custom_attributes[/:key]: what the three subjects
// share, for each of them. How each looks its subject up (and filters its lists by attribute) is
// tested with the subject.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import type { DB } from '../../db/schema.ts';
import { CustomAttributeEntity } from './custom-attributes.schemas.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
});
after(() => t.close());

interface Subject {
  table: keyof DB;
  /** A new subject that anyone may see, as its custom attributes' path. */
  create(): Promise<string>;
}

const SUBJECTS: Record<string, Subject> = {
  user: {
    table: 'user_custom_attributes',
    create: async () => `/api/v4/users/${(await t.user()).user.id}/custom_attributes`,
  },
  group: {
    table: 'group_custom_attributes',
    create: async () => `/api/v4/groups/${(await createGroup(t, { visibility: 'public' })).id}/custom_attributes`,
  },
  project: {
    table: 'project_custom_attributes',
    create: async () => `/api/v4/projects/${(await createProject(t, { visibility: 'public' })).id}/custom_attributes`,
  },
};

for (const [name, subject] of Object.entries(SUBJECTS)) {
  describe(`${name} custom attributes`, () => {
    let path: string;
    before(async () => {
      path = await subject.create();
    });
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
        const rows = await t.count(subject.table);
        const res = await put('role', { value: 'Maintainer' });
        expectStatus(res, 200);
        assert.deepEqual(res.json(), { key: 'role', value: 'Maintainer' });
        assert.equal(await t.count(subject.table), rows);
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

      test('a subject without attributes has an empty list', async () => {
        const res = await t.get(await subject.create(), { token: ROOT_TOKEN });
        expectStatus(res, 200);
        assert.deepEqual(res.json(), []);
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

      test('value is required and may not be blank', async () => {
        const rows = await t.count(subject.table);
        expectError(await put('empty', {}), 400, { error: 'value is missing' });
        expectError(await put('empty', { value: '' }), 400, { message: { value: ["can't be blank"] } });
        expectError(await put('empty', { value: '   ' }), 400, { message: { value: ["can't be blank"] } });
        assert.equal(await t.count(subject.table), rows);
      });
    });

    describe('as anyone else', () => {
      test('reads are 403 for anonymous and regular callers', async () => {
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

      test('parameters are checked before the ability, as the platform does', async () => {
        expectError(await put('location', {}, alice.token), 400, { error: 'value is missing' });
      });
    });
  });
}
