// Project members: listing (direct and inherited), showing, adding (one or several), changing and
// removing, with the platform's validation messages, events and authorizations.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { addMember, createGroup, createProject, personalNamespace } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { issueToken } from '../access-tokens/access-tokens.service.ts';
import { createUser } from '../users/users.service.ts';
import { MemberEntity } from './members.schemas.ts';
import { systemContext } from '../../core/context.ts';

let t: TestApp;
let owner: TestUser;
let maintainer: TestUser;
let project: ProjectRow;
const NOW = new Date('2030-05-10T12:00:00.000Z');

before(async () => {
  t = await createTestApp({}, { now: () => NOW });
  owner = await t.user();
  maintainer = await t.user();
});
after(() => t.close());

beforeEach(async () => {
  project = await createProject(t, { namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id, members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
});

const url = (suffix = '') => `/api/v4/projects/${project.id}/members${suffix}`;

async function events(projectId: number) {
  const rows = await t.deps.db.selectFrom('events').select(['action', 'author_id', 'project_id']).where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => ({ ...r }));
}

function memberOf(user: UserRow, level: number, extra: { created_at?: string; expires_at?: string | null } = {}) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: null,
    web_url: `${BASE_URL}/${user.username}`,
    access_level: level,
    created_at: extra.created_at ?? NOW.toISOString(),
    expires_at: extra.expires_at ?? null,
    membership_state: 'active',
  };
}

describe('GET /projects/:id/members', () => {
  test('direct members in the order they joined, with the pagination headers', async () => {
    const a = await t.user({ name: 'Alice Liddell', username: 'alice-l' });
    const b = await t.user({ name: 'Bob Builder' });
    await addMember(t, project, a.user.id, ACCESS.DEVELOPER);
    await addMember(t, project, b.user.id, ACCESS.GUEST, '2031-01-01');
    const res = await t.get(url(), { token: maintainer.token, query: { per_page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), MemberEntity);
    assert.deepEqual(res.json(), [memberOf(maintainer.user, ACCESS.MAINTAINER), memberOf(a.user, ACCESS.DEVELOPER)]);
    assert.equal(res.headers['x-total'], '3');
    assert.equal(res.headers['x-total-pages'], '2');
    const page2 = await t.get(url(), { token: maintainer.token, query: { per_page: '2', page: '2' } });
    assert.deepEqual(page2.json(), [memberOf(b.user, ACCESS.GUEST, { expires_at: '2031-01-01' })]);
  });

  test('query matches name or username parts, or the exact public email; exact matches first', async () => {
    const a = await t.user({ name: 'Carol Danvers', username: 'captain' });
    const b = await t.user({ name: 'captain', username: 'marvel-fan' });
    const c = await t.user({ name: 'Someone Else', username: 'else1', email: 'shown@example.org' });
    await t.deps.db.updateTable('users').set({ public_email: 'shown@example.org' }).where('id', '=', c.user.id).execute();
    for (const u of [a, b, c]) await addMember(t, project, u.user.id, ACCESS.REPORTER);
    const ids = async (query: string) => (await t.get(url(), { token: maintainer.token, query: { query } })).json().map((m: { id: number }) => m.id);
    // The exact name match first, then by name.
    assert.deepEqual(await ids('captain'), [b.user.id, a.user.id]);
    assert.deepEqual(await ids('@CAROL dan'), [a.user.id]);
    assert.deepEqual(await ids('Shown@example.org'), [c.user.id]);
    assert.deepEqual(await ids('shown'), []);
    // A private email is not revealed.
    assert.deepEqual(await ids(a.user.email), []);
    assert.deepEqual(await ids(''), [maintainer.user.id, a.user.id, b.user.id, c.user.id]);
  });

  test('user_ids filters, as a comma list or an array', async () => {
    const a = await t.user();
    await addMember(t, project, a.user.id, ACCESS.REPORTER);
    const list = await t.get(`${url()}?user_ids=${a.user.id},${owner.user.id}`, { token: maintainer.token });
    assert.deepEqual(list.json().map((m: { id: number }) => m.id), [a.user.id]);
    const array = await t.get(`${url()}?user_ids[]=${a.user.id}&user_ids[]=${maintainer.user.id}`, { token: maintainer.token });
    assert.deepEqual(array.json().map((m: { id: number }) => m.id), [maintainer.user.id, a.user.id]);
    expectError(await t.get(`${url()}?user_ids=x`, { token: maintainer.token }), 400, { error: 'user_ids is invalid' });
  });

  test('a project path works as the id', async () => {
    const res = await t.get(`/api/v4/projects/${encodeURIComponent(project.full_path)}/members`, { token: maintainer.token });
    expectStatus(res, 200);
    assert.equal(res.json().length, 1);
  });

  test('unknown project: 404', async () => {
    expectError(await t.get('/api/v4/projects/99999/members', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
  });
});

describe('GET /projects/:id/members/all and /members/all/:user_id', () => {
  let top: NamespaceRow;
  let sub: NamespaceRow;
  let groupProject: ProjectRow;
  let user: TestUser;

  beforeEach(async () => {
    user = await t.user();
    top = await createGroup(t, { members: [[owner.user.id, ACCESS.OWNER], [user.user.id, ACCESS.DEVELOPER]] });
    sub = await createGroup(t, { parent: top });
    groupProject = await createProject(t, { namespace: sub });
  });

  test('inherited members, one per user at the highest level, minimal access left out', async () => {
    const minimal = await t.user();
    await addMember(t, top, minimal.user.id, ACCESS.MINIMAL_ACCESS);
    await addMember(t, sub, user.user.id, ACCESS.MAINTAINER, '2031-02-02');
    await addMember(t, groupProject, user.user.id, ACCESS.REPORTER);
    const res = await t.get(`/api/v4/projects/${groupProject.id}/members/all`, { token: owner.token });
    expectStatus(res, 200);
    expectEntities(res.json(), MemberEntity);
    assert.deepEqual(res.json(), [memberOf(owner.user, ACCESS.OWNER), memberOf(user.user, ACCESS.MAINTAINER, { expires_at: '2031-02-02' })]);
    assert.equal(res.headers['x-total'], '2');
    const direct = await t.get(`/api/v4/projects/${groupProject.id}/members`, { token: owner.token });
    assert.deepEqual(direct.json(), [memberOf(user.user, ACCESS.REPORTER)]);
  });

  test('a level held twice: the project membership wins, then the one that does not expire', async () => {
    await addMember(t, groupProject, user.user.id, ACCESS.DEVELOPER, '2031-01-01');
    let res = await t.get(`/api/v4/projects/${groupProject.id}/members/all/${user.user.id}`, { token: owner.token });
    assert.deepEqual(res.json(), memberOf(user.user, ACCESS.DEVELOPER, { expires_at: '2031-01-01' }));
    await addMember(t, sub, user.user.id, ACCESS.DEVELOPER);
    await t.deps.db.deleteFrom('members').where('source_type', '=', 'Project').where('user_id', '=', user.user.id).execute();
    res = await t.get(`/api/v4/projects/${groupProject.id}/members/all/${user.user.id}`, { token: owner.token });
    assert.deepEqual(res.json(), memberOf(user.user, ACCESS.DEVELOPER));
  });

  test('query and user_ids filter the inherited list too', async () => {
    const res = await t.get(`/api/v4/projects/${groupProject.id}/members/all`, { token: owner.token, query: { user_ids: String(user.user.id) } });
    assert.deepEqual(res.json().map((m: { id: number }) => m.id), [user.user.id]);
    const byName = await t.get(`/api/v4/projects/${groupProject.id}/members/all`, { token: owner.token, query: { query: owner.user.username } });
    assert.deepEqual(byName.json().map((m: { id: number }) => m.id), [owner.user.id]);
  });

  test('someone who is no member, directly or above: 404 Not found', async () => {
    const stranger = await t.user();
    expectError(await t.get(`/api/v4/projects/${groupProject.id}/members/all/${stranger.user.id}`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`/api/v4/projects/${groupProject.id}/members/${user.user.id}`, { token: owner.token }), 404, { message: '404 Not found' });
  });
});

describe('GET /projects/:id/members/:user_id', () => {
  test('the member', async () => {
    const res = await t.get(url(`/${maintainer.user.id}`), { token: owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), MemberEntity);
    assert.deepEqual(res.json(), memberOf(maintainer.user, ACCESS.MAINTAINER));
  });

  test('not a member: 404; a user id that is not a number: 400', async () => {
    expectError(await t.get(url(`/${owner.user.id}`), { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(url('/abc'), { token: owner.token }), 400, { error: 'user_id is invalid' });
  });
});

describe('POST /projects/:id/members', () => {
  test('adds the member: 201, the entity, a joined event and access to the project', async () => {
    const { user, token } = await t.user();
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 404);
    const res = await t.post(url(), { token: maintainer.token, body: { user_id: user.id, access_level: ACCESS.DEVELOPER, expires_at: '2030-06-01' } });
    expectStatus(res, 201);
    expectEntity(res.json(), MemberEntity);
    assert.deepEqual(res.json(), memberOf(user, ACCESS.DEVELOPER, { expires_at: '2030-06-01' }));
    assert.deepEqual(await events(project.id), [{ action: 'joined', author_id: user.id, project_id: project.id }]);
    const row = await t.deps.db.selectFrom('members').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.created_by_id, maintainer.user.id);
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 200);
  });

  test('form parameters, a date and time (its date is kept), an empty expiry, today', async () => {
    const a = await t.user();
    const res = await t.post(url(), { token: maintainer.token, form: `user_id=${a.user.id}&access_level=20&expires_at=2030-07-01T23:00:00Z` });
    expectStatus(res, 201);
    assert.equal(res.json().expires_at, '2030-07-01');
    const b = await t.user();
    assert.equal((await t.post(url(), { token: maintainer.token, body: { user_id: b.user.id, access_level: 20, expires_at: '' } })).json().expires_at, null);
    const c = await t.user();
    assert.equal((await t.post(url(), { token: maintainer.token, body: { user_id: c.user.id, access_level: 20, expires_at: '2030-05-10' } })).json().expires_at, '2030-05-10');
  });

  test('parameter errors come first', async () => {
    expectError(await t.post(url(), { token: maintainer.token, body: {} }), 400, { error: 'access_level is missing, user_id is missing' });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: 2, access_level: 'high' } }), 400, { error: 'access_level is invalid' });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: 2, access_level: 30, expires_at: 'soon' } }), 400, { error: 'expires_at is invalid' });
    expectError(await t.post('/api/v4/projects/99999/members', { token: maintainer.token, body: {} }), 400, { error: 'access_level is missing, user_id is missing' });
  });

  test('model validation: levels a project does not have, a past expiry', async () => {
    const { user } = await t.user();
    for (const level of [ACCESS.NO_ACCESS, ACCESS.MINIMAL_ACCESS, ACCESS.OWNER, 35]) {
      expectError(await t.post(url(), { token: maintainer.token, body: { user_id: user.id, access_level: level } }), 400, { message: { access_level: ['is not included in the list'] } });
    }
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: user.id, access_level: 30, expires_at: '2030-05-09' } }), 400, {
      message: { expires_at: ['cannot be a date in the past'] },
    });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: user.id, access_level: 50, expires_at: '2020-01-01' } }), 400, {
      message: { expires_at: ['cannot be a date in the past'], access_level: ['is not included in the list'] },
    });
    assert.equal((await events(project.id)).length, 0);
  });

  test('a level below one inherited from a group above is refused', async () => {
    const { user } = await t.user();
    const group = await createGroup(t, { name: 'Platform Team', members: [[user.id, ACCESS.DEVELOPER], [maintainer.user.id, ACCESS.OWNER]] });
    const inGroup = await createProject(t, { namespace: group });
    expectError(await t.post(`/api/v4/projects/${inGroup.id}/members`, { token: maintainer.token, body: { user_id: user.id, access_level: ACCESS.REPORTER } }), 400, {
      message: { access_level: ['should be greater than or equal to Developer inherited membership from group Platform Team'] },
    });
    expectStatus(await t.post(`/api/v4/projects/${inGroup.id}/members`, { token: maintainer.token, body: { user_id: user.id, access_level: ACCESS.MAINTAINER } }), 201);
  });

  test('already a member: 409; unknown user: 404', async () => {
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: maintainer.user.id, access_level: 30 } }), 409, { message: 'Member already exists' });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: 99999, access_level: 30 } }), 404, { message: '404 User Not Found' });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: 'someone', access_level: 30 } }), 404, { message: '404 User Not Found' });
  });

  test('a project bot cannot join another project', async () => {
    const bot = await createUser(systemContext(t.deps), { username: 'project_1_bot_x', email: 'bot@noreply.quarry.test', name: 'bot', force_random_password: true }, { userType: 'project_bot' });
    expectError(await t.post(url(), { token: maintainer.token, body: { user_id: bot.id, access_level: 30 } }), 400, {
      message: { user_id: ['project bots cannot be added to other groups / projects'] },
    });
  });

  test('several user ids separated by commas: added, or updated when members; unknown ids skipped', async () => {
    const a = await t.user();
    const b = await t.user();
    await addMember(t, project, b.user.id, ACCESS.GUEST);
    const res = await t.post(url(), { token: maintainer.token, body: { user_id: `${a.user.id},${b.user.id},99999`, access_level: ACCESS.REPORTER } });
    expectStatus(res, 201);
    assert.deepEqual(res.json(), { status: 'success' });
    const levels = await t.deps.db.selectFrom('members').select(['user_id', 'access_level']).where('source_id', '=', project.id).where('source_type', '=', 'Project').orderBy('id').execute();
    assert.deepEqual(
      levels.map((r) => ({ ...r })),
      [
        { user_id: maintainer.user.id, access_level: ACCESS.MAINTAINER },
        { user_id: b.user.id, access_level: ACCESS.REPORTER },
        { user_id: a.user.id, access_level: ACCESS.REPORTER },
      ],
    );
    assert.deepEqual((await events(project.id)).map((e) => e.author_id), [a.user.id]);
  });

  test('several user ids: failures are reported per user, the others still added', async () => {
    const a = await t.user({ username: 'bulk-a' });
    const b = await t.user({ username: 'bulk-b' });
    const res = await t.post(url(), { token: maintainer.token, body: { user_id: `${a.user.id},${b.user.id}`, access_level: ACCESS.OWNER, expires_at: '2020-01-01' } });
    expectStatus(res, 201);
    assert.deepEqual(res.json(), {
      status: 'error',
      message:
        'bulk-a: Expires at cannot be a date in the past and Access level is not included in the list and bulk-b: Expires at cannot be a date in the past and Access level is not included in the list',
    });
    assert.deepEqual((await t.post(url(), { token: maintainer.token, body: { user_id: ',', access_level: 30 } })).json(), { status: 'error', message: 'No users specified.' });
    const many = Array.from({ length: 101 }, (_, i) => i + 1000).join(',');
    assert.deepEqual((await t.post(url(), { token: maintainer.token, body: { user_id: many, access_level: 30 } })).json(), {
      status: 'error',
      message: 'Too many users specified (limit is 100)',
    });
    const email = await t.user({ email: 'by-mail@example.com' });
    assert.deepEqual((await t.post(url(), { token: maintainer.token, body: { user_id: `BY-MAIL@example.com,${a.user.id}`, access_level: 30 } })).json(), { status: 'success' });
    assert.ok(await t.deps.db.selectFrom('members').select('id').where('user_id', '=', email.user.id).executeTakeFirst());
  });
});

describe('PUT /projects/:id/members/:user_id', () => {
  test('changes the level (and access) and keeps an expiry left out', async () => {
    const { user, token } = await t.user();
    await addMember(t, project, user.id, ACCESS.GUEST, '2030-12-31');
    const res = await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: ACCESS.MAINTAINER } });
    expectStatus(res, 200);
    expectEntity(res.json(), MemberEntity);
    assert.deepEqual(res.json(), memberOf(user, ACCESS.MAINTAINER, { expires_at: '2030-12-31' }));
    // Now a maintainer, the user may add members.
    const other = await t.user();
    expectStatus(await t.post(url(), { token, body: { user_id: other.user.id, access_level: 10 } }), 201);
  });

  test('sets and clears the expiry', async () => {
    const { user } = await t.user();
    await addMember(t, project, user.id, ACCESS.GUEST);
    assert.equal((await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 10, expires_at: '2031-03-03' } })).json().expires_at, '2031-03-03');
    assert.equal((await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 10, expires_at: '' } })).json().expires_at, null);
    assert.equal((await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 10, expires_at: '2031-03-04' } })).json().expires_at, '2031-03-04');
    assert.equal((await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 10, expires_at: null } })).json().expires_at, null);
  });

  test('errors: parameters, not a member, model validation', async () => {
    const { user } = await t.user();
    await addMember(t, project, user.id, ACCESS.GUEST);
    expectError(await t.put(url(`/${user.id}`), { token: maintainer.token, body: {} }), 400, { error: 'access_level is missing' });
    expectError(await t.put(url('/99999'), { token: maintainer.token, body: { access_level: 30 } }), 404, { message: '404 Not found' });
    expectError(await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 50 } }), 400, { message: { access_level: ['is not included in the list'] } });
    expectError(await t.put(url(`/${user.id}`), { token: maintainer.token, body: { access_level: 30, expires_at: '2030-01-01' } }), 400, {
      message: { expires_at: ['cannot be a date in the past'] },
    });
    const row = await t.deps.db.selectFrom('members').select(['access_level', 'expires_at']).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...row }, { access_level: ACCESS.GUEST, expires_at: null });
  });

  test("neither a project bot's membership nor the namespace owner's can be changed", async () => {
    const bot = await createUser(systemContext(t.deps), { username: 'project_9_bot_y', email: 'boty@noreply.quarry.test', name: 'bot', force_random_password: true }, { userType: 'project_bot' });
    await addMember(t, project, bot.id, ACCESS.MAINTAINER);
    await addMember(t, project, owner.user.id, ACCESS.MAINTAINER);
    expectError(await t.put(url(`/${bot.id}`), { token: maintainer.token, body: { access_level: 30 } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url(`/${owner.user.id}`), { token: ROOT_TOKEN, body: { access_level: 30 } }), 403, { message: '403 Forbidden' });
  });
});

describe('DELETE /projects/:id/members/:user_id', () => {
  test('removes the member: 204, a left event, access gone', async () => {
    const { user, token } = await t.user();
    await addMember(t, project, user.id, ACCESS.DEVELOPER);
    const res = await t.del(url(`/${user.id}`), { token: maintainer.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await events(project.id), [{ action: 'left', author_id: user.id, project_id: project.id }]);
    expectStatus(await t.get(url(), { token }), 404);
    expectError(await t.del(url(`/${user.id}`), { token: maintainer.token }), 404, { message: '404 Not found' });
  });

  test('any member may leave; a member may not remove another', async () => {
    const a = await t.user();
    const b = await t.user();
    await addMember(t, project, a.user.id, ACCESS.GUEST);
    await addMember(t, project, b.user.id, ACCESS.GUEST);
    expectError(await t.del(url(`/${b.user.id}`), { token: a.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(url(`/${a.user.id}`), { token: a.token }), 204);
  });

  test("a project bot's membership: only the bot itself removes it; the namespace owner's: nobody", async () => {
    const bot = await createUser(systemContext(t.deps), { username: 'project_9_bot_z', email: 'botz@noreply.quarry.test', name: 'bot', force_random_password: true }, { userType: 'project_bot' });
    await addMember(t, project, bot.id, ACCESS.MAINTAINER);
    await addMember(t, project, owner.user.id, ACCESS.MAINTAINER);
    expectError(await t.del(url(`/${bot.id}`), { token: maintainer.token }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${owner.user.id}`), { token: owner.token }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${owner.user.id}`), { token: ROOT_TOKEN }), 403, { message: '403 Forbidden' });
    const { token } = await issueToken(systemContext(t.deps), { userId: bot.id, name: 'bot', scopes: ['api'] }, bot);
    expectStatus(await t.del(url(`/${bot.id}`), { token }), 204);
  });

  test('skip_subresources and unassign_issuables are accepted', async () => {
    const { user } = await t.user();
    await addMember(t, project, user.id, ACCESS.DEVELOPER);
    expectStatus(await t.del(`${url(`/${user.id}`)}?skip_subresources=true&unassign_issuables=true`, { token: maintainer.token }), 204);
    expectError(await t.del(`${url(`/${maintainer.user.id}`)}?skip_subresources=maybe`, { token: maintainer.token }), 400, { error: 'skip_subresources is invalid' });
  });
});
