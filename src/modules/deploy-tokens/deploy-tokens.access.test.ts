// Who may call each deploy token route, on private, internal and public projects and groups:
// project tokens are for Maintainers and up, group tokens for Owners, the instance list for
// administrators; a caller who sees the subject without the role gets 403, one who does not 404,
// an anonymous caller 401.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, type Role, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { DeployTokenEntity, DeployTokenWithTokenEntity } from './deploy-tokens.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const SUBJECTS = [
  { name: 'project', base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}/deploy_tokens`, minLevel: ACCESS.MAINTAINER, errors: refusals('Project') },
  { name: 'group', base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}/deploy_tokens`, minLevel: ACCESS.OWNER, errors: refusals('Group') },
] as const;

/** A new token of the subject, made by root. */
async function fresh(base: string): Promise<number> {
  const res = await t.post(base, { token: ROOT_TOKEN, body: { name: 'matrix', scopes: ['read_repository'] } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

for (const subject of SUBJECTS) {
  const allowed = (success: number) => expectation({ auth: 'required', success, minLevel: subject.minLevel });

  test(`GET ${subject.name} deploy tokens, and one`, async () => {
    await runMatrix(world, { expect: allowed(200), errors: subject.errors, call: (c) => t.get(subject.base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), DeployTokenEntity) });
    await runMatrix(world, {
      expect: allowed(200),
      errors: subject.errors,
      call: async (c) => t.get(`${subject.base(c)}/${await fresh(subject.base(c))}`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), DeployTokenEntity),
    });
  });

  test(`POST ${subject.name} deploy tokens`, async () => {
    await runMatrix(world, {
      expect: allowed(201),
      errors: subject.errors,
      call: (c) => t.post(subject.base(c), { token: c.caller.token, body: { name: `by ${c.role}`, scopes: 'read_repository' } }),
      verify: (res, c) => {
        expectEntity(res.json(), DeployTokenWithTokenEntity);
        assert.equal(res.json().name, `by ${c.role}`);
      },
    });
  });

  test(`DELETE ${subject.name} deploy tokens`, async () => {
    await runMatrix(world, {
      expect: allowed(204),
      errors: subject.errors,
      call: async (c) => t.del(`${subject.base(c)}/${await fresh(subject.base(c))}`, { token: c.caller.token }),
    });
  });
}

test('GET /deploy_tokens: administrators only', async () => {
  const expected: Partial<Record<Role, number>> = { anonymous: 401, admin: 200, blocked: 403 };
  for (const [role, caller] of Object.entries(world.callers) as [Role, { token?: string }][]) {
    const res = await t.get('/api/v4/deploy_tokens', { token: caller.token });
    assert.equal(res.statusCode, expected[role] ?? 403, `${role}: ${res.body}`);
    if (res.statusCode === 200) expectEntities(res.json(), DeployTokenEntity);
  }
});
