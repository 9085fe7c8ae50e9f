// Who may call each badge route on private, internal and public projects and groups: whoever
// reads the project or group reads its badges (anonymous callers the public ones); Maintainers of
// a project and Owners of a group (admin_project, admin_group) preview, add, change and remove.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { BadgeEntity, BasicBadgeEntity } from './badges.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const SUBJECTS = [
  { name: 'project', base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}/badges`, minLevel: ACCESS.MAINTAINER, errors: refusals('Project') },
  { name: 'group', base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}/badges`, minLevel: ACCESS.OWNER, errors: refusals('Group') },
] as const;

const BADGE = { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/badge.svg' };

/** A new badge of the subject, made by root. */
async function fresh(base: string): Promise<number> {
  const res = await t.post(base, { token: ROOT_TOKEN, body: BADGE });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

for (const subject of SUBJECTS) {
  const readers = expectation({ auth: 'optional', success: 200 });
  const admins = (success: number) => expectation({ auth: 'required', success, minLevel: subject.minLevel });

  test(`GET ${subject.name} badges, and one`, async () => {
    await runMatrix(world, { expect: readers, errors: subject.errors, call: (c) => t.get(subject.base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), BadgeEntity) });
    await runMatrix(world, {
      expect: readers,
      errors: subject.errors,
      call: async (c) => t.get(`${subject.base(c)}/${await fresh(subject.base(c))}`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), BadgeEntity),
    });
  });

  test(`GET ${subject.name} badges/render`, async () => {
    await runMatrix(world, {
      expect: admins(200),
      errors: subject.errors,
      call: (c) => t.get(`${subject.base(c)}/render`, { token: c.caller.token, query: BADGE }),
      verify: (res) => expectEntity(res.json(), BasicBadgeEntity),
    });
  });

  test(`POST ${subject.name} badges`, async () => {
    await runMatrix(world, {
      expect: admins(201),
      errors: subject.errors,
      call: (c) => t.post(subject.base(c), { token: c.caller.token, body: { ...BADGE, name: `by ${c.role}` } }),
      verify: (res, c) => {
        expectEntity(res.json(), BadgeEntity);
        assert.equal(res.json().name, `by ${c.role}`);
      },
    });
  });

  test(`PUT ${subject.name} badges`, async () => {
    await runMatrix(world, {
      expect: admins(200),
      errors: subject.errors,
      call: async (c) => t.put(`${subject.base(c)}/${await fresh(subject.base(c))}`, { token: c.caller.token, body: { name: 'changed' } }),
      verify: (res) => expectEntity(res.json(), BadgeEntity),
    });
  });

  test(`DELETE ${subject.name} badges`, async () => {
    await runMatrix(world, {
      expect: admins(204),
      errors: subject.errors,
      call: async (c) => t.del(`${subject.base(c)}/${await fresh(subject.base(c))}`, { token: c.caller.token }),
    });
  });
}
