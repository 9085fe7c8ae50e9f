// POST /users, PUT /users/:id, DELETE /users/:id, DELETE /users/:id/identities/:provider,
// POST /users/:id/block and /unblock, as an administrator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { verifyPassword } from '../../core/auth/secrets.ts';
import type { UserUpdate } from '../../db/schema.ts';
import { UserAdminEntity, UserEntity } from './users.schemas.ts';
import { USERNAME_FORMAT } from './users.validation.ts';

let t: TestApp;
let existing: TestUser;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  existing = await t.user({ username: 'taken', email: 'taken@example.com', name: 'Taken' });
});
after(() => t.close());

/** A body for a new user that passes every check; `extra` overrides or adds fields. */
function newUser(extra: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  return { email: `new${sequence}@example.com`, name: `New User ${sequence}`, username: `new_${sequence}`, password: 'secret-pass-1', ...extra };
}

const create = (body: unknown) => t.post('/api/v4/users', { token: ROOT_TOKEN, body });
const update = (id: number, body: unknown) => t.put(`/api/v4/users/${id}`, { token: ROOT_TOKEN, body });
const row = (id: number) => t.deps.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const setRow = (id: number, values: UserUpdate) => t.deps.db.updateTable('users').set(values).where('id', '=', id).execute();

describe('POST /users', () => {
  test('creates a user with the platform’s defaults and answers the administrator form', async () => {
    const body = newUser();
    const res = await create(body);
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
    const created = res.json();
    assert.deepEqual(created, {
      id: created.id,
      username: body.username,
      name: body.name,
      state: 'active',
      avatar_url: null,
      web_url: `http://quarry.test/${body.username}`,
      created_at: created.created_at,
      bio: '',
      bot: false,
      location: '',
      public_email: null,
      skype: '',
      linkedin: '',
      twitter: '',
      website_url: '',
      organization: '',
      job_title: '',
      followers: 0,
      following: 0,
      last_sign_in_at: null,
      confirmed_at: null,
      last_activity_on: null,
      email: body.email,
      theme_id: 1,
      color_scheme_id: 1,
      projects_limit: 100000,
      current_sign_in_at: null,
      identities: [],
      can_create_group: true,
      can_create_project: true,
      two_factor_enabled: false,
      external: false,
      private_profile: false,
      commit_email: body.email,
      is_admin: false,
      note: null,
      current_sign_in_ip: null,
      last_sign_in_ip: null,
      sign_in_count: 0,
    });
    const stored = await row(created.id);
    assert.equal(stored.created_by_id, 1);
    assert.equal(stored.password_expires_at, null);
    assert.ok(await verifyPassword('secret-pass-1', stored.encrypted_password));
  });

  test('takes every optional attribute', async () => {
    const res = await create(
      newUser({
        admin: true,
        bio: 'Bio',
        location: 'Here',
        organization: 'Org',
        job_title: 'Boss',
        linkedin: 'li',
        skype: 'sk',
        twitter: 'tw',
        website_url: 'https://example.com',
        note: 'a note',
        projects_limit: 7,
        can_create_group: false,
        theme_id: 11,
        color_scheme_id: 6,
        private_profile: true,
        skip_confirmation: true,
      }),
    );
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
    const body = res.json();
    assert.equal(body.is_admin, true);
    assert.equal(body.bio, 'Bio');
    assert.equal(body.job_title, 'Boss');
    assert.equal(body.note, 'a note');
    assert.equal(body.projects_limit, 7);
    assert.equal(body.can_create_group, false);
    assert.equal(body.theme_id, 11);
    assert.equal(body.color_scheme_id, 6);
    assert.equal(body.private_profile, true);
    assert.match(body.confirmed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('accepts form-encoded bodies and query-string parameters', async () => {
    sequence += 1;
    const form = `email=form${sequence}%40example.com&name=Form+User&username=form_${sequence}&password=secret-pass-1&admin=true`;
    const res = await t.post('/api/v4/users', { token: ROOT_TOKEN, form });
    expectStatus(res, 201);
    assert.equal(res.json().name, 'Form User');
    assert.equal(res.json().is_admin, true);
    const viaQuery = await t.post('/api/v4/users', { token: ROOT_TOKEN, query: newUser() as Record<string, string> });
    expectStatus(viaQuery, 201);
  });

  test('emails are stored trimmed and in lower case', async () => {
    const res = await create(newUser({ email: ' Mixed.Case@Example.COM ' }));
    expectStatus(res, 201);
    assert.equal(res.json().email, 'mixed.case@example.com');
    const moved = await update(res.json().id, { email: 'Moved.Case@EXAMPLE.com' });
    expectStatus(moved, 200);
    assert.equal(moved.json().email, 'moved.case@example.com');
  });

  test('private_profile null is stored as false', async () => {
    const res = await create(newUser({ private_profile: null }));
    expectStatus(res, 201);
    assert.equal(res.json().private_profile, false);
  });

  test('an external user may not create groups or projects, whatever is asked', async () => {
    const res = await create(newUser({ external: true, can_create_group: true, projects_limit: 10 }));
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().external, true);
    assert.equal(res.json().can_create_group, false);
    assert.equal(res.json().projects_limit, 0);
    assert.equal(res.json().can_create_project, false);
  });

  test('extern_uid and provider create an identity; one without the other is refused', async () => {
    const before = await t.count('identities');
    const res = await create(newUser({ extern_uid: 'ext-7', provider: 'github' }));
    expectStatus(res, 201);
    assert.deepEqual(res.json().identities, [{ provider: 'github', extern_uid: 'ext-7' }]);
    assert.equal(await t.count('identities'), before + 1);
    expectError(await create(newUser({ extern_uid: 'ext-8' })), 400, { error: 'extern_uid, provider provide all or none of parameters' });
    expectError(await create(newUser({ provider: 'github' })), 400, { error: 'extern_uid, provider provide all or none of parameters' });
  });

  describe('passwords (spec rules 1, 2)', () => {
    test('one of password, reset_password and force_random_password is required', async () => {
      const { password: _password, ...body } = newUser();
      expectError(await create(body), 400, { error: 'password, reset_password, force_random_password are missing, at least one parameter must be provided' });
    });

    test('with both flags false the password itself is required', async () => {
      const { password: _password, ...body } = newUser();
      expectError(await create({ ...body, reset_password: false, force_random_password: false }), 400, { message: { password: ["can't be blank"] } });
    });

    for (const flag of ['reset_password', 'force_random_password']) {
      test(`${flag} sets a random password, overriding (and skipping checks on) a given one`, async () => {
        const res = await create(newUser({ [flag]: true, password: 'short' }));
        expectStatus(res, 201);
        const stored = await row(res.json().id);
        assert.match(stored.encrypted_password ?? '', /^scrypt\$/);
        assert.equal(await verifyPassword('short', stored.encrypted_password), false);
      });
    }

    test('both flags may be combined', async () => {
      const { password: _password, ...body } = newUser();
      expectStatus(await create({ ...body, reset_password: true, force_random_password: true }), 201);
    });
  });

  describe('conflicts answer 409, case-insensitively', () => {
    test('email', async () => {
      const users = await t.count('users');
      expectError(await create(newUser({ email: 'TAKEN@example.com' })), 409, { message: 'Email has already been taken' });
      assert.equal(await t.count('users'), users);
    });

    test('username', async () => {
      expectError(await create(newUser({ username: 'TAKEN' })), 409, { message: 'Username has already been taken' });
    });

    test('email is reported first, and conflicts before other validation failures', async () => {
      expectError(await create(newUser({ email: 'taken@example.com', username: 'taken' })), 409, { message: 'Email has already been taken' });
      expectError(await create(newUser({ username: 'taken', password: 'x' })), 409, { message: 'Username has already been taken' });
    });
  });

  describe('validation messages', () => {
    const cases: [string, Record<string, unknown>, Record<string, string[]>][] = [
      ['username with a space', { username: 'bad name' }, { username: [USERNAME_FORMAT] }],
      ['username starting with -', { username: '-dash' }, { username: [USERNAME_FORMAT] }],
      ['username ending with .', { username: 'dot.' }, { username: [USERNAME_FORMAT] }],
      ['username ending with .git', { username: 'repo.git' }, { username: [USERNAME_FORMAT] }],
      ['username ending with .atom', { username: 'feed.atom' }, { username: [USERNAME_FORMAT] }],
      ['reserved username', { username: 'admin' }, { username: ['admin is a reserved name'] }],
      ['reserved username in another case', { username: 'Help' }, { username: ['Help is a reserved name'] }],
      ['username with a file extension', { username: 'data.json' }, { username: ['ending with a reserved file extension is not allowed.'] }],
      ['one-character username', { username: 'a' }, { username: ['is too short (minimum is 2 characters)'] }],
      ['over-long username', { username: 'u'.repeat(256) }, { username: ['is too long (maximum is 255 characters)'] }],
      ['short password', { password: 'short' }, { password: ['is too short (minimum is 8 characters)'] }],
      ['long password', { password: 'p'.repeat(129) }, { password: ['is too long (maximum is 128 characters)'] }],
      ['bad email', { email: 'not-an-email' }, { email: ['is invalid'] }],
      ['blank name', { name: '' }, { name: ["can't be blank"] }],
      ['long name', { name: 'n'.repeat(256) }, { name: ['is too long (maximum is 255 characters)'] }],
      ['negative projects_limit', { projects_limit: -1 }, { projects_limit: ['must be greater than or equal to 0'] }],
      ['huge projects_limit', { projects_limit: 2147483648 }, { projects_limit: ['must be less than or equal to 2147483647'] }],
      ['unknown theme', { theme_id: 99 }, { theme_id: ['99 is not a valid theme'] }],
      ['unknown color scheme', { color_scheme_id: 99 }, { color_scheme_id: ['99 is not a valid color scheme'] }],
      ['long bio', { bio: 'b'.repeat(256) }, { bio: ['is too long (maximum is 255 characters)'] }],
      [
        'several at once',
        { email: 'nope', password: 'short', theme_id: 0 },
        { email: ['is invalid'], password: ['is too short (minimum is 8 characters)'], theme_id: ['0 is not a valid theme'] },
      ],
    ];
    for (const [name, fields, errors] of cases) {
      test(name, async () => {
        const users = await t.count('users');
        expectError(await create(newUser(fields)), 400, { message: errors });
        assert.equal(await t.count('users'), users);
      });
    }

    test('the longest and shortest allowed values pass', async () => {
      expectStatus(await create(newUser({ username: `ab${sequence}`.slice(0, 2), password: 'p'.repeat(8) })), 201);
      expectStatus(await create(newUser({ password: 'p'.repeat(128), projects_limit: 0, name: 'n'.repeat(255) })), 201);
      expectStatus(await create(newUser({ email: 'root@localhost' })), 201);
    });

    test('parameters of the wrong type are parameter errors', async () => {
      expectError(await create(newUser({ projects_limit: 'lots' })), 400, { error: 'projects_limit is invalid' });
      expectError(await create(newUser({ admin: 'maybe' })), 400, { error: 'admin is invalid' });
      expectError(await create(newUser({ private_profile: 'maybe' })), 400, { error: 'private_profile is invalid' });
    });

    for (const field of ['email', 'name', 'username']) {
      test(`${field} is required`, async () => {
        const { [field]: _dropped, ...body } = newUser();
        expectError(await create(body), 400, { error: `${field} is missing` });
      });
    }
  });
});

describe('PUT /users/:id', () => {
  test('changes the given attributes and answers the administrator form', async () => {
    const target = await t.user();
    const res = await update(target.user.id, { name: 'Renamed', bio: 'New bio', location: 'There', admin: true, note: 'promoted', theme_id: 2 });
    expectStatus(res, 200);
    expectEntity(res.json(), UserAdminEntity);
    const body = res.json();
    assert.equal(body.name, 'Renamed');
    assert.equal(body.bio, 'New bio');
    assert.equal(body.location, 'There');
    assert.equal(body.is_admin, true);
    assert.equal(body.note, 'promoted');
    assert.equal(body.theme_id, 2);
    assert.equal(body.username, target.user.username);
    assert.equal(body.email, target.user.email);
  });

  test('username and email may change, also to another case of the user’s own', async () => {
    const target = await t.user({ username: 'mover', email: 'mover@example.com' });
    const same = await update(target.user.id, { username: 'Mover', email: 'MOVER@example.com' });
    expectStatus(same, 200);
    assert.equal(same.json().username, 'Mover');
    const moved = await update(target.user.id, { username: 'moved', email: 'moved@example.com' });
    expectStatus(moved, 200);
    assert.equal(moved.json().web_url, 'http://quarry.test/moved');
    assert.equal(moved.json().email, 'moved@example.com');
  });

  test('conflicts answer 404 (spec Part 2 §4.2 rule 5), case-insensitively', async () => {
    const target = await t.user();
    expectError(await update(target.user.id, { email: 'Taken@Example.com' }), 404, { message: 'Email has already been taken' });
    expectError(await update(target.user.id, { username: 'TAKEN' }), 404, { message: 'Username has already been taken' });
    assert.equal((await row(target.user.id)).username, target.user.username);
  });

  test('other validation failures answer 400 with the field messages', async () => {
    const target = await t.user();
    expectError(await update(target.user.id, { username: 'admin' }), 400, { message: { username: ['admin is a reserved name'] } });
    expectError(await update(target.user.id, { email: 'nope', projects_limit: -5 }), 400, {
      message: { email: ['is invalid'], projects_limit: ['must be greater than or equal to 0'] },
    });
    expectError(await update(target.user.id, { name: '' }), 400, { message: { name: ["can't be blank"] } });
    expectError(await update(target.user.id, { password: 'short' }), 400, { message: { password: ['is too short (minimum is 8 characters)'] } });
  });

  test('an unknown user is 404', async () => {
    expectError(await update(999999, { name: 'x' }), 404, { message: '404 User Not Found' });
    expectError(await t.put('/api/v4/users/abc', { token: ROOT_TOKEN, body: { name: 'x' } }), 404, { error: '404 Not Found' });
  });

  test('a password set for someone else must be changed at the next sign-in (rule 4)', async () => {
    const target = await t.user();
    const res = await update(target.user.id, { password: 'brand-new-pass' });
    expectStatus(res, 200);
    const stored = await row(target.user.id);
    assert.ok(await verifyPassword('brand-new-pass', stored.encrypted_password));
    assert.match(stored.password_expires_at ?? '', /^\d{4}-\d\d-\d\dT/);
  });

  test('an administrator changing its own password keeps it', async () => {
    const self = await t.user({ admin: true });
    expectStatus(await t.put(`/api/v4/users/${self.user.id}`, { token: self.token, body: { password: 'my-own-new-pass' } }), 200);
    assert.equal((await row(self.user.id)).password_expires_at, null);
  });

  test('private_profile null is stored as false', async () => {
    const target = await t.user({ private_profile: true });
    const res = await update(target.user.id, { private_profile: null });
    expectStatus(res, 200);
    assert.equal(res.json().private_profile, false);
  });

  test('becoming external takes away group and project creation; leaving restores the defaults', async () => {
    const target = await t.user({ projects_limit: 20 });
    const external = await update(target.user.id, { external: true });
    expectStatus(external, 200);
    assert.deepEqual([external.json().external, external.json().can_create_group, external.json().projects_limit], [true, false, 0]);
    const back = await update(target.user.id, { external: false });
    assert.deepEqual([back.json().external, back.json().can_create_group, back.json().projects_limit], [false, true, 100000]);
    await update(target.user.id, { external: true });
    const chosen = await update(target.user.id, { external: false, projects_limit: 5, can_create_group: false });
    assert.deepEqual([chosen.json().can_create_group, chosen.json().projects_limit], [false, 5]);
    // Other changes leave an internal user's limits alone.
    const kept = await update(target.user.id, { external: false, bio: 'x' });
    assert.deepEqual([kept.json().can_create_group, kept.json().projects_limit], [false, 5]);
  });

  test('extern_uid and provider add or replace that provider’s identity', async () => {
    const target = await t.user();
    const added = await update(target.user.id, { extern_uid: 'one', provider: 'github' });
    assert.deepEqual(added.json().identities, [{ provider: 'github', extern_uid: 'one' }]);
    const replaced = await update(target.user.id, { extern_uid: 'two', provider: 'github' });
    assert.deepEqual(replaced.json().identities, [{ provider: 'github', extern_uid: 'two' }]);
    const second = await update(target.user.id, { extern_uid: 'cn=x', provider: 'ldapmain' });
    assert.deepEqual(second.json().identities, [
      { provider: 'github', extern_uid: 'two' },
      { provider: 'ldapmain', extern_uid: 'cn=x' },
    ]);
    expectError(await update(target.user.id, { provider: 'github' }), 400, { error: 'extern_uid, provider provide all or none of parameters' });
  });

  test('public_email must be an email the user owns', async () => {
    const target = await t.user({ email: 'owner@example.com' });
    expectError(await update(target.user.id, { public_email: 'someone@example.com' }), 400, { message: { public_email: ['is not an email you own'] } });
    const res = await update(target.user.id, { public_email: 'owner@example.com' });
    expectStatus(res, 200);
    assert.equal(res.json().public_email, 'owner@example.com');
    const seen = await t.get(`/api/v4/users/${target.user.id}`, { token: existing.token });
    expectEntity(seen.json(), UserEntity);
    assert.equal(seen.json().public_email, 'owner@example.com');
    const cleared = await update(target.user.id, { public_email: '' });
    assert.equal(cleared.json().public_email, null);
  });
});

describe('DELETE /users/:id', () => {
  test('answers 204; the user, its identities and its tokens are gone', async () => {
    const target = await t.user({ extern_uid: 'gone-1', provider: 'github' });
    expectStatus(await t.get('/api/v4/user', { token: target.token }), 200);
    const identities = await t.count('identities');
    const res = await t.del(`/api/v4/users/${target.user.id}`, { token: ROOT_TOKEN });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    expectError(await t.get(`/api/v4/users/${target.user.id}`, { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/user', { token: target.token }), 401, { message: '401 Unauthorized' });
    assert.equal(await t.count('identities'), identities - 1);
  });

  test('hard_delete is accepted', async () => {
    const target = await t.user();
    expectStatus(await t.del(`/api/v4/users/${target.user.id}`, { token: ROOT_TOKEN, query: { hard_delete: 'true' } }), 204);
  });

  test('an unknown user is 404', async () => {
    expectError(await t.del('/api/v4/users/999999', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
  });
});

describe('DELETE /users/:id/identities/:provider', () => {
  test('removes that provider’s identity only', async () => {
    const target = await t.user({ extern_uid: 'id-1', provider: 'github' });
    await update(target.user.id, { extern_uid: 'cn=id', provider: 'ldapmain' });
    const res = await t.del(`/api/v4/users/${target.user.id}/identities/github`, { token: ROOT_TOKEN });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    const after = await t.get(`/api/v4/users/${target.user.id}`, { token: ROOT_TOKEN });
    assert.deepEqual(after.json().identities, [{ provider: 'ldapmain', extern_uid: 'cn=id' }]);
    expectError(await t.del(`/api/v4/users/${target.user.id}/identities/github`, { token: ROOT_TOKEN }), 404, { message: '404 Identity Not Found' });
  });

  test('an unknown user is 404 User Not Found', async () => {
    expectError(await t.del('/api/v4/users/999999/identities/github', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
  });
});

describe('POST /users/:id/block and /unblock', () => {
  test('blocking answers 201 true and locks the user out; unblocking lets it back in', async () => {
    const target = await t.user();
    const blocked = await t.post(`/api/v4/users/${target.user.id}/block`, { token: ROOT_TOKEN });
    expectStatus(blocked, 201);
    assert.equal(blocked.headers['content-type'], 'application/json');
    assert.equal(blocked.body, 'true');
    expectError(await t.get('/api/v4/user', { token: target.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
    expectError(await t.post('/api/v4/users', { token: target.token, body: newUser() }), 403, { message: '403 Forbidden - Your account has been blocked.' });
    assert.equal((await t.get(`/api/v4/users/${target.user.id}`, { token: ROOT_TOKEN })).json().state, 'blocked');

    const again = await t.post(`/api/v4/users/${target.user.id}/block`, { token: ROOT_TOKEN });
    expectStatus(again, 201);
    assert.equal(again.body, 'null');

    const unblocked = await t.post(`/api/v4/users/${target.user.id}/unblock`, { token: ROOT_TOKEN });
    expectStatus(unblocked, 201);
    assert.equal(unblocked.body, 'true');
    const res = await t.get('/api/v4/user', { token: target.token });
    expectStatus(res, 200);
    assert.equal(res.json().state, 'active');

    const active = await t.post(`/api/v4/users/${target.user.id}/unblock`, { token: ROOT_TOKEN });
    expectStatus(active, 201);
    assert.equal(active.body, 'false');
  });

  test('internal users cannot be blocked; project bots can', async () => {
    const ghost = await t.user();
    await setRow(ghost.user.id, { user_type: 'ghost' });
    expectError(await t.post(`/api/v4/users/${ghost.user.id}/block`, { token: ROOT_TOKEN }), 403, { message: 'An internal user cannot be blocked' });
    const bot = await t.user();
    await setRow(bot.user.id, { user_type: 'project_bot' });
    expectStatus(await t.post(`/api/v4/users/${bot.user.id}/block`, { token: ROOT_TOKEN }), 201);
  });

  test('LDAP-blocked users are left alone', async () => {
    const ldap = await t.user();
    await setRow(ldap.user.id, { state: 'ldap_blocked' });
    expectError(await t.post(`/api/v4/users/${ldap.user.id}/block`, { token: ROOT_TOKEN }), 403, {
      message: '403 Forbidden - LDAP blocked users cannot be modified by the API',
    });
    expectError(await t.post(`/api/v4/users/${ldap.user.id}/unblock`, { token: ROOT_TOKEN }), 403, {
      message: '403 Forbidden - LDAP blocked users cannot be unblocked by the API',
    });
  });

  test('deactivated users can be blocked but not unblocked', async () => {
    const target = await t.user();
    await setRow(target.user.id, { state: 'deactivated' });
    expectError(await t.post(`/api/v4/users/${target.user.id}/unblock`, { token: ROOT_TOKEN }), 403, {
      message: '403 Forbidden - Deactivated users cannot be unblocked by the API',
    });
    const res = await t.post(`/api/v4/users/${target.user.id}/block`, { token: ROOT_TOKEN });
    expectStatus(res, 201);
    assert.equal(res.body, 'true');
  });

  test('unknown users are 404; a non-numeric id is no route', async () => {
    for (const action of ['block', 'unblock']) {
      expectError(await t.post(`/api/v4/users/999999/${action}`, { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
      expectError(await t.post(`/api/v4/users/ASDF/${action}`, { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
    }
  });
});
