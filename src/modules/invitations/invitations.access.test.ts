// Who may call each invitations route, on private, internal and public projects and groups:
// anonymous, a non-member, guest … owner, an administrator, an external user and a blocked member.
// Reading is for every reader of the source (as 14.x); inviting, changing and withdrawing for
// those who administer it (Maintainer and up on a project, Owner on a group).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { InvitationChangeEntity, InvitationEntity, InviteResultEntity } from './invitations.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

/** A pending invitation of the source, written directly. */
async function pendingInvitation(source: NamespaceRow | ProjectRow, sourceType: string): Promise<string> {
  const email = `matrix${++sequence}@invited.example`;
  const at = t.deps.now().toISOString();
  await t.deps.db
    .insertInto('members')
    .values({ source_type: sourceType, source_id: source.id, user_id: null, invite_email: email, access_level: ACCESS.GUEST, created_by_id: 1, created_at: at, updated_at: at })
    .execute();
  return email;
}

const pendingLevel = async (email: string) =>
  (await t.deps.db.selectFrom('members').select('access_level').where('invite_email', '=', email).where('user_id', 'is', null).executeTakeFirst())?.access_level;

const SUBJECTS = [
  { name: 'projects', subject: 'Project' as const, sourceType: 'Project', adminLevel: ACCESS.MAINTAINER, of: (c: MatrixCall) => c.project, base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}` },
  { name: 'groups', subject: 'Group' as const, sourceType: 'Namespace', adminLevel: ACCESS.OWNER, of: (c: MatrixCall) => c.group, base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}` },
];

for (const s of SUBJECTS) {
  describe(`${s.name}: invitations`, () => {
    const errors = refusals(s.subject);
    const admins = (success: number) => expectation({ auth: 'required', success, minLevel: s.adminLevel });

    test('GET …/invitations: every reader', async () => {
      await runMatrix(world, {
        errors,
        expect: expectation({ auth: 'required', success: 200 }),
        call: async (c) => {
          await pendingInvitation(s.of(c), s.sourceType);
          return t.get(`${s.base(c)}/invitations`, { token: c.caller.token });
        },
        verify: (res) => {
          expectEntities(res.json(), InvitationEntity);
          assert.ok(res.json().length > 0);
        },
      });
    });

    test('POST …/invitations: administrators of the source', async () => {
      let invited = 0;
      await runMatrix(world, {
        errors,
        expect: admins(201),
        call: (c) => t.post(`${s.base(c)}/invitations`, { token: c.caller.token, body: { email: `new${++sequence}@invited.example`, access_level: ACCESS.DEVELOPER } }),
        verify: (res) => {
          expectEntity(res.json(), InviteResultEntity);
          assert.deepEqual(res.json(), { status: 'success' });
          invited += 1;
        },
      });
      const writers = s.adminLevel === ACCESS.OWNER ? 2 : 3;
      assert.equal(invited, 3 * writers);
    });

    test('PUT …/invitations/:email: administrators of the source', async () => {
      await runMatrix(world, {
        errors,
        expect: admins(200),
        call: async (c) => {
          const email = await pendingInvitation(s.of(c), s.sourceType);
          const res = await t.put(`${s.base(c)}/invitations/${encodeURIComponent(email)}`, { token: c.caller.token, body: { access_level: ACCESS.REPORTER } });
          assert.equal(await pendingLevel(email), res.statusCode === 200 ? ACCESS.REPORTER : ACCESS.GUEST);
          return res;
        },
        verify: (res) => expectEntity(res.json(), InvitationChangeEntity),
      });
    });

    test('DELETE …/invitations/:email: administrators of the source', async () => {
      await runMatrix(world, {
        errors,
        expect: admins(204),
        call: async (c) => {
          const email = await pendingInvitation(s.of(c), s.sourceType);
          const res = await t.del(`${s.base(c)}/invitations/${encodeURIComponent(email)}`, { token: c.caller.token });
          assert.equal((await pendingLevel(email)) === undefined, res.statusCode === 204);
          return res;
        },
      });
    });
  });
}
