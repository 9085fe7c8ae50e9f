// Who may call each project export and import route, on private, internal and public projects:
// exports need Maintainer (administrators too); the import status needs a signed-in reader; a
// caller who sees the project without the role gets 403, one who does not see it 404, an anonymous
// caller 401. The rate limits are lifted so that the matrix's many calls all count.
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { ExportStatusEntity, ImportStatusEntity } from './import-export.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { project_export_limit: 0, project_download_export_limit: 0, project_import_limit: 0 } });
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}`;
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });

test('POST export', async () => {
  await runMatrix(world, { expect: maintainers(202), errors: refusals('Project'), call: (c) => t.post(`${base(c)}/export`, { token: c.caller.token, body: {} }) });
});

test('GET export', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(`${base(c)}/export`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), ExportStatusEntity) });
});

test('GET export/download', async () => {
  // The exports queued above are not built (no job ran): the route answers its own 404 to those it
  // lets through, so only the statuses are compared here.
  await runMatrix(world, { expect: maintainers(404), call: (c) => t.get(`${base(c)}/export/download`, { token: c.caller.token }) });
});

test('GET import', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200 }),
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/import`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ImportStatusEntity),
  });
});
