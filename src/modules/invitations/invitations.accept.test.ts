// Accepting an invitation: following its link signed in as the owner of the invited address
// (confirmed), signing up through the link, signing up and then confirming the address; the
// pending row becomes the membership in place, with its event and authorizations. And what
// accepts nothing: another account, an unconfirmed address, an administrator creating the user,
// a sign-up awaiting approval.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { createGroup, createProject, setInstanceSettings } from '../../../test/factories.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectStatus } from '../../../test/matchers.ts';
import { type TestMailServer, startMailServer } from '../../../test/smtp.ts';
import { MemberEntity } from '../members/members.schemas.ts';

let t: TestApp;
let smtp: TestMailServer;
let inviter: TestUser;
let group: NamespaceRow;
let project: ProjectRow;
let sequence = 0;

before(async () => {
  smtp = await startMailServer();
  t = await createTestApp({ QUARRY_SMTP_URL: smtp.url });
  inviter = await t.user();
  group = await createGroup(t, { name: 'Guild', members: [[inviter.user.id, ACCESS.OWNER]] });
  project = await createProject(t, { namespace: group, name: 'Forge' });
});
after(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(async () => {
  await setInstanceSettings(t, { signup_enabled: true, require_admin_approval_after_user_signup: false, send_user_confirmation_email: false });
});

const freshAddress = () => `person${++sequence}@accept.example`;

/** Invites the address to the project and returns the token its mail carries. */
async function invite(email: string, accessLevel: number = ACCESS.DEVELOPER, source = `/api/v4/projects/${project.id}`): Promise<string> {
  const res = await t.post(`${source}/invitations`, { token: inviter.token, body: { email, access_level: accessLevel } });
  assert.deepEqual(res.json(), { status: 'success' });
  await t.runJobs();
  const mail = smtp.received.findLast((m) => m.to.includes(email) && m.subject.startsWith('Invitation'));
  const token = /\/-\/invites\/([A-Za-z0-9_-]{20})/.exec(mail?.text ?? '')?.[1];
  assert.ok(token, `no invitation mail for ${email}`);
  return token;
}

/** The confirmation link's token mailed to the address. */
async function confirmationToken(email: string): Promise<string> {
  await t.runJobs();
  const mail = smtp.received.findLast((m) => m.to.includes(email) && m.subject === 'Confirmation instructions');
  const token = /confirmation_token=([A-Za-z0-9_-]{20})/.exec(mail?.text ?? '')?.[1];
  assert.ok(token, `no confirmation mail for ${email}`);
  return token;
}

async function signIn(login: string, redirectTo?: string): Promise<{ cookie: string; location: string }> {
  const form = `user%5Blogin%5D=${encodeURIComponent(login)}&user%5Bpassword%5D=${encodeURIComponent(PASSWORD)}${redirectTo ? `&redirect_to=${encodeURIComponent(redirectTo)}` : ''}`;
  const res = await t.post('/users/sign_in', { form });
  expectStatus(res, 302);
  const cookie = res.cookies.find((c) => c.name === '_service_session');
  assert.ok(cookie);
  return { cookie: `_service_session=${cookie.value}`, location: String(res.headers.location) };
}

function signUp(fields: { name?: string; username: string; email: string; password?: string }, inviteToken?: string) {
  const params = new URLSearchParams({
    'user[name]': fields.name ?? fields.username,
    'user[username]': fields.username,
    'user[email]': fields.email,
    'user[password]': fields.password ?? PASSWORD,
  });
  if (inviteToken) params.set('invite_token', inviteToken);
  return t.post('/users/sign_up', { form: params.toString() });
}

const rowOf = (email: string) => t.deps.db.selectFrom('members').selectAll().where('invite_email', '=', email).executeTakeFirstOrThrow();
const userByName = (username: string) => t.deps.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirstOrThrow();
const authorization = async (userId: number) =>
  (await t.deps.db.selectFrom('project_authorizations').select('access_level').where('user_id', '=', userId).where('project_id', '=', project.id).executeTakeFirst())?.access_level;
const joinedEvents = async (userId: number) =>
  (await t.deps.db.selectFrom('events').select('id').where('project_id', '=', project.id).where('author_id', '=', userId).where('action', '=', 'joined').execute()).length;

/** The invitation became the user's membership in place: same row, user set, token cleared, time kept; an event, an authorization, listed. */
async function assertAcceptedInPlace(email: string, invitationId: number, userId: number, level: number): Promise<void> {
  const row = await rowOf(email);
  assert.equal(row.id, invitationId);
  assert.equal(row.user_id, userId);
  assert.equal(row.invite_token, null);
  assert.ok(row.invite_accepted_at);
  assert.equal(await authorization(userId), level);
  assert.equal(await joinedEvents(userId), 1);
  const members = await t.get(`/api/v4/projects/${project.id}/members`, { token: inviter.token });
  expectEntities(members.json(), MemberEntity);
  assert.ok(members.json().some((m: { id: number; access_level: number }) => m.id === userId && m.access_level === level));
  assert.deepEqual((await t.get(`/api/v4/projects/${project.id}/invitations`, { token: inviter.token, query: { query: email } })).json(), []);
}

describe('the accept link', () => {
  test('signed in as the confirmed owner of the address: accepted at once (an administrator creating that user accepted nothing)', async () => {
    const email = freshAddress();
    const token = await invite(email, ACCESS.REPORTER);
    const { id } = await rowOf(email);
    const username = `made${sequence}`;
    const created = await t.post('/api/v4/users', { token: ROOT_TOKEN, body: { email, username, name: username, password: PASSWORD, skip_confirmation: true } });
    expectStatus(created, 201);
    assert.equal((await rowOf(email)).user_id, null);
    const { cookie } = await signIn(username);
    const res = await t.get(`/-/invites/${token}`, { headers: { cookie } });
    expectStatus(res, 200);
    assert.match(res.body, /You have been granted Reporter access to project Forge\./);
    await assertAcceptedInPlace(email, id, created.json().id, ACCESS.REPORTER);
    // The link is spent.
    expectStatus(await t.get(`/-/invites/${token}`, { headers: { cookie } }), 404);
  });

  test('signed out: to the sign-up form when nobody has the address and sign-up is open, else to the sign-in form, which comes back', async () => {
    const email = freshAddress();
    const token = await invite(email);
    const res = await t.get(`/-/invites/${token}`);
    expectStatus(res, 302);
    assert.equal(res.headers.location, `/users/sign_up?invite_token=${token}`);
    await setInstanceSettings(t, { signup_enabled: false });
    const closed = await t.get(`/-/invites/${token}`);
    assert.equal(closed.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(`/-/invites/${token}`)}`);
    const form = await t.get(String(closed.headers.location));
    assert.match(form.body, new RegExp(`<input type="hidden" name="redirect_to" value="/-/invites/${token}">`));
    const someone = await t.user();
    assert.equal((await signIn(someone.user.username, `/-/invites/${token}`)).location, `/-/invites/${token}`);
    // Only a path of this server is gone back to.
    assert.equal((await signIn(someone.user.username, '//elsewhere.example/x')).location, '/users/sign_in');
  });

  test('another account, or the address unconfirmed: nothing is accepted', async () => {
    const email = freshAddress();
    const token = await invite(email);
    const other = await t.user();
    const asOther = await t.get(`/-/invites/${token}`, { headers: { cookie: (await signIn(other.user.username)).cookie } });
    expectStatus(asOther, 403);
    assert.match(asOther.body, new RegExp(`This invitation was sent to ${email.replace('.', '\\.')}`));
    const owner = await t.user({ email, skip_confirmation: false });
    const unconfirmed = await t.get(`/-/invites/${token}`, { headers: { cookie: (await signIn(owner.user.username)).cookie } });
    expectStatus(unconfirmed, 403);
    assert.match(unconfirmed.body, /Confirm your email address first/);
    assert.equal((await rowOf(email)).user_id, null);
    assert.equal(await authorization(owner.user.id), undefined);
  });

  test('an invitation that cannot become a membership stays pending: 409', async () => {
    const email = freshAddress();
    const token = await invite(email, ACCESS.GUEST);
    const created = await t.post('/api/v4/users', { token: ROOT_TOKEN, body: { email, username: `dup${sequence}`, name: 'Dup', password: PASSWORD, skip_confirmation: true } });
    const userId = created.json().id;
    // A Maintainer of the group above may not take a lower level here.
    expectStatus(await t.post(`/api/v4/groups/${group.id}/members`, { token: inviter.token, body: { user_id: userId, access_level: ACCESS.MAINTAINER } }), 201);
    const res = await t.get(`/-/invites/${token}`, { headers: { cookie: (await signIn(`dup${sequence}`)).cookie } });
    expectStatus(res, 409);
    assert.match(res.body, /The invitation could not be accepted\./);
    assert.equal((await rowOf(email)).user_id, null);
  });

  test('an unknown token: 404', async () => {
    const res = await t.get('/-/invites/not-a-token-at-all-xyz');
    expectStatus(res, 404);
    assert.match(res.body, /Invitation not found/);
  });
});

describe('signing up', () => {
  test('through the link: the form knows the address; the account is confirmed, signed in, and a member in place', async () => {
    const email = freshAddress();
    const token = await invite(email);
    const groupToken = await invite(email, ACCESS.GUEST, `/api/v4/groups/${group.id}`);
    assert.notEqual(groupToken, token);
    const { id } = await rowOf(email);
    await setInstanceSettings(t, { send_user_confirmation_email: true });
    const form = await t.get(`/users/sign_up?invite_token=${token}`);
    expectStatus(form, 200);
    assert.match(form.body, new RegExp(`name="user\\[email\\]" type="email" value="${email.replace('.', '\\.')}"`));
    assert.match(form.body, new RegExp(`name="invite_token" value="${token}"`));
    const username = `joiner${sequence}`;
    const res = await signUp({ username, email }, token);
    expectStatus(res, 302);
    assert.equal(res.headers.location, '/users/sign_in');
    assert.ok(res.cookies.some((c) => c.name === '_service_session'));
    const user = await userByName(username);
    assert.ok(user.confirmed_at, 'the invited address needs no confirmation');
    assert.equal(user.state, 'active');
    await assertAcceptedInPlace(email, id, user.id, ACCESS.DEVELOPER);
    // Every invitation of the address is accepted, the group's too.
    const groupMembers = (await t.get(`/api/v4/groups/${group.id}/members`, { token: inviter.token })).json();
    assert.ok(groupMembers.some((m: { id: number; access_level: number }) => m.id === user.id && m.access_level === ACCESS.GUEST));
  });

  test('without the link, with confirmation mail on: accepted when the address is confirmed', async () => {
    await setInstanceSettings(t, { send_user_confirmation_email: true });
    const email = freshAddress();
    await invite(email, ACCESS.MAINTAINER);
    const { id } = await rowOf(email);
    const username = `confirmer${sequence}`;
    const res = await signUp({ username, email });
    expectStatus(res, 200);
    assert.match(res.body, /Please check your email \(.+\) to confirm your account\./);
    const user = await userByName(username);
    assert.equal(user.confirmed_at, null);
    assert.equal((await rowOf(email)).user_id, null);
    const token = await confirmationToken(email);
    const confirmed = await t.get(`/users/confirmation?confirmation_token=${token}`);
    expectStatus(confirmed, 200);
    assert.match(confirmed.body, /Your email address has been successfully confirmed\./);
    assert.ok((await userByName(username)).confirmed_at);
    await assertAcceptedInPlace(email, id, user.id, ACCESS.MAINTAINER);
    const again = await t.get(`/users/confirmation?confirmation_token=${token}`);
    expectStatus(again, 404);
    assert.match(again.body, /Confirmation token is invalid\./);
  });

  test('a user an administrator created unconfirmed is mailed a confirmation link, which accepts the invitation', async () => {
    const email = freshAddress();
    await invite(email, ACCESS.GUEST);
    const { id } = await rowOf(email);
    const created = await t.post('/api/v4/users', { token: ROOT_TOKEN, body: { email, username: `unconf${sequence}`, name: 'Unconfirmed', password: PASSWORD } });
    expectStatus(created, 201);
    assert.equal((await rowOf(email)).user_id, null);
    const token = await confirmationToken(email);
    expectStatus(await t.get(`/users/confirmation?confirmation_token=${token}`), 200);
    await assertAcceptedInPlace(email, id, created.json().id, ACCESS.GUEST);
  });

  test('an account awaiting approval accepts nothing', async () => {
    await setInstanceSettings(t, { require_admin_approval_after_user_signup: true });
    const email = freshAddress();
    const token = await invite(email);
    const username = `waiting${sequence}`;
    const res = await signUp({ username, email }, token);
    expectStatus(res, 200);
    assert.match(res.body, /awaiting approval/);
    assert.ok(!res.cookies.some((c) => c.name === '_service_session'));
    assert.equal((await userByName(username)).state, 'blocked_pending_approval');
    assert.equal((await rowOf(email)).user_id, null);
  });

  test('refusals: closed sign-up (404), a taken address or a bad field (the form again, with the reasons)', async () => {
    const taken = await signUp({ username: `again${++sequence}`, email: inviter.user.email });
    expectStatus(taken, 200);
    assert.match(taken.body, /Email has already been taken/);
    const bad = await signUp({ username: `short${sequence}`, email: freshAddress(), password: 'x', name: '' });
    assert.match(bad.body, /Name can&#39;t be blank/);
    assert.match(bad.body, /Password is too short \(minimum is 8 characters\)/);
    await setInstanceSettings(t, { signup_enabled: false });
    for (const res of [await t.get('/users/sign_up'), await signUp({ username: `closed${sequence}`, email: freshAddress() })]) {
      expectStatus(res, 404);
      assert.match(res.body, /Sign-up is closed/);
    }
  });
});
