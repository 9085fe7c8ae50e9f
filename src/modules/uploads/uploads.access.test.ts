// Who may upload a file to private, internal and public projects: any signed-in user who reads
// the project (release 14.x asks no role); anonymous callers 401, the others 404.
import { after, before, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { multipart } from '../../../test/ci/ci-test-helpers.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { ProjectUploadEntity } from './uploads.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

test('POST /projects/:id/uploads', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201 }),
    errors: refusals('Project'),
    call: (c) => {
      const { body, contentType } = multipart({ filename: `${c.role}.png`, content: Buffer.from('png') });
      return t.post(`/api/v4/projects/${c.project.id}/uploads`, { token: c.caller.token, headers: { 'content-type': contentType }, body });
    },
    verify: (res) => expectEntity(res.json(), ProjectUploadEntity),
  });
});
