// Who may call each wiki route, on private, internal and public projects and groups: pages are
// read by every reader (anonymous callers included where the subject is public), written by
// Developers and deleted by Maintainers; a caller who sees the subject without the role gets 403,
// one who does not 404, an anonymous writer 401. A wiki open to members only, or disabled, is
// refused as the platform refuses it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { WikiAttachmentEntity, WikiPageBasicEntity, WikiPageEntity } from './wikis.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const c of Object.values(world.projects)) await seed(`/api/v4/projects/${c.id}/wikis`, 'Home');
  for (const c of Object.values(world.groups)) await seed(`/api/v4/groups/${c.id}/wikis`, 'Home');
});
after(() => t.close());

let sequence = 0;

/** A new page of the wiki, made by root; returns its slug. */
async function seed(base: string, title = `Page ${++sequence}`): Promise<string> {
  const res = await t.post(base, { token: ROOT_TOKEN, body: { title, content: 'seeded' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().slug;
}

function attachment() {
  const boundary = '----wikiaccess';
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const SUBJECTS = [
  { name: 'project', base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}/wikis`, errors: refusals('Project') },
  { name: 'group', base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}/wikis`, errors: refusals('Group') },
] as const;

for (const subject of SUBJECTS) {
  const reader = expectation({ auth: 'optional', success: 200 });
  const writer = (success: number, minLevel: number) => expectation({ auth: 'required', success, minLevel });

  test(`GET ${subject.name} wiki pages, and one`, async () => {
    await runMatrix(world, { expect: reader, errors: subject.errors, call: (c) => t.get(subject.base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), WikiPageBasicEntity) });
    await runMatrix(world, { expect: reader, errors: subject.errors, call: (c) => t.get(`${subject.base(c)}/Home`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), WikiPageEntity) });
  });

  test(`POST ${subject.name} wiki pages: Developers and up`, async () => {
    await runMatrix(world, {
      expect: writer(201, ACCESS.DEVELOPER),
      errors: subject.errors,
      call: (c) => t.post(subject.base(c), { token: c.caller.token, body: { title: `By ${c.role}`, content: 'written' } }),
      verify: (res, c) => {
        expectEntity(res.json(), WikiPageEntity);
        assert.equal(res.json().title, `By ${c.role}`);
      },
    });
  });

  test(`PUT ${subject.name} wiki pages: Developers and up`, async () => {
    await runMatrix(world, {
      expect: writer(200, ACCESS.DEVELOPER),
      errors: subject.errors,
      call: async (c) => t.put(`${subject.base(c)}/${await seed(subject.base(c))}`, { token: c.caller.token, body: { content: `changed by ${c.role}` } }),
      verify: (res) => expectEntity(res.json(), WikiPageEntity),
    });
  });

  test(`DELETE ${subject.name} wiki pages: Maintainers and up`, async () => {
    await runMatrix(world, {
      expect: writer(204, ACCESS.MAINTAINER),
      errors: subject.errors,
      call: async (c) => t.del(`${subject.base(c)}/${await seed(subject.base(c))}`, { token: c.caller.token }),
    });
  });

  test(`POST ${subject.name} wiki attachments: Developers and up`, async () => {
    await runMatrix(world, {
      expect: writer(201, ACCESS.DEVELOPER),
      errors: subject.errors,
      call: (c) => t.post(`${subject.base(c)}/attachments`, { token: c.caller.token, ...attachment() }),
      verify: (res) => expectEntity(res.json(), WikiAttachmentEntity),
    });
  });
}

test("a project's wiki feature: private is for members, disabled for nobody", async () => {
  const project = world.projects.public;
  const base = `/api/v4/projects/${project.id}/wikis`;
  const { non_member: stranger, guest, developer } = world.callers;
  try {
    await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'private' } });
    expectError(await t.get(base, {}), 403, { message: '403 Forbidden' });
    expectError(await t.get(base, { token: stranger.token }), 403, { message: '403 Forbidden' });
    assert.equal((await t.get(`${base}/Home`, { token: guest.token })).statusCode, 200);
    await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'disabled' } });
    expectError(await t.get(base, { token: guest.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(base, { token: developer.token, body: { title: 'No', content: 'wiki' } }), 403, { message: '403 Forbidden' });
    assert.equal((await t.get(base, { token: ROOT_TOKEN })).statusCode, 403, 'not even an administrator uses a disabled wiki');
  } finally {
    await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'enabled' } });
  }
});
