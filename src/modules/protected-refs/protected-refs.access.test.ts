// Who may call each protected branches and tags route, on private, internal and public projects:
// maintainers, owners and administrators; other callers who see the project get 403 (anonymous
// ones included, as the platform answers), those who do not 404, blocked accounts 403.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { ProtectedBranchEntity, ProtectedTagEntity } from './protected-refs.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const maintainers = (success: number) => ({ expect: expectation({ auth: 'optional', success, minLevel: ACCESS.MAINTAINER }), errors: refusals('Project') });

let sequence = 0;
const fresh = (prefix: string) => `${prefix}-${++sequence}/*`;

const KINDS = [
  { path: 'protected_branches', entity: ProtectedBranchEntity, body: (name: string) => ({ name, push_access_level: ACCESS.DEVELOPER }) },
  { path: 'protected_tags', entity: ProtectedTagEntity, body: (name: string) => ({ name, create_access_level: ACCESS.DEVELOPER }) },
];

for (const kind of KINDS) {
  describe(kind.path, () => {
    const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/${kind.path}`;

    /** A rule made by an administrator, for the call under test to read or remove. */
    async function existing(c: MatrixCall): Promise<string> {
      const name = fresh('existing');
      expectStatus(await t.post(base(c), { token: ROOT_TOKEN, body: kind.body(name) }), 201);
      return encodeURIComponent(name);
    }

    test('GET (list)', async () => {
      await runMatrix(world, {
        ...maintainers(200),
        call: (c) => t.get(base(c), { token: c.caller.token }),
        verify: (res) => expectEntities(res.json(), kind.entity),
      });
    });

    test('GET (one)', async () => {
      await runMatrix(world, {
        ...maintainers(200),
        call: async (c) => t.get(`${base(c)}/${await existing(c)}`, { token: c.caller.token }),
        verify: (res) => expectEntity(res.json(), kind.entity),
      });
    });

    test('POST', async () => {
      let created = 0;
      await runMatrix(world, {
        ...maintainers(201),
        call: (c) => t.post(base(c), { token: c.caller.token, body: kind.body(fresh(c.role)) }),
        verify: (res) => {
          expectEntity(res.json(), kind.entity);
          created += 1;
        },
      });
      // Refused calls wrote nothing: 3 visibilities × (maintainer, owner, admin).
      const rows = await t.deps.db
        .selectFrom(kind.path as 'protected_branches' | 'protected_tags')
        .select('name')
        .where('project_id', 'in', Object.values(world.projects).map((p) => p.id))
        .execute();
      assert.equal(created, 9);
      assert.equal(rows.filter((r) => !r.name.startsWith('existing-')).length, 9);
    });

    test('DELETE', async () => {
      await runMatrix(world, {
        ...maintainers(204),
        call: async (c) => t.del(`${base(c)}/${await existing(c)}`, { token: c.caller.token }),
      });
    });
  });
}
