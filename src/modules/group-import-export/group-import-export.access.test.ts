// Who may call each group export and import route, on private, internal and public groups:
// exports need Owner (administrators too); importing into a group needs create_subgroup there
// (Maintainer, the default subgroup creation level); a caller who sees the group without the role
// gets 403, one who does not see it 404, an anonymous caller 401. The rate limits are lifted so
// that the matrix's many calls all count.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { importForm } from '../../../test/fixtures/export-archives.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { ACCESS } from '../../core/access/levels.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { group_export_limit: 0, group_download_export_limit: 0, group_import_limit: 0 } });
});
after(() => t.close());

const owners = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.OWNER });

test('POST /groups/:id/export', async () => {
  await runMatrix(world, {
    expect: owners(202),
    errors: refusals('Group'),
    call: (c) => t.post(`/api/v4/groups/${c.group.id}/export`, { token: c.caller.token }),
    verify: (res) => assert.deepEqual(res.json(), { message: '202 Accepted' }),
  });
});

test('GET /groups/:id/export/download', async () => {
  // The exports queued above are not built (no job ran): the route answers its own 404 to those it lets through.
  await runMatrix(world, {
    expect: owners(404),
    errors: refusals('Group', { 404: undefined }),
    call: (c) => t.get(`/api/v4/groups/${c.group.id}/export/download`, { token: c.caller.token }),
    verify: () => undefined,
  });
});

test('POST /groups/import into a group', async () => {
  await runMatrix(world, {
    // Each import makes a group and recomputes its creator's authorizations: one call at a time.
    serial: true,
    expect: expectation({ auth: 'required', success: 202, minLevel: ACCESS.MAINTAINER }),
    errors: refusals('Group'),
    call: (c) => {
      const form = importForm({ name: `by ${c.role}`, path: `by-${c.role}-${c.visibility}`, parent_id: String(c.group.id) }, Buffer.from('not read'));
      return t.post('/api/v4/groups/import', { token: c.caller.token, body: form.body, headers: form.headers });
    },
    verify: (res) => assert.deepEqual(res.json(), { message: '202 Accepted' }),
  });
});
