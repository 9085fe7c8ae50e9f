// GET /users/:id and GET /user: which form each caller gets, and what a private profile hides.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { issueToken } from '../access-tokens/access-tokens.service.ts';
import { UserAdminEntity, UserEntity, UserSelfEntity } from './users.schemas.ts';
import { systemContext } from '../../core/context.ts';

let t: TestApp;
let alice: TestUser;
let hidden: TestUser;
let unconfirmed: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({
    username: 'alice',
    name: 'Alice Liddell',
    email: 'alice@wonder.test',
    bio: 'Curious',
    location: 'Wonderland',
    organization: 'Tea Party',
    extern_uid: 'a-1',
    provider: 'github',
  });
  hidden = await t.user({ username: 'hidden', private_profile: true });
  unconfirmed = await t.user({ username: 'unconfirmed', skip_confirmation: false });
  const at = new Date().toISOString();
  await t.deps.db.insertInto('user_custom_attributes').values({ user_id: alice.user.id, key: 'team', value: 'red', created_at: at, updated_at: at }).execute();
});
after(() => t.close());

describe('GET /users/:id', () => {
  test('another user gets the single form', async () => {
    const viewer = await t.user();
    const res = await t.get(`/api/v4/users/${alice.user.id}`, { token: viewer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), UserEntity);
    assert.deepEqual(res.json(), {
      id: alice.user.id,
      username: 'alice',
      name: 'Alice Liddell',
      state: 'active',
      avatar_url: null,
      web_url: 'http://quarry.test/alice',
      created_at: alice.user.created_at,
      bio: 'Curious',
      bot: false,
      location: 'Wonderland',
      public_email: null,
      skype: '',
      linkedin: '',
      twitter: '',
      website_url: '',
      organization: 'Tea Party',
      job_title: '',
      followers: 0,
      following: 0,
    });
  });

  test('anonymous callers get the single form too', async () => {
    const res = await t.get(`/api/v4/users/${alice.user.id}`);
    expectStatus(res, 200);
    expectEntity(res.json(), UserEntity);
    assert.equal(res.json().created_at, alice.user.created_at);
  });

  test('an administrator gets the administrator form, with identities', async () => {
    const res = await t.get(`/api/v4/users/${alice.user.id}`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), UserAdminEntity);
    const body = res.json();
    assert.equal(body.email, 'alice@wonder.test');
    assert.equal(body.is_admin, false);
    assert.deepEqual(body.identities, [{ provider: 'github', extern_uid: 'a-1' }]);
    assert.equal(body.commit_email, 'alice@wonder.test');
    assert.equal(body.can_create_project, true);
    assert.equal('custom_attributes' in body, false);
  });

  test('with_custom_attributes=true adds them for administrators only', async () => {
    const res = await t.get(`/api/v4/users/${alice.user.id}`, { token: ROOT_TOKEN, query: { with_custom_attributes: 'true' } });
    expectEntity(res.json(), UserAdminEntity);
    assert.deepEqual(res.json().custom_attributes, [{ key: 'team', value: 'red' }]);
    const other = await t.get(`/api/v4/users/${alice.user.id}`, { token: hidden.token, query: { with_custom_attributes: 'true' } });
    expectEntity(other.json(), UserEntity);
    assert.equal('custom_attributes' in other.json(), false);
  });

  test('a private profile hides created_at, followers and following from others', async () => {
    for (const token of [alice.token, undefined]) {
      const res = await t.get(`/api/v4/users/${hidden.user.id}`, { token });
      expectStatus(res, 200);
      expectEntity(res.json(), UserEntity);
      for (const key of ['created_at', 'followers', 'following']) assert.equal(key in res.json(), false, key);
    }
  });

  test('the user and administrators still see a private profile whole', async () => {
    const own = await t.get(`/api/v4/users/${hidden.user.id}`, { token: hidden.token });
    expectEntity(own.json(), UserEntity);
    assert.equal(own.json().created_at, hidden.user.created_at);
    assert.equal(own.json().followers, 0);
    const byAdmin = await t.get(`/api/v4/users/${hidden.user.id}`, { token: ROOT_TOKEN });
    expectEntity(byAdmin.json(), UserAdminEntity);
    assert.equal(byAdmin.json().private_profile, true);
  });

  test('an unconfirmed or blocked user’s profile is hidden the same way', async () => {
    const res = await t.get(`/api/v4/users/${unconfirmed.user.id}`, { token: alice.token });
    expectEntity(res.json(), UserEntity);
    assert.equal('created_at' in res.json(), false);

    const blocked = await t.user();
    await t.post(`/api/v4/users/${blocked.user.id}/block`, { token: ROOT_TOKEN });
    const seen = await t.get(`/api/v4/users/${blocked.user.id}`, { token: alice.token });
    expectEntity(seen.json(), UserEntity);
    assert.equal(seen.json().state, 'blocked');
    assert.equal('followers' in seen.json(), false);
  });

  test('a bot is flagged', async () => {
    const bot = await t.user({ username: 'project_7_bot' });
    await t.deps.db.updateTable('users').set({ user_type: 'project_bot' }).where('id', '=', bot.user.id).execute();
    const res = await t.get(`/api/v4/users/${bot.user.id}`, { token: alice.token });
    expectEntity(res.json(), UserEntity);
    assert.equal(res.json().bot, true);
  });

  test('an unknown user is 404 User Not Found; a non-numeric id is no route at all', async () => {
    expectError(await t.get('/api/v4/users/999999', { token: alice.token }), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/999999'), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/alice', { token: alice.token }), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4/users/-1', { token: alice.token }), 404, { error: '404 Not Found' });
  });

  test('a blocked caller is refused', async () => {
    const blocked = await t.user();
    await t.post(`/api/v4/users/${blocked.user.id}/block`, { token: ROOT_TOKEN });
    expectError(await t.get(`/api/v4/users/${alice.user.id}`, { token: blocked.token }), 403, {
      message: '403 Forbidden - Your account has been blocked.',
    });
  });

  test('read_user and read_api tokens may read; other scopes may not', async () => {
    for (const scope of ['read_user', 'read_api']) {
      const reader = await t.user({}, [scope]);
      expectStatus(await t.get(`/api/v4/users/${alice.user.id}`, { token: reader.token }), 200);
    }
    const repo = await t.user({}, ['read_repository']);
    expectError(await t.get(`/api/v4/users/${alice.user.id}`, { token: repo.token }), 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
  });
});

describe('GET /user', () => {
  test('a user gets the self form of itself', async () => {
    const res = await t.get('/api/v4/user', { token: alice.token });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    const body = res.json();
    assert.equal(body.id, alice.user.id);
    assert.equal(body.email, 'alice@wonder.test');
    assert.deepEqual(body.identities, [{ provider: 'github', extern_uid: 'a-1' }]);
    assert.equal(body.private_profile, false);
    assert.equal(body.external, false);
    assert.equal(body.can_create_group, true);
    assert.equal(body.projects_limit, 100000);
    assert.equal(body.theme_id, 1);
    assert.equal(body.color_scheme_id, 1);
    assert.equal(body.two_factor_enabled, false);
    assert.equal(body.confirmed_at, alice.user.confirmed_at);
    assert.equal('is_admin' in body, false);
  });

  test('a private profile does not hide anything from its owner', async () => {
    const res = await t.get('/api/v4/user', { token: hidden.token });
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().private_profile, true);
    assert.equal(res.json().created_at, hidden.user.created_at);
  });

  test('an administrator gets the administrator form', async () => {
    const res = await t.get('/api/v4/user', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().is_admin, true);
    assert.equal(res.json().username, 'root');
  });

  test('an external user sees its own restrictions', async () => {
    const external = await t.user({ external: true });
    const res = await t.get('/api/v4/user', { token: external.token });
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().external, true);
    assert.equal(res.json().can_create_group, false);
    assert.equal(res.json().projects_limit, 0);
    assert.equal(res.json().can_create_project, false);
  });

  test('read_user is enough; anonymous callers get 401; blocked users 403', async () => {
    const reader = await t.user({}, ['read_user']);
    const res = await t.get('/api/v4/user', { token: reader.token });
    expectStatus(res, 200);
    assert.equal(res.json().id, reader.user.id);
    expectError(await t.get('/api/v4/user'), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/user', { token: 'glpat-not-a-real-token-000' }), 401, { message: '401 Unauthorized' });
    const blocked = await t.user();
    await t.post(`/api/v4/users/${blocked.user.id}/block`, { token: ROOT_TOKEN });
    expectError(await t.get('/api/v4/user', { token: blocked.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
  });

  test('sudo reads another user through GET /user', async () => {
    const root = await t.deps.db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    const { token } = await issueToken(systemContext(t.deps), { userId: 1, name: 'sudo', scopes: ['api', 'sudo'] }, root);
    const res = await t.get('/api/v4/user', { token, headers: { sudo: 'alice' } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().id, alice.user.id);
  });
});
