// Who may call each members route, on private, internal and public projects and groups: anonymous,
// a non-member, guest … owner, an administrator, an external user and a blocked member.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { addMember } from '../../../test/factories.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { MemberEntity } from './members.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const SUBJECTS = [
  { name: 'projects', subject: 'Project' as const, manageLevel: ACCESS.MAINTAINER, of: (c: MatrixCall) => c.project, base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}` },
  { name: 'groups', subject: 'Group' as const, manageLevel: ACCESS.OWNER, of: (c: MatrixCall) => c.group, base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}` },
];

for (const s of SUBJECTS) {
  describe(`${s.name}: members`, () => {
    const read = { expect: expectation({ auth: 'required', success: 200 }), errors: refusals(s.subject) };

    test('GET …/members: every reader', async () => {
      await runMatrix(world, {
        ...read,
        call: (c) => t.get(`${s.base(c)}/members`, { token: c.caller.token }),
        verify: (res) => {
          expectEntities(res.json(), MemberEntity);
          assert.ok(res.json().some((m: { id: number }) => m.id === world.callers.maintainer.user!.id));
        },
      });
    });

    test('GET …/members/all: every reader', async () => {
      await runMatrix(world, { ...read, call: (c) => t.get(`${s.base(c)}/members/all`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), MemberEntity) });
    });

    test('GET …/members/:user_id and …/members/all/:user_id: every reader', async () => {
      const id = world.callers.guest.user!.id;
      for (const path of ['members', 'members/all']) {
        await runMatrix(world, {
          ...read,
          call: (c) => t.get(`${s.base(c)}/${path}/${id}`, { token: c.caller.token }),
          verify: (res) => {
            expectEntity(res.json(), MemberEntity);
            assert.equal(res.json().access_level, ACCESS.GUEST);
          },
        });
      }
    });

    const manage = { errors: refusals(s.subject) };

    test(`POST …/members: ${s.manageLevel === ACCESS.OWNER ? 'owners' : 'maintainers and owners'} and administrators`, async () => {
      let added = 0;
      await runMatrix(world, {
        ...manage,
        expect: expectation({ auth: 'required', success: 201, minLevel: s.manageLevel }),
        call: async (c) => {
          const { user } = await t.user();
          return t.post(`${s.base(c)}/members`, { token: c.caller.token, body: { user_id: user.id, access_level: ACCESS.DEVELOPER } });
        },
        verify: (res) => {
          expectEntity(res.json(), MemberEntity);
          added += 1;
        },
      });
      // Refused calls wrote nothing: 3 visibilities × (maintainer? owner, admin).
      const writers = s.manageLevel === ACCESS.OWNER ? 2 : 3;
      assert.equal(added, 3 * writers);
    });

    test('PUT …/members/:user_id: managers and administrators', async () => {
      await runMatrix(world, {
        ...manage,
        expect: expectation({ auth: 'required', success: 200, minLevel: s.manageLevel }),
        call: async (c) => {
          const { user } = await t.user();
          await addMember(t, s.of(c), user.id, ACCESS.REPORTER);
          const res = await t.put(`${s.base(c)}/members/${user.id}`, { token: c.caller.token, body: { access_level: ACCESS.DEVELOPER } });
          const row = await t.deps.db.selectFrom('members').select('access_level').where('user_id', '=', user.id).executeTakeFirstOrThrow();
          assert.equal(row.access_level, res.statusCode === 200 ? ACCESS.DEVELOPER : ACCESS.REPORTER);
          return res;
        },
        verify: (res) => expectEntity(res.json(), MemberEntity),
      });
    });

    test("DELETE …/members/:user_id (someone else's): managers and administrators", async () => {
      await runMatrix(world, {
        ...manage,
        expect: expectation({ auth: 'required', success: 204, minLevel: s.manageLevel }),
        call: async (c) => {
          const { user } = await t.user();
          await addMember(t, s.of(c), user.id, ACCESS.REPORTER);
          const res = await t.del(`${s.base(c)}/members/${user.id}`, { token: c.caller.token });
          const left = await t.deps.db.selectFrom('members').select('id').where('user_id', '=', user.id).executeTakeFirst();
          assert.equal(left === undefined, res.statusCode === 204);
          return res;
        },
      });
    });
  });
}
