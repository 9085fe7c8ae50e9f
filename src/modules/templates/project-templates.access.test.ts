// Who may read a project's templates: whoever reads the project (read_project), anonymous callers
// on public projects; a project the caller may not see is 404, a blocked account 403. As on the
// platform, the description templates need no access to the code: guests write issues with them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { LicenseEntity, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    await giveRepository(t, project);
    const res = await t.post(`/api/v4/projects/${project.id}/repository/commits`, {
      token: ROOT_TOKEN,
      body: { branch: 'main', commit_message: 'Templates', actions: [{ action: 'create', file_path: '.gitlab/issue_templates/Bug.md', content: 'What happened?\n' }] },
    });
    expectStatus(res, 201);
  }
});
after(() => t.close());

const readers = expectation({ auth: 'optional', success: 200 });
const errors = refusals('Project');

test('GET /projects/:id/templates/:type', async () => {
  for (const type of ['issues', 'licenses', 'gitignores']) {
    await runMatrix(world, {
      expect: readers,
      errors,
      call: (c) => t.get(`/api/v4/projects/${c.project.id}/templates/${type}`, { token: c.caller.token }),
      verify: (res) => {
        expectEntities(res.json(), TemplatesListEntity);
        if (type === 'issues') assert.deepEqual(res.json(), [{ key: 'Bug', name: 'Bug' }]);
      },
    });
  }
});

test('GET /projects/:id/templates/:type/:name', async () => {
  await runMatrix(world, {
    expect: readers,
    errors,
    call: (c) => t.get(`/api/v4/projects/${c.project.id}/templates/issues/Bug`, { token: c.caller.token }),
    verify: (res) => {
      expectEntity(res.json(), TemplateEntity);
      assert.deepEqual(res.json(), { name: 'Bug', content: 'What happened?\n' });
    },
  });
  await runMatrix(world, {
    expect: readers,
    errors,
    call: (c) => t.get(`/api/v4/projects/${c.project.id}/templates/licenses/mit`, { token: c.caller.token }),
    verify: (res, c) => {
      expectEntity(res.json(), LicenseEntity);
      // The holder is whoever asks; anonymous callers leave the placeholder.
      assert.ok(res.json().content.includes(c.caller.user ? c.caller.user.name : '[fullname]'), c.role);
    },
  });
});
