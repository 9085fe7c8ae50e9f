// Activity events: GET /events, /users/:id/events, /projects/:id/events — shapes, filters,
// pagination, and who sees which events (project visibility, push events and code access,
// events outside projects, private profiles, external and blocked users, administrators).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { addMember, createProject } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { issueToken } from '../access-tokens/access-tokens.service.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { type NewEvent, recordEvent } from './events.service.ts';
import { actionName } from './events.presenter.ts';
import { EventEntity } from './events.schemas.ts';
import { atTime, systemContext } from '../../core/context.ts';

let t: TestApp;
let alice: TestUser; // developer of the private and internal projects, guest of `guarded`
let bob: TestUser; // no membership anywhere
let external: TestUser;
let blocked: TestUser;
let hidden: TestUser; // private profile
let readUser: string; // a token of alice's with read_user only
let priv: ProjectRow;
let internal: ProjectRow;
let pub: ProjectRow;
let guarded: ProjectRow; // private; alice is a guest, who may not read code
const ids: Record<string, number> = {};

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

async function record(name: string, event: NewEvent, at: string): Promise<void> {
  await recordEvent(atTime(systemContext(t.deps), new Date(at)), event);
  const row = await t.deps.db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  ids[name] = row.id;
}

const ids$ = (res: { json(): unknown }) => (res.json() as { id: number }[]).map((e) => e.id);
const named = (...names: string[]) => names.map((n) => ids[n]);

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice', name: 'Alice' });
  bob = await t.user({ username: 'bob' });
  external = await t.user({ external: true });
  blocked = await t.user();
  hidden = await t.user({ username: 'hidden', private_profile: true });
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
  readUser = (await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'read_user', scopes: ['read_user'] }, alice.user)).token;

  priv = await createProject(t, { visibility: 'private', members: [[alice.user.id, ACCESS.DEVELOPER]] });
  internal = await createProject(t, { visibility: 'internal', members: [[alice.user.id, ACCESS.DEVELOPER]] });
  pub = await createProject(t, { visibility: 'public' });
  guarded = await createProject(t, { visibility: 'private', members: [[alice.user.id, ACCESS.GUEST]] });

  const a = alice.user.id;
  await record('created', { projectId: priv.id, authorId: a, action: 'created' }, '2024-01-01T10:00:00.000Z');
  await record('joined', { projectId: priv.id, authorId: a, action: 'joined' }, '2024-01-02T10:00:00.000Z');
  await record(
    'pushNew',
    {
      projectId: pub.id,
      authorId: a,
      action: 'pushed',
      pushData: { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: SHA_A, ref: 'feature', commit_title: 'Add the feature', ref_count: null },
    },
    '2024-01-03T10:00:00.000Z',
  );
  await record(
    'pushTo',
    {
      projectId: internal.id,
      authorId: a,
      action: 'pushed',
      pushData: { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: SHA_A, commit_to: SHA_B, ref: 'main', commit_title: 'Fix', ref_count: null },
    },
    '2024-01-04T10:00:00.000Z',
  );
  await record(
    'pushGuarded',
    {
      projectId: guarded.id,
      authorId: a,
      action: 'pushed',
      pushData: { commit_count: 0, action: 'removed', ref_type: 'tag', commit_from: SHA_B, commit_to: null, ref: 'v1.0', commit_title: null, ref_count: null },
    },
    '2024-01-05T10:00:00.000Z',
  );
  await record('joinedGuarded', { projectId: guarded.id, authorId: a, action: 'joined' }, '2024-01-05T11:00:00.000Z');
  await record('issueOpened', { projectId: pub.id, authorId: a, action: 'created', targetType: 'Issue', targetId: 501, targetIid: 7, targetTitle: 'Broken build' }, '2024-01-06T10:00:00.000Z');
  await record('issueClosed', { projectId: pub.id, authorId: a, action: 'closed', targetType: 'Issue', targetId: 501, targetIid: 7, targetTitle: 'Broken build' }, '2024-01-07T10:00:00.000Z');
  await record('commented', { projectId: internal.id, authorId: a, action: 'commented', targetType: 'Note', targetId: 901, targetTitle: 'Broken build' }, '2024-01-08T10:00:00.000Z');
  // Outside any project: only its author (and administrators) see it.
  await record('personal', { projectId: null, authorId: a, action: 'created', targetType: 'User', targetId: a, targetTitle: 'alice' }, '2024-01-09T10:00:00.000Z');
  await record('bobPublic', { projectId: pub.id, authorId: bob.user.id, action: 'created', targetType: 'Milestone', targetId: 31, targetIid: 1, targetTitle: 'v1' }, '2024-01-10T10:00:00.000Z');
  await record('bobPrivate', { projectId: priv.id, authorId: bob.user.id, action: 'left' }, '2024-01-11T10:00:00.000Z');
  await record('hiddenPublic', { projectId: pub.id, authorId: hidden.user.id, action: 'joined' }, '2024-01-12T10:00:00.000Z');
});
after(() => t.close());

/** Alice's events, newest first. */
const ALICE_ALL = ['personal', 'commented', 'issueClosed', 'issueOpened', 'joinedGuarded', 'pushGuarded', 'pushTo', 'pushNew', 'joined', 'created'];
/** What alice herself sees: as a guest of `guarded` she may not read its code, so not its pushes either. */
const ALICE_OWN = ALICE_ALL.filter((n) => n !== 'pushGuarded');

describe('the event entity', () => {
  test('a push event carries its push data, with the author and the platform wording', async () => {
    const res = await t.get('/api/v4/events', { token: alice.token, query: { action: 'pushed', per_page: '1', sort: 'asc' } });
    expectStatus(res, 200);
    expectEntities(res.json(), EventEntity);
    assert.deepEqual(res.json(), [
      {
        id: ids.pushNew,
        title: null,
        project_id: pub.id,
        action_name: 'pushed new',
        target_id: null,
        target_iid: null,
        target_type: null,
        author_id: alice.user.id,
        target_title: null,
        created_at: '2024-01-03T10:00:00.000Z',
        author: { id: alice.user.id, username: 'alice', name: 'Alice', state: 'active', avatar_url: null, web_url: 'http://quarry.test/alice' },
        push_data: { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: SHA_A, ref: 'feature', commit_title: 'Add the feature', ref_count: null },
        author_username: 'alice',
      },
    ]);
  });

  test('an issue event names its target; other events have no push_data', async () => {
    const res = await t.get('/api/v4/events', { token: alice.token, query: { target_type: 'issue' } });
    expectStatus(res, 200);
    expectEntities(res.json(), EventEntity);
    const [closed, opened] = res.json();
    assert.deepEqual(opened, {
      id: ids.issueOpened,
      title: null,
      project_id: pub.id,
      action_name: 'opened',
      target_id: 501,
      target_iid: 7,
      target_type: 'Issue',
      author_id: alice.user.id,
      target_title: 'Broken build',
      created_at: '2024-01-06T10:00:00.000Z',
      author: { id: alice.user.id, username: 'alice', name: 'Alice', state: 'active', avatar_url: null, web_url: 'http://quarry.test/alice' },
      author_username: 'alice',
    });
    assert.equal(closed.action_name, 'closed');
  });

  test('a note target without an iid shows its id as target_iid', async () => {
    const res = await t.get('/api/v4/events', { token: alice.token, query: { target_type: 'note' } });
    expectEntities(res.json(), EventEntity);
    assert.deepEqual(
      res.json().map((e: Record<string, unknown>) => [e.action_name, e.target_id, e.target_iid, e.target_type]),
      [['commented on', 901, 901, 'Note']],
    );
  });

  test('action names', () => {
    const push = (action: 'created' | 'removed' | 'pushed') => ({ commit_count: 1, action, ref_type: 'branch' as const, commit_from: null, commit_to: null, ref: 'main', commit_title: null, ref_count: null });
    const cases: [string, string | null, ReturnType<typeof push> | null, string][] = [
      ['pushed', null, push('created'), 'pushed new'],
      ['pushed', null, push('removed'), 'deleted'],
      ['pushed', null, push('pushed'), 'pushed to'],
      ['created', null, null, 'created'],
      ['created', 'Project', null, 'created'],
      ['created', 'Issue', null, 'opened'],
      ['reopened', 'MergeRequest', null, 'opened'],
      ['updated', 'Milestone', null, 'opened'],
      ['closed', 'Issue', null, 'closed'],
      ['merged', 'MergeRequest', null, 'accepted'],
      ['approved', 'MergeRequest', null, 'approved'],
      ['joined', null, null, 'joined'],
      ['left', null, null, 'left'],
      ['expired', null, null, 'removed due to membership expiration from'],
      ['destroyed', 'Milestone', null, 'destroyed'],
      ['commented', 'Note', null, 'commented on'],
      ['created', 'WikiPage::Meta', null, 'created'],
      ['updated', 'WikiPage::Meta', null, 'updated'],
      ['created', 'DesignManagement::Design', null, 'uploaded'],
      ['updated', 'DesignManagement::Design', null, 'revised'],
      ['destroyed', 'DesignManagement::Design', null, 'deleted'],
    ];
    for (const [action, targetType, data, expected] of cases) {
      assert.equal(actionName({ action, target_type: targetType }, data), expected, `${action} ${targetType}`);
    }
  });

  test('push events from the recorder list every push_data key', async () => {
    const res = await t.get(`/api/v4/projects/${guarded.id}/events`, { token: ROOT_TOKEN, query: { action: 'pushed' } });
    expectEntities(res.json(), EventEntity);
    const [event] = res.json();
    assert.equal(event.action_name, 'deleted');
    assert.deepEqual(event.push_data, { commit_count: 0, action: 'removed', ref_type: 'tag', commit_from: SHA_B, commit_to: null, ref: 'v1.0', commit_title: null, ref_count: null });
  });
});

describe('GET /events', () => {
  test("the caller's own events, newest first, including those outside projects", async () => {
    const res = await t.get('/api/v4/events', { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), EventEntity);
    assert.deepEqual(ids$(res), named(...ALICE_OWN));
    assert.equal(res.headers['x-total'], String(ALICE_OWN.length));
  });

  test('scope=all: every event of the projects the caller is a member of, whoever wrote it', async () => {
    const res = await t.get('/api/v4/events', { token: alice.token, query: { scope: 'all' } });
    expectStatus(res, 200);
    expectEntities(res.json(), EventEntity);
    // The public project is not one of alice's, and events outside projects belong to no project.
    assert.deepEqual(ids$(res), named('bobPrivate', 'commented', 'joinedGuarded', 'pushTo', 'joined', 'created'));
  });

  test('a read_user token is enough; read_repository is not', async () => {
    const ok = await t.get('/api/v4/events', { token: readUser });
    expectStatus(ok, 200);
    expectEntities(ok.json(), EventEntity);
    const repoOnly = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'repo', scopes: ['read_repository'] }, alice.user);
    const res = await t.get('/api/v4/events', { token: repoOnly.token });
    expectError(res, 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
  });

  test('anonymous → 401; blocked → 403', async () => {
    expectError(await t.get('/api/v4/events'), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/events', { token: blocked.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
  });

  test('a user without events gets an empty page', async () => {
    const res = await t.get('/api/v4/events', { token: external.token });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
    assert.equal(res.headers['x-total'], '0');
  });
});

describe('filters', () => {
  const own = (query: Record<string, string>) => t.get('/api/v4/events', { token: alice.token, query });

  test('action', async () => {
    assert.deepEqual(ids$(await own({ action: 'joined' })), named('joinedGuarded', 'joined'));
    assert.deepEqual(ids$(await own({ action: 'approved' })), []);
  });

  test('an unknown action or target type → 400', async () => {
    expectError(await own({ action: 'opened' }), 400, { error: 'action does not have a valid value' });
    expectError(await own({ target_type: 'Issue' }), 400, { error: 'target_type does not have a valid value' });
    expectError(await own({ target_type: 'epic' }), 400, { error: 'target_type does not have a valid value' });
    expectError(await own({ sort: 'up' }), 400, { error: 'sort does not have a valid value' });
  });

  test('target_type maps to the stored class name', async () => {
    assert.deepEqual(ids$(await own({ target_type: 'user' })), named('personal'));
    assert.deepEqual(ids$(await own({ target_type: 'merge_request' })), []);
    const res = await t.get(`/api/v4/projects/${pub.id}/events`, { token: bob.token, query: { target_type: 'milestone' } });
    assert.deepEqual(ids$(res), named('bobPublic'));
  });

  test('before and after leave out the named day', async () => {
    assert.deepEqual(ids$(await own({ before: '2024-01-03' })), named('joined', 'created'));
    assert.deepEqual(ids$(await own({ after: '2024-01-07' })), named('personal', 'commented'));
    assert.deepEqual(ids$(await own({ after: '2024-01-03', before: '2024-01-06' })), named('joinedGuarded', 'pushTo'));
    assert.deepEqual(ids$(await own({ after: '2024-01-05', before: '2024-01-06' })), []);
  });

  test('dates must be dates', async () => {
    expectError(await own({ before: 'yesterday' }), 400, { error: 'before is invalid' });
    expectError(await own({ after: '2024-13-45' }), 400, { error: 'after is invalid' });
  });

  test('sort asc / desc orders by id', async () => {
    assert.deepEqual(ids$(await own({ sort: 'asc' })), named(...ALICE_OWN).reverse());
    assert.deepEqual(ids$(await own({ sort: 'desc' })), named(...ALICE_OWN));
  });

  test('pagination: pages, headers and links', async () => {
    const res = await own({ per_page: '3', page: '2', action: 'pushed' });
    expectStatus(res, 200);
    assert.deepEqual(ids$(res), []);
    const first = await own({ per_page: '1', action: 'pushed' });
    assert.deepEqual(ids$(first), named('pushTo'));
    assert.equal(first.headers['x-total'], '2');
    assert.equal(first.headers['x-total-pages'], '2');
    assert.equal(first.headers['x-next-page'], '2');
    assert.match(String(first.headers.link), /rel="next"/);
    const second = await own({ per_page: '1', page: '2', action: 'pushed' });
    assert.deepEqual(ids$(second), named('pushNew'));
    assert.equal(second.headers['x-prev-page'], '1');
  });
});

describe('GET /users/:id/events', () => {
  const ofAlice = (token?: string, query?: Record<string, string>) => t.get(`/api/v4/users/${alice.user.id}/events`, { token, query });

  test('by ID or username (any case)', async () => {
    const byId = await ofAlice(bob.token);
    expectStatus(byId, 200);
    expectEntities(byId.json(), EventEntity);
    const byName = await t.get('/api/v4/users/ALICE/events', { token: bob.token });
    expectStatus(byName, 200);
    assert.deepEqual(ids$(byName), ids$(byId));
  });

  test('unknown user → 404', async () => {
    expectError(await t.get('/api/v4/users/999999/events', { token: bob.token }), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/nobody-here/events'), 404, { message: '404 User Not Found' });
  });

  test('another signed-in user sees events of public and internal projects only, not pushes they cannot read', async () => {
    assert.deepEqual(ids$(await ofAlice(bob.token)), named('commented', 'issueClosed', 'issueOpened', 'pushTo', 'pushNew'));
  });

  test('anonymous and external users see events of public projects only', async () => {
    const anon = await ofAlice();
    expectStatus(anon, 200);
    expectEntities(anon.json(), EventEntity);
    assert.deepEqual(ids$(anon), named('issueClosed', 'issueOpened', 'pushNew'));
    assert.deepEqual(ids$(await ofAlice(external.token)), named('issueClosed', 'issueOpened', 'pushNew'));
  });

  test('the user sees their own events, but as a guest of a private project not its pushes', async () => {
    assert.deepEqual(ids$(await ofAlice(alice.token)), named(...ALICE_OWN));
  });

  test('an administrator sees every event', async () => {
    const res = await ofAlice(ROOT_TOKEN);
    expectEntities(res.json(), EventEntity);
    assert.deepEqual(ids$(res), named(...ALICE_ALL));
  });

  test('a private profile: empty for others, full for the user and administrators', async () => {
    for (const token of [undefined, bob.token, alice.token]) {
      const res = await t.get(`/api/v4/users/${hidden.user.id}/events`, { token });
      expectStatus(res, 200);
      assert.deepEqual(res.json(), []);
      assert.equal(res.headers['x-total'], '0');
    }
    assert.deepEqual(ids$(await t.get('/api/v4/users/hidden/events', { token: hidden.token })), named('hiddenPublic'));
    assert.deepEqual(ids$(await t.get('/api/v4/users/hidden/events', { token: ROOT_TOKEN })), named('hiddenPublic'));
  });

  test('a blocked user’s profile reads as empty; a blocked caller is refused', async () => {
    const other = await createProject(t, { visibility: 'public' });
    await record('blockedOwn', { projectId: other.id, authorId: blocked.user.id, action: 'joined' }, '2024-02-01T10:00:00.000Z');
    assert.deepEqual(ids$(await t.get(`/api/v4/users/${blocked.user.id}/events`, { token: bob.token })), []);
    assert.deepEqual(ids$(await t.get(`/api/v4/users/${blocked.user.id}/events`, { token: ROOT_TOKEN })), named('blockedOwn'));
    expectError(await ofAlice(blocked.token), 403, { message: '403 Forbidden - Your account has been blocked.' });
  });

  test('filters apply', async () => {
    assert.deepEqual(ids$(await ofAlice(bob.token, { action: 'closed' })), named('issueClosed'));
    expectError(await ofAlice(bob.token, { action: 'nope' }), 400, { error: 'action does not have a valid value' });
    assert.deepEqual(ids$(await ofAlice(bob.token, { sort: 'asc', per_page: '2' })), named('pushNew', 'pushTo'));
  });

  test('a read_user token may read them', async () => {
    expectStatus(await ofAlice(readUser), 200);
  });
});

describe('GET /projects/:id/events', () => {
  const of = (project: ProjectRow | string, token?: string, query?: Record<string, string>) =>
    t.get(`/api/v4/projects/${typeof project === 'string' ? project : project.id}/events`, { token, query });

  test('a public project: anyone, anonymous included', async () => {
    for (const token of [undefined, bob.token, external.token, alice.token]) {
      const res = await of(pub, token);
      expectStatus(res, 200);
      expectEntities(res.json(), EventEntity);
      assert.deepEqual(ids$(res), named('hiddenPublic', 'bobPublic', 'issueClosed', 'issueOpened', 'pushNew'));
    }
  });

  test('by URL-encoded full path', async () => {
    const res = await of(encodeURIComponent(pub.full_path), bob.token);
    expectStatus(res, 200);
    assert.equal(res.json().length, 5);
  });

  test('a private project: members and administrators; others get 404', async () => {
    const member = await of(priv, alice.token);
    expectStatus(member, 200);
    expectEntities(member.json(), EventEntity);
    assert.deepEqual(ids$(member), named('bobPrivate', 'joined', 'created'));
    assert.deepEqual(ids$(await of(priv, ROOT_TOKEN)), named('bobPrivate', 'joined', 'created'));
    for (const token of [undefined, bob.token, external.token]) expectError(await of(priv, token), 404, { message: '404 Project Not Found' });
  });

  test('an internal project: signed-in users who are not external', async () => {
    assert.deepEqual(ids$(await of(internal, bob.token)), named('commented', 'pushTo'));
    expectError(await of(internal), 404, { message: '404 Project Not Found' });
    expectError(await of(internal, external.token), 404, { message: '404 Project Not Found' });
  });

  test('a guest of a private project does not see its push events', async () => {
    assert.deepEqual(ids$(await of(guarded, alice.token)), named('joinedGuarded'));
    assert.deepEqual(ids$(await of(guarded, ROOT_TOKEN)), named('joinedGuarded', 'pushGuarded'));
  });

  test('an external member sees the events of their project', async () => {
    await addMember(t, internal, external.user.id, ACCESS.REPORTER);
    assert.deepEqual(ids$(await of(internal, external.token)), named('commented', 'pushTo'));
  });

  test('unknown project → 404; blocked caller → 403', async () => {
    expectError(await of('999999', bob.token), 404, { message: '404 Project Not Found' });
    expectError(await of('no%2Fsuch', bob.token), 404, { message: '404 Project Not Found' });
    expectError(await of(pub, blocked.token), 403, { message: '403 Forbidden - Your account has been blocked.' });
  });

  test('filters and validation', async () => {
    assert.deepEqual(ids$(await of(pub, bob.token, { action: 'created', after: '2024-01-06' })), named('bobPublic'));
    expectError(await of(pub, bob.token, { target_type: 'wall' }), 400, { error: 'target_type does not have a valid value' });
    expectEntity((await of(pub, bob.token, { per_page: '1' })).json(), Type.Array(EventEntity, { maxItems: 1 }));
  });

  test('a read_user token is not enough for project events', async () => {
    const res = await of(pub, readUser);
    expectError(res, 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api',
    });
  });
});
