// GET /license: Quarry presents the Community Edition (`/metadata` says `enterprise: false`), whose
// release 14.x has no license API at all: the path is an unknown route for everyone, administrators too.
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectError } from '../../../test/matchers.ts';
import assert from 'node:assert/strict';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('the Community Edition answers /license as an unknown route', async () => {
  assert.equal((await t.get('/api/v4/metadata', { token: ROOT_TOKEN })).json().enterprise, false);
  for (const token of [ROOT_TOKEN, undefined]) {
    expectError(await t.get('/api/v4/license', { token }), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4/licenses', { token }), 404, { error: '404 Not Found' });
    expectError(await t.post('/api/v4/license', { token, body: { license: 'x' } }), 404, { error: '404 Not Found' });
  }
});
