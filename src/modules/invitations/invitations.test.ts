// Invitations through the API, on groups and projects alike: inviting addresses (one or several;
// added at once when a confirmed user owns one), the per-address failures in the platform's words,
// the whole-request refusals, listing with `query`, changing and withdrawing; and that a pending
// invitation grants nothing and counts nowhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { systemContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { MemberEntity } from '../members/members.schemas.ts';
import { removeExpiredMembers } from '../members/members.service.ts';
import { InvitationChangeEntity, InvitationEntity, InviteResultEntity } from './invitations.schemas.ts';
import { destroyInvitation } from './invitations.service.ts';

let t: TestApp;
let owner: TestUser;
let parent: NamespaceRow;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ name: 'Olivia Owner' });
  parent = await createGroup(t, { name: 'Parent Group', members: [[owner.user.id, ACCESS.OWNER]] });
});
after(() => t.close());

let sequence = 0;
const address = (label = 'guest') => `${label}${++sequence}@invited.example`;

interface Subject {
  kind: 'group' | 'project';
  base: string;
  name: string;
  sourceType: 'Namespace' | 'Project';
  row: NamespaceRow | ProjectRow;
}

/** A fresh group below `parent`, or a fresh project in it, which `owner` administers through the parent group. */
async function freshSubject(kind: Subject['kind']): Promise<Subject> {
  const group = await createGroup(t, { parent, name: `Team ${++sequence}` });
  if (kind === 'group') return { kind, base: `/api/v4/groups/${group.id}`, name: group.name, sourceType: 'Namespace', row: group };
  const project = await createProject(t, { namespace: group, name: `Project ${sequence}` });
  return { kind, base: `/api/v4/projects/${project.id}`, name: project.name, sourceType: 'Project', row: project };
}

const invite = (s: Subject, body: Record<string, unknown>, token = owner.token) => t.post(`${s.base}/invitations`, { token, body });
const pendingRows = (s: Subject) =>
  t.deps.db.selectFrom('members').selectAll().where('source_type', '=', s.sourceType).where('source_id', '=', s.row.id).where('user_id', 'is', null).orderBy('id').execute();

for (const kind of ['group', 'project'] as const) {
  describe(`${kind} invitations`, () => {
    test('an address nobody owns becomes a pending invitation: listed, mailed through the job queue, granting nothing', async () => {
      const s = await freshSubject(kind);
      const email = address();
      const jobsBefore = await t.deps.db.selectFrom('background_jobs').select('id').where('kind', '=', 'invitations.send').execute();
      const inheritedBefore = (await t.get(`${s.base}/members/all`, { token: owner.token })).json();
      const res = await invite(s, { email, access_level: ACCESS.DEVELOPER, expires_at: '2099-12-31' });
      expectStatus(res, 201);
      expectEntity(res.json(), InviteResultEntity);
      assert.deepEqual(res.json(), { status: 'success' });

      const [row] = await pendingRows(s);
      assert.equal(row.invite_email, email);
      assert.equal(row.user_id, null);
      assert.equal(row.created_by_id, owner.user.id);
      const jobs = await t.deps.db.selectFrom('background_jobs').select(['payload']).where('kind', '=', 'invitations.send').execute();
      assert.equal(jobs.length, jobsBefore.length + 1);
      assert.ok(jobs.some((j) => JSON.parse(j.payload).memberId === row.id));

      const list = await t.get(`${s.base}/invitations`, { token: owner.token });
      expectStatus(list, 200);
      expectEntities(list.json(), InvitationEntity);
      assert.deepEqual(list.json(), [
        { id: row.id, invite_email: email, created_at: row.created_at, access_level: ACCESS.DEVELOPER, expires_at: '2099-12-31', user_name: null, created_by_name: 'Olivia Owner' },
      ]);
      // Not a member anywhere: lists, authorizations, events.
      const members = await t.get(`${s.base}/members`, { token: owner.token });
      expectEntities(members.json(), MemberEntity);
      assert.deepEqual(members.json(), []);
      assert.deepEqual((await t.get(`${s.base}/members/all`, { token: owner.token })).json(), inheritedBefore);
      assert.equal(await t.deps.db.selectFrom('project_authorizations').select('user_id').where('user_id', 'is', null).executeTakeFirst(), undefined);
    });

    test('several addresses at once, each answered on its own; those that pass are made', async () => {
      const s = await freshSubject(kind);
      const member = await t.user();
      await addMember(t, s.row, member.user.id, ACCESS.REPORTER);
      const confirmed = await t.user();
      const invitedLong = address('pre');
      expectStatus(await invite(s, { email: `x${invitedLong}`, access_level: ACCESS.GUEST }), 201);
      const fresh = address();
      const emails = [fresh, member.user.email, confirmed.user.email, invitedLong];
      const res = await invite(s, { email: emails.join(','), access_level: ACCESS.REPORTER });
      expectStatus(res, 201);
      expectEntity(res.json(), InviteResultEntity);
      assert.deepEqual(res.json(), {
        status: 'error',
        message: {
          [member.user.email]: `Already a member of ${s.name}`,
          // The platform's check reads the address inside an invited one (ILIKE '%email%').
          [invitedLong]: `Member already invited to ${s.name}`,
        },
      });
      // The confirmed owner of an address is a member at once; the new address waits.
      const members = (await t.get(`${s.base}/members`, { token: owner.token })).json() as { id: number; access_level: number }[];
      assert.deepEqual(
        members.map((m) => [m.id, m.access_level]).sort((a, b) => a[0] - b[0]),
        [
          [member.user.id, ACCESS.REPORTER],
          [confirmed.user.id, ACCESS.REPORTER],
        ],
      );
      assert.deepEqual((await pendingRows(s)).map((r) => r.invite_email), [`x${invitedLong}`, fresh]);
      if (kind === 'project') {
        const joined = await t.deps.db.selectFrom('events').select('author_id').where('project_id', '=', s.row.id).where('action', '=', 'joined').execute();
        assert.deepEqual(joined.map((e) => e.author_id), [confirmed.user.id]);
      }
      // Case does not make another address.
      const again = await invite(s, { email: fresh.toUpperCase(), access_level: ACCESS.REPORTER });
      assert.deepEqual(again.json(), { status: 'error', message: { [fresh.toUpperCase()]: `Member already invited to ${s.name}` } });
    });

    test("the member model's rules, per address", async () => {
      const s = await freshSubject(kind);
      const past = await invite(s, { email: address(), access_level: ACCESS.GUEST, expires_at: '2001-01-01' });
      expectStatus(past, 201);
      assert.deepEqual(Object.values(past.json().message), ['Expires at cannot be a date in the past']);
      const ownerLevel = await invite(s, { email: address(), access_level: ACCESS.OWNER });
      if (kind === 'project') assert.deepEqual(Object.values(ownerLevel.json().message), ['Access level is not included in the list']);
      else assert.deepEqual(ownerLevel.json(), { status: 'success' });
      // A confirmed user who holds more in the group above may not be given less here.
      const maintainer = await t.user();
      await addMember(t, parent, maintainer.user.id, ACCESS.MAINTAINER);
      const lower = await invite(s, { email: maintainer.user.email, access_level: ACCESS.DEVELOPER });
      assert.deepEqual(lower.json(), {
        status: 'error',
        message: { [maintainer.user.email]: `Access level should be greater than or equal to Maintainer inherited membership from group ${parent.name}` },
      });
      assert.equal((await pendingRows(s)).length, kind === 'group' ? 1 : 0);
    });

    test('an unconfirmed user is invited, not added', async () => {
      const s = await freshSubject(kind);
      const unconfirmed = await t.user({ skip_confirmation: false });
      expectStatus(await invite(s, { email: unconfirmed.user.email, access_level: ACCESS.GUEST }), 201);
      assert.deepEqual((await pendingRows(s)).map((r) => r.invite_email), [unconfirmed.user.email]);
      assert.deepEqual((await t.get(`${s.base}/members`, { token: owner.token })).json(), []);
    });

    test('refusals of the whole request: a malformed address, a missing or invalid parameter; a blank or too long list is answered in the body', async () => {
      const s = await freshSubject(kind);
      expectError(await invite(s, { email: `${address()},not-an-address`, access_level: 30 }), 400, { error: 'email contains an invalid email address' });
      expectError(await invite(s, { access_level: 30 }), 400, { error: 'email is missing' });
      expectError(await invite(s, { email: address() }), 400, { error: 'access_level is missing' });
      for (const level of [0, 5, 60]) expectError(await invite(s, { email: address(), access_level: level }), 400, { error: 'access_level does not have a valid value' });
      expectError(await invite(s, { email: address(), access_level: 30, expires_at: 'soon' }), 400, { error: 'expires_at is invalid' });
      assert.equal((await pendingRows(s)).length, 0);

      const blank = await invite(s, { email: '', access_level: 30 });
      expectStatus(blank, 201);
      expectEntity(blank.json(), InviteResultEntity);
      assert.deepEqual(blank.json(), { status: 'error', message: 'Email cannot be blank' });
      const many = Array.from({ length: 101 }, () => address()).join(',');
      assert.deepEqual((await invite(s, { email: many, access_level: 30 })).json(), { status: 'error', message: 'Too many users specified (limit is 100)' });
      // An array of addresses is read as the list it is.
      assert.deepEqual((await invite(s, { email: [address(), address()], access_level: 30 })).json(), { status: 'success' });
      assert.equal((await pendingRows(s)).length, 2);
    });

    test('GET …/invitations: `query` is the exact address, empty lists all; paginated in the database', async () => {
      const s = await freshSubject(kind);
      const emails = [address('a'), address('b'), address('c')];
      expectStatus(await invite(s, { email: emails.join(','), access_level: ACCESS.GUEST }), 201);
      const all = await t.get(`${s.base}/invitations`, { token: owner.token, query: { query: '' } });
      assert.deepEqual(all.json().map((i: { invite_email: string }) => i.invite_email), emails);
      const one = await t.get(`${s.base}/invitations`, { token: owner.token, query: { query: emails[1] } });
      expectEntities(one.json(), InvitationEntity);
      assert.deepEqual(one.json().map((i: { invite_email: string }) => i.invite_email), [emails[1]]);
      assert.deepEqual((await t.get(`${s.base}/invitations`, { token: owner.token, query: { query: emails[1].slice(1) } })).json(), []);
      const page = await t.get(`${s.base}/invitations`, { token: owner.token, query: { per_page: '2', page: '2' } });
      assert.equal(page.headers['x-total'], '3');
      assert.equal(page.headers['x-total-pages'], '2');
      assert.deepEqual(page.json().map((i: { invite_email: string }) => i.invite_email), [emails[2]]);
      // Invitations of the group above are not this source's.
      if (kind === 'project') assert.equal((await t.get(`${s.base}/invitations`, { token: owner.token })).json().length, 3);
    });

    test('PUT …/invitations/:email changes the level, the expiry, or both', async () => {
      const s = await freshSubject(kind);
      const email = address();
      expectStatus(await invite(s, { email, access_level: ACCESS.GUEST }), 201);
      const url = `${s.base}/invitations/${encodeURIComponent(email)}`;
      const level = await t.put(url, { token: owner.token, body: { access_level: ACCESS.MAINTAINER } });
      expectStatus(level, 200);
      expectEntity(level.json(), InvitationChangeEntity);
      assert.deepEqual(level.json(), { expires_at: null, access_level: ACCESS.MAINTAINER });
      const expiry = await t.put(url, { token: owner.token, body: { expires_at: '2099-06-30T12:00:00Z' } });
      expectEntity(expiry.json(), InvitationChangeEntity);
      assert.deepEqual(expiry.json(), { expires_at: '2099-06-30', access_level: ACCESS.MAINTAINER });
      const [row] = await pendingRows(s);
      assert.equal(row.expires_at, '2099-06-30');
      assert.deepEqual((await t.put(url, { token: owner.token, body: { expires_at: '' } })).json(), { expires_at: null, access_level: ACCESS.MAINTAINER });

      expectError(await t.put(url, { token: owner.token, body: {} }), 400, { message: '400 Bad request' });
      expectError(await t.put(url, { token: owner.token, body: { expires_at: '2001-01-01' } }), 400, { message: { expires_at: ['cannot be a date in the past'] } });
      expectError(await t.put(url, { token: owner.token, body: { access_level: 5 } }), 400, { error: 'access_level does not have a valid value' });
      if (kind === 'project') expectError(await t.put(url, { token: owner.token, body: { access_level: ACCESS.OWNER } }), 400, { message: { access_level: ['is not included in the list'] } });
      expectError(await t.put(`${s.base}/invitations/${encodeURIComponent(address())}`, { token: owner.token, body: { access_level: 30 } }), 404, { message: '404 Not found' });
      // Nothing to change is looked at only once the invitation is found.
      expectError(await t.put(`${s.base}/invitations/${encodeURIComponent(address())}`, { token: owner.token, body: {} }), 404, { message: '404 Not found' });
      assert.equal((await pendingRows(s))[0].access_level, ACCESS.MAINTAINER);
    });

    test('DELETE …/invitations/:email withdraws it: 204, then 404; If-Unmodified-Since is honoured', async () => {
      const s = await freshSubject(kind);
      const email = address();
      expectStatus(await invite(s, { email, access_level: ACCESS.GUEST }), 201);
      const url = `${s.base}/invitations/${encodeURIComponent(email)}`;
      expectError(await t.del(url, { token: owner.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } }), 412, { message: '412 Precondition Failed' });
      const res = await t.del(url, { token: owner.token });
      expectStatus(res, 204);
      assert.equal(res.body, '');
      assert.equal((await pendingRows(s)).length, 0);
      expectError(await t.del(url, { token: owner.token }), 404, { message: '404 Not found' });
    });

    test('an unknown source is a 404, as for every source route', async () => {
      const path = kind === 'group' ? 'groups' : 'projects';
      expectError(await t.get(`/api/v4/${path}/999999/invitations`, { token: ROOT_TOKEN }), 404, { message: `404 ${kind === 'group' ? 'Group' : 'Project'} Not Found` });
      expectError(await t.post(`/api/v4/${path}/999999/invitations`, { token: ROOT_TOKEN, body: { email: address(), access_level: 30 } }), 404, {
        message: `404 ${kind === 'group' ? 'Group' : 'Project'} Not Found`,
      });
    });
  });
}

test('withdrawing an invitation accepted meanwhile cannot be done: 409 (spec Part 2 §4.7)', async () => {
  const s = await freshSubject('group');
  const email = address();
  expectStatus(await invite(s, { email, access_level: ACCESS.GUEST }), 201);
  const [row] = await pendingRows(s);
  const someone = await t.user();
  await t.deps.db.updateTable('members').set({ user_id: someone.user.id }).where('id', '=', row.id).execute();
  await assert.rejects(destroyInvitation(systemContext(t.deps), row), (error: unknown) => error instanceof DomainError && error.status === 409 && error.message === '409 Conflict');
});

test('expired invitations are removed with expired memberships', async () => {
  const s = await freshSubject('project');
  expectStatus(await invite(s, { email: address(), access_level: ACCESS.GUEST, expires_at: '2099-01-01' }), 201);
  await t.deps.db.updateTable('members').set({ expires_at: '2001-01-01' }).where('source_id', '=', s.row.id).where('user_id', 'is', null).execute();
  await removeExpiredMembers(systemContext(t.deps));
  assert.equal((await pendingRows(s)).length, 0);
  assert.equal(await t.deps.db.selectFrom('events').select('id').where('project_id', '=', s.row.id).executeTakeFirst(), undefined);
});
