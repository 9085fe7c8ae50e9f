// The instance's settings take effect: each test changes a setting through PUT /application/settings
// (as an administrator would) or the settings' writer, then shows what it changes.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setInstanceSettings } from '../../../test/factories.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { systemContext } from '../../core/context.ts';
import { openDatabase } from '../../db/database.ts';
import { APPLICATION_SETTINGS, RECHECK_MS, applicationSettings, chooseRepositoryStorage, listenForSettingsChanges, signUpDomainError } from '../../domain/settings/application-settings.ts';
import { MergeRequestChangesEntity } from '../merge-requests/merge-requests.schemas.ts';
import { ProjectEntity } from '../projects/projects.schemas.ts';
import { deactivateDormantUsers } from '../users/users.service.ts';
import { ApplicationSettingEntity } from './application-settings.schemas.ts';

let t: TestApp;
let alice: TestUser;
let sequence = 0;
let clock = Date.parse('2031-06-01T09:00:00.000Z');

before(async () => {
  t = await createTestApp({ QUARRY_REPOSITORY_STORAGES: JSON.stringify({ default: 'repositories', fast: 'repositories-fast' }) }, { now: () => new Date(clock) });
  alice = await t.user();
});
afterEach(() => setInstanceSettings(t, APPLICATION_SETTINGS.defaults));
after(() => t.close());

const change = async (body: unknown) => {
  const res = await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body });
  expectStatus(res, 200);
  expectEntity(res.json(), ApplicationSettingEntity);
  return res.json();
};
const form = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
const cookieOf = (res: { cookies: { name: string; value: string }[] }) => {
  const cookie = res.cookies.find((c) => c.name === '_service_session');
  assert.ok(cookie, 'no session cookie');
  return `_service_session=${cookie.value}`;
};
const signIn = async (login: string, password = PASSWORD) => {
  const res = await t.post('/users/sign_in', { form: form({ 'user[login]': login, 'user[password]': password }) });
  expectStatus(res, 302);
  return cookieOf(res);
};
const csrfOf = async (cookie: string) => {
  const match = /<meta name="csrf-token" content="([^"]+)">/.exec((await t.get('/users/sign_in', { headers: { cookie } })).body);
  assert.ok(match, 'no csrf token');
  return match[1];
};
const signUp = (fields: { username: string; email: string }) =>
  t.post('/users/sign_up', { form: form({ 'user[name]': fields.username, 'user[username]': fields.username, 'user[email]': fields.email, 'user[password]': PASSWORD }) });
const basic = (login: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });

describe('PUT /application/settings: input', () => {
  test('values in the query string or a form, "false" as a boolean, lists as comma strings', async () => {
    let res = await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, query: { signup_enabled: 'false', domain_allowlist: 'a.test,*.b.test' } });
    expectStatus(res, 200);
    assert.equal(res.json().signup_enabled, false);
    assert.deepEqual(res.json().domain_allowlist, ['a.test', '*.b.test']);
    res = await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, form: 'gravatar_enabled=false&import_sources=git,github&max_import_size=20' });
    expectStatus(res, 200);
    assert.equal(res.json().gravatar_enabled, false);
    assert.deepEqual(res.json().import_sources, ['git', 'github']);
    assert.equal(res.json().max_import_size, 20);
    assert.equal((await change({ user_oauth_applications: 'false', restricted_visibility_levels: 'internal,public' })).user_oauth_applications, false);
    assert.deepEqual((await applicationSettings(t.deps.db)).restricted_visibility_levels, ['internal', 'public']);
  });

  test('enumerations and types refused with the platform parameter messages', async () => {
    const refuse = (body: unknown, error: string) => t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body }).then((res) => expectError(res, 400, { error }));
    await refuse({ rsa_key_restriction: 1000 }, 'rsa_key_restriction does not have a valid value');
    await refuse({ ed25519_key_restriction: 384 }, 'ed25519_key_restriction does not have a valid value');
    await refuse({ enabled_git_access_protocol: 'ftp' }, 'enabled_git_access_protocol does not have a valid value');
    await refuse({ default_project_creation: 3 }, 'default_project_creation does not have a valid value');
    await refuse({ signup_enabled: 'maybe' }, 'signup_enabled is invalid');
    await refuse({ default_projects_limit: 'many' }, 'default_projects_limit is invalid');
    await refuse({ akismet_enabled: true }, 'akismet_api_key is missing');
    await refuse({ domain_denylist_enabled: 'true' }, 'domain_denylist is missing');
    await refuse({ signin_enabled: false, password_authentication_enabled_for_web: true }, 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive');
    expectError(await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { repository_storages_weighted: { default: 50, elsewhere: 10, fast: 101 } } }), 400, {
      message: { repository_storages_weighted: ["can't include: elsewhere", "value for 'fast' must be between 0 and 100"] },
    });
    assert.equal((await change({ ecdsa_key_restriction: 384, dsa_key_restriction: -1 })).ecdsa_key_restriction, 384);
    assert.equal((await change({ enabled_git_access_protocol: 'ssh' })).enabled_git_access_protocol, 'ssh');
    assert.equal((await change({ enabled_git_access_protocol: 'nil' })).enabled_git_access_protocol, null);
  });

  test('deprecated names set their successors', async () => {
    const body = await change({ asset_proxy_whitelist: 'cdn.test,*.img.test', allow_local_requests_from_hooks_and_services: true, admin_notification_email: 'abuse@example.com' });
    assert.deepEqual(body.asset_proxy_allowlist, ['cdn.test', '*.img.test']);
    assert.deepEqual(body.asset_proxy_whitelist, ['cdn.test', '*.img.test']);
    assert.equal(body.allow_local_requests_from_web_hooks_and_services, true);
    assert.equal(body.allow_local_requests_from_hooks_and_services, true);
    assert.equal(body.abuse_notification_email, 'abuse@example.com');
  });
});

describe('sign-up', () => {
  test('signup_enabled: the page and the registration exist only while it is on', async () => {
    expectStatus(await t.get('/users/sign_up'), 200);
    await change({ signup_enabled: false });
    expectStatus(await t.get('/users/sign_up'), 404);
    const before = await t.count('users');
    expectStatus(await signUp({ username: 'closed1', email: 'closed1@example.com' }), 404);
    assert.equal(await t.count('users'), before);
  });

  test('domain_allowlist and domain_denylist decide which addresses may sign up', async () => {
    assert.equal(signUpDomainError({ domain_allowlist: [], domain_denylist: ['*.spam.test'], domain_denylist_enabled: true }, 'x@mail.spam.test'), 'is not from an allowed domain.');
    assert.equal(signUpDomainError({ domain_allowlist: ['Corp.test'], domain_denylist: [], domain_denylist_enabled: false }, 'x@corp.TEST'), null);
    await change({ domain_denylist_enabled: true, domain_denylist: 'spam.test', require_admin_approval_after_user_signup: false });
    let res = await signUp({ username: 'spammer', email: 'spammer@spam.test' });
    expectStatus(res, 200);
    assert.match(res.body, /Email is not from an allowed domain\./);
    await change({ domain_allowlist: ['corp.test'] });
    res = await signUp({ username: 'outsider', email: 'outsider@example.com' });
    assert.match(res.body, /Email domain is not authorized for sign-up/);
    expectStatus(await signUp({ username: 'insider', email: 'insider@corp.test' }), 302);
    // Administrators create accounts whatever the domain.
    expectStatus(await t.post('/api/v4/users', { token: ROOT_TOKEN, body: { username: 'made', name: 'made', email: 'made@spam.test', password: PASSWORD } }), 201);
  });

  test('require_admin_approval_after_user_signup: the account waits until an administrator approves it', async () => {
    const res = await signUp({ username: 'waiting', email: 'waiting@example.com' });
    expectStatus(res, 200);
    assert.match(res.body, /awaiting approval/);
    const user = await t.deps.db.selectFrom('users').selectAll().where('username', '=', 'waiting').executeTakeFirstOrThrow();
    assert.equal(user.state, 'blocked_pending_approval');
    expectStatus(await t.post('/users/sign_in', { form: form({ 'user[login]': 'waiting', 'user[password]': PASSWORD }) }), 401);

    expectError(await t.post(`/api/v4/users/${user.id}/approve`), 401, { message: '401 Unauthorized' });
    expectError(await t.post(`/api/v4/users/${user.id}/approve`, { token: alice.token }), 403, { message: 'You are not allowed to approve a user' });
    expectError(await t.post('/api/v4/users/999999/approve', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    const approved = await t.post(`/api/v4/users/${user.id}/approve`, { token: ROOT_TOKEN });
    expectStatus(approved, 201);
    assert.deepEqual(approved.json(), { message: 'Success' });
    expectError(await t.post(`/api/v4/users/${user.id}/approve`, { token: ROOT_TOKEN }), 409, { message: 'The user you are trying to approve is not pending approval' });
    await signIn('waiting');

    // Off, a sign-up is active at once.
    await change({ require_admin_approval_after_user_signup: false });
    expectStatus(await signUp({ username: 'straight', email: 'straight@example.com' }), 302);
  });
});

describe('projects', () => {
  test('default_projects_limit and projects_limit, with the platform 403 messages', async () => {
    await change({ default_projects_limit: 1 });
    const bob = await t.user();
    assert.equal(bob.user.projects_limit, 1);
    expectStatus(await t.post('/api/v4/projects', { token: bob.token, body: { name: 'first' } }), 201);
    expectError(await t.post('/api/v4/projects', { token: bob.token, body: { name: 'second' } }), 403, {
      error: ['Your project limit is 1 projects! Please contact your administrator to increase it'],
    });
    expectStatus(await t.put(`/api/v4/users/${bob.user.id}`, { token: ROOT_TOKEN, body: { projects_limit: 0 } }), 200);
    expectError(await t.post('/api/v4/projects', { token: bob.token, body: { name: 'third' } }), 403, {
      error: ['Personal project creation is not allowed. Please contact your administrator with questions'],
    });
  });

  test('repository_storages_weighted: new projects go to storages by weight', async () => {
    assert.equal(chooseRepositoryStorage({ repository_storages_weighted: { default: 0, fast: 100 } }, ['default', 'fast'], 0.5), 'fast');
    assert.equal(chooseRepositoryStorage({ repository_storages_weighted: { default: 25, fast: 75 } }, ['default', 'fast'], 0.2), 'default');
    assert.equal(chooseRepositoryStorage({ repository_storages_weighted: { default: 25, fast: 75 } }, ['default', 'fast'], 0.3), 'fast');
    assert.equal(chooseRepositoryStorage({ repository_storages_weighted: { gone: 100 } }, ['default', 'fast'], 0.3), 'default');
    const body = await change({ repository_storages_weighted: { default: 0, fast: 100 } });
    assert.deepEqual(body.repository_storages, ['fast']);
    const res = await t.post('/api/v4/projects', { token: alice.token, body: { name: `weighted${++sequence}`, initialize_with_readme: true } });
    expectStatus(res, 201);
    expectEntity(res.json(), ProjectEntity);
    const row = await t.deps.db.selectFrom('projects').select('repository_storage').where('id', '=', res.json().id).executeTakeFirstOrThrow();
    assert.equal(row.repository_storage, 'fast');
    // The repository is there: its files read.
    expectStatus(await t.get(`/api/v4/projects/${res.json().id}/repository/files/README.md?ref=main`, { token: alice.token }), 200);
  });

  test('diff limits: diff_max_files and diff_max_patch_bytes cut merge request changes', async () => {
    const project = (await t.post('/api/v4/projects', { token: alice.token, body: { name: `diffs${++sequence}`, initialize_with_readme: true } })).json();
    const commit = await t.post(`/api/v4/projects/${project.id}/repository/commits`, {
      token: alice.token,
      body: {
        branch: 'feature',
        start_branch: 'main',
        commit_message: 'three files',
        actions: [
          { action: 'create', file_path: 'a.txt', content: 'a\n' },
          { action: 'create', file_path: 'b.txt', content: 'b\n' },
          { action: 'create', file_path: 'big.txt', content: 'x'.repeat(200_000) + '\n' },
        ],
      },
    });
    expectStatus(commit, 201);
    const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, { token: alice.token, body: { source_branch: 'feature', target_branch: 'main', title: 'diffs' } });
    expectStatus(mr, 201);
    const changes = async () => {
      const res = await t.get(`/api/v4/projects/${project.id}/merge_requests/${mr.json().iid}/changes`, { token: alice.token });
      expectStatus(res, 200);
      expectEntity(res.json(), MergeRequestChangesEntity);
      return res.json();
    };
    let body = await changes();
    assert.equal(body.overflow, false);
    assert.equal(body.changes.length, 3);
    assert.equal(body.changes_count, '3');
    await setInstanceSettings(t, { diff_max_files: 2, diff_max_patch_bytes: 102400 });
    body = await changes();
    assert.equal(body.overflow, true);
    assert.equal(body.changes.length, 2);
    assert.equal(body.changes_count, '2+');
    await setInstanceSettings(t, { diff_max_files: 1000 });
    body = await changes();
    const big = body.changes.find((c: { new_path: string }) => c.new_path === 'big.txt');
    assert.equal(big.diff, '');
    assert.notEqual(body.changes.find((c: { new_path: string }) => c.new_path === 'a.txt').diff, '');
  });
});

describe('signing in', () => {
  test('password_authentication_enabled_for_web: no password form, and a password post is refused', async () => {
    assert.match((await t.get('/users/sign_in')).body, /user\[password\]/);
    await change({ password_authentication_enabled_for_web: false });
    const page = await t.get('/users/sign_in');
    expectStatus(page, 200);
    assert.doesNotMatch(page.body, /user\[password\]/);
    const res = await t.post('/users/sign_in', { form: form({ 'user[login]': alice.user.username, 'user[password]': PASSWORD }) });
    expectStatus(res, 403);
    assert.equal(res.cookies.length, 0);
  });

  test('password_authentication_enabled_for_git: git over HTTP and the password grant take tokens only', async () => {
    const project = (await t.post('/api/v4/projects', { token: alice.token, body: { name: `git${++sequence}`, initialize_with_readme: true } })).json();
    const refs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    expectStatus(await t.get(refs, { headers: basic(alice.user.username, PASSWORD) }), 200);
    await change({ password_authentication_enabled_for_git: false });
    const refused = await t.get(refs, { headers: basic(alice.user.username, PASSWORD) });
    expectStatus(refused, 401);
    assert.match(refused.body, /You must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP/);
    expectStatus(await t.get(refs, { headers: basic(alice.user.username, alice.token) }), 200);
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: alice.user.username, password: PASSWORD } });
    assert.equal(grant.statusCode, 400);
    assert.equal(grant.json().error, 'invalid_grant');
  });

  test('session_expire_delay sets how long a web session lasts', async () => {
    await change({ session_expire_delay: 15 });
    const res = await t.post('/users/sign_in', { form: form({ 'user[login]': alice.user.username, 'user[password]': PASSWORD }) });
    assert.match(String(res.headers['set-cookie']), /Max-Age=900;/);
  });

  test('admin_mode: an administrator web session acts as one only after entering admin mode; tokens bypass it', async () => {
    const admin = await t.user({ admin: true });
    const cookie = await signIn(admin.user.username);
    expectStatus(await t.get('/api/v4/application/settings', { headers: { cookie } }), 200);
    await change({ admin_mode: true });
    expectError(await t.get('/api/v4/application/settings', { headers: { cookie } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.get('/api/v4/application/settings', { token: admin.token }), 200);
    expectStatus(await t.get('/admin/session/new', { headers: { cookie } }), 200);
    const csrf = await csrfOf(cookie);
    expectStatus(await t.post('/admin/session', { headers: { cookie }, form: form({ authenticity_token: csrf, 'user[password]': 'wrong-password-1' }) }), 401);
    expectStatus(await t.post('/admin/session', { headers: { cookie }, form: form({ authenticity_token: csrf, 'user[password]': PASSWORD }) }), 302);
    expectStatus(await t.get('/api/v4/application/settings', { headers: { cookie } }), 200);
    // Admin mode lasts six hours.
    clock += 7 * 3600 * 1000;
    const again = await signIn(admin.user.username);
    expectError(await t.get('/api/v4/application/settings', { headers: { cookie: again } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.post('/admin/session/destroy', { headers: { cookie }, form: form({ authenticity_token: csrf }) }), 302);
  });

  test('enforce_terms: the API and git refuse a user until the terms are accepted on the web', async () => {
    const carol = await t.user();
    const project = (await t.post('/api/v4/projects', { token: carol.token, body: { name: `terms${++sequence}`, initialize_with_readme: true } })).json();
    await change({ enforce_terms: true, terms: 'Be nice.' });
    const message = `403 Forbidden - You (@${carol.user.username}) must accept the Terms of Service in order to perform this action. Please access GitLab from a web browser to accept these terms.`;
    expectError(await t.get('/api/v4/user', { token: carol.token }), 403, { message });
    const refs = await t.get(`/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: basic(carol.user.username, carol.token) });
    expectStatus(refs, 403);
    assert.match(refs.body, /must accept the Terms of Service/);
    const cookie = await signIn(carol.user.username);
    const terms = await t.get('/-/users/terms', { headers: { cookie } });
    expectStatus(terms, 200);
    assert.match(terms.body, /Be nice\./);
    expectStatus(await t.post('/-/users/terms/accept', { headers: { cookie }, form: form({ authenticity_token: await csrfOf(cookie) }) }), 302);
    expectStatus(await t.get('/api/v4/user', { token: carol.token }), 200);
    expectStatus(await t.get(`/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: basic(carol.user.username, carol.token) }), 200);
  });
});

describe('users', () => {
  test('deactivate_dormant_users: a daily task deactivates people inactive for 90 days, only while it is on', async () => {
    const at = (days: number) => new Date(clock - days * 86_400_000).toISOString();
    const dormant = await t.user();
    const recent = await t.user();
    const neverSeen = await t.user();
    const bot = await t.user();
    await t.deps.db.updateTable('users').set({ last_activity_on: at(91).slice(0, 10) }).where('id', 'in', [dormant.user.id, bot.user.id]).execute();
    await t.deps.db.updateTable('users').set({ last_activity_on: at(10).slice(0, 10) }).where('id', '=', recent.user.id).execute();
    await t.deps.db.updateTable('users').set({ last_activity_on: null, current_sign_in_at: null, created_at: at(120) }).where('id', '=', neverSeen.user.id).execute();
    await t.deps.db.updateTable('users').set({ user_type: 'project_bot' }).where('id', '=', bot.user.id).execute();
    const ctx = systemContext(t.deps);
    assert.equal(await deactivateDormantUsers(ctx), 0);
    await change({ deactivate_dormant_users: true });
    await deactivateDormantUsers(ctx);
    const states = Object.fromEntries(
      (await t.deps.db.selectFrom('users').select(['id', 'state']).where('id', 'in', [dormant.user.id, recent.user.id, neverSeen.user.id, bot.user.id]).execute()).map((r) => [r.id, r.state]),
    );
    assert.deepEqual(states, { [dormant.user.id]: 'deactivated', [recent.user.id]: 'active', [neverSeen.user.id]: 'deactivated', [bot.user.id]: 'active' });
    // Signing in on the web reactivates.
    await signIn(dormant.user.username);
    expectStatus(await t.get('/api/v4/user', { token: dormant.token }), 200);
  });
});

describe('several nodes', () => {
  test('a change made on one node is seen by another sharing the database at once (PostgreSQL) or within the recheck (SQLite)', async (ctx) => {
    const url = process.env.DATABASE_URL;
    if (!url) {
      ctx.diagnostic('SQLite: one process per file; the timed check is covered by the reader tests');
      return;
    }
    const { schema } = (await sqlCurrentSchema()) as { schema: string };
    const other = openDatabase({ url, pgSchema: schema, poolSize: 2 });
    const stop = await listenForSettingsChanges(other.db, other.listen);
    try {
      assert.equal((await applicationSettings(other.db)).default_projects_limit, 100000);
      await change({ default_projects_limit: 77 });
      const deadline = Date.now() + RECHECK_MS / 2;
      while ((await applicationSettings(other.db)).default_projects_limit !== 77 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      ctx.diagnostic(`seen after ${Date.now() - (deadline - RECHECK_MS / 2)} ms`);
      assert.equal((await applicationSettings(other.db)).default_projects_limit, 77, 'the other node still had the old value after half the recheck interval');
    } finally {
      await stop?.();
      await other.close();
    }
  });
});

async function sqlCurrentSchema() {
  const { sql } = await import('kysely');
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.deps.db);
  return result.rows[0];
}
