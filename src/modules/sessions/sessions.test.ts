// The landing page; web sessions: the sign-in page, signing in (cookie, sign-in tracking), the cookie on API reads,
// writes needing the page's CSRF token, signing out, refusals; and how passwords are stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { hashPassword, verifyPassword } from '../../core/auth/secrets.ts';
import { UserAdminEntity, UserSelfEntity } from '../users/users.schemas.ts';

let t: TestApp;
let alice: TestUser;
let clock = Date.parse('2030-03-01T09:00:00.000Z');

const signInForm = (login: string, password: string) =>
  t.post('/users/sign_in', { form: `user%5Blogin%5D=${encodeURIComponent(login)}&user%5Bpassword%5D=${encodeURIComponent(password)}` });

async function signIn(login = 'alice', password = PASSWORD): Promise<string> {
  const res = await signInForm(login, password);
  expectStatus(res, 302);
  const cookie = res.cookies.find((c) => c.name === '_service_session');
  assert.ok(cookie, 'no session cookie');
  return `_service_session=${cookie.value}`;
}

async function csrfOf(cookie: string): Promise<string> {
  const page = await t.get('/users/sign_in', { headers: { cookie } });
  const match = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body);
  assert.ok(match, 'no csrf-token meta on the signed-in page');
  return match[1];
}

const newUser = (username: string) => ({ username, email: `${username}@example.com`, name: username, password: PASSWORD });

before(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  alice = await t.user({ username: 'alice' });
  await t.user({ username: 'boss', admin: true });
});
after(() => t.close());

describe('the landing page', () => {
  test('GET / says what the server is and links the reference, the sign-in and the probes', async () => {
    const res = await t.get('/');
    expectStatus(res, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    for (const link of ['/-/api-docs', '/-/openapi.json', '/users/sign_in', '/-/health', '/-/liveness', '/-/readiness']) assert.ok(res.body.includes(`href="${link}"`), link);
    assert.match(res.body, /REST API v4/);
    for (const probe of ['/users/sign_in', '/-/health', '/-/liveness', '/-/readiness']) expectStatus(await t.get(probe), 200);
  });
});

describe('the sign-in page', () => {
  test('GET /users/sign_in shows the form', async () => {
    const res = await t.get('/users/sign_in');
    expectStatus(res, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(res.body, /<form method="post" action="\/users\/sign_in">/);
    assert.match(res.body, /name="user\[login\]"/);
    assert.match(res.body, /name="user\[password\]" type="password"/);
    assert.doesNotMatch(res.body, /csrf-token/);
  });
});

describe('signing in', () => {
  test('sets an HttpOnly _service_session cookie and redirects', async () => {
    const res = await signInForm('alice', PASSWORD);
    expectStatus(res, 302);
    assert.equal(res.headers.location, '/users/sign_in');
    const cookie = res.cookies.find((c) => c.name === '_service_session');
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.path, '/');
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(await t.count('web_sessions') > 0, true);
  });

  test('counts the sign-in: sign_in_count and the current/last sign-in fields', async () => {
    const bob = await t.user({ username: 'bob' });
    const show = async () => {
      const res = await t.get(`/api/v4/users/${bob.user.id}`, { token: ROOT_TOKEN });
      expectStatus(res, 200);
      expectEntity(res.json(), UserAdminEntity);
      return res.json();
    };
    const before = await show();
    assert.equal(before.sign_in_count, 0);
    assert.equal(before.current_sign_in_at, null);
    assert.equal(before.last_sign_in_at, null);

    const first = new Date(clock).toISOString();
    await signIn('bob');
    const once = await show();
    assert.equal(once.sign_in_count, 1);
    assert.equal(once.current_sign_in_at, first);
    assert.equal(once.last_sign_in_at, first);
    assert.equal(once.current_sign_in_ip, '127.0.0.1');

    clock += 3600_000;
    const second = new Date(clock).toISOString();
    await signIn('BOB@example.com');
    const twice = await show();
    assert.equal(twice.sign_in_count, 2);
    assert.equal(twice.current_sign_in_at, second);
    assert.equal(twice.last_sign_in_at, first);
  });

  test('a wrong password is a 401 page and sets no cookie', async () => {
    const before = await t.count('web_sessions');
    for (const [login, password] of [
      ['alice', 'wrong-password'],
      ['nobody', PASSWORD],
      ['', ''],
    ]) {
      const res = await signInForm(login, password);
      expectStatus(res, 401);
      assert.match(res.body, /Invalid login or password\./);
      assert.equal(res.cookies.length, 0);
    }
    assert.equal(await t.count('web_sessions'), before);
  });

  test('a blocked user is refused', async () => {
    const carol = await t.user({ username: 'carol' });
    expectStatus(await t.post(`/api/v4/users/${carol.user.id}/block`, { token: ROOT_TOKEN }), 201);
    const before = await t.count('web_sessions');
    const res = await signInForm('carol', PASSWORD);
    expectStatus(res, 401);
    assert.match(res.body, /Your account has been blocked\./);
    assert.equal(res.cookies.length, 0);
    assert.equal(await t.count('web_sessions'), before);
  });
});

describe('deactivated accounts', () => {
  test('are refused by the API and reactivated by a web sign-in', async () => {
    const erin = await t.user({ username: 'erin' });
    await t.deps.db.updateTable('users').set({ state: 'deactivated' }).where('id', '=', erin.user.id).execute();
    expectStatus(await t.get('/api/v4/user', { token: erin.token }), 403);
    const cookie = await signIn('erin');
    const res = await t.get('/api/v4/user', { headers: { cookie } });
    expectStatus(res, 200);
    assert.equal(res.json().state, 'active');
    expectStatus(await t.get('/api/v4/user', { token: erin.token }), 200);
  });
});

describe('the cookie on the API', () => {
  test('authenticates GET and HEAD', async () => {
    const cookie = await signIn();
    const res = await t.get('/api/v4/user', { headers: { cookie } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().id, alice.user.id);
    expectStatus(await t.request('HEAD', '/api/v4/user', { headers: { cookie } }), 200);
  });

  test('the signed-in page shows who is signed in and the CSRF token', async () => {
    const cookie = await signIn();
    const page = await t.get('/users/sign_in', { headers: { cookie } });
    expectStatus(page, 200);
    assert.match(page.body, /Signed in as <strong>@alice<\/strong>/);
    assert.ok((await csrfOf(cookie)).length >= 32);
  });

  test('a write through the cookie without a valid X-CSRF-Token is anonymous', async () => {
    const root = await signIn('boss');
    const before = await t.count('users');
    expectError(await t.post('/api/v4/users', { headers: { cookie: root }, body: newUser('nocsrf') }), 401, { message: '401 Unauthorized' });
    expectError(await t.post('/api/v4/users', { headers: { cookie: root, 'x-csrf-token': 'forged' }, body: newUser('forged') }), 401, {
      message: '401 Unauthorized',
    });
    // Another session's token does not fit this one.
    const other = await csrfOf(await signIn());
    expectError(await t.post('/api/v4/users', { headers: { cookie: root, 'x-csrf-token': other }, body: newUser('other') }), 401, {
      message: '401 Unauthorized',
    });
    assert.equal(await t.count('users'), before);
  });

  test('with the session\'s CSRF token the write runs as the user', async () => {
    const root = await signIn('boss');
    const res = await t.post('/api/v4/users', { headers: { cookie: root, 'x-csrf-token': await csrfOf(root) }, body: newUser('withcsrf') });
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
    const cookie = await signIn();
    expectError(await t.put(`/api/v4/users/${alice.user.id}`, { headers: { cookie, 'x-csrf-token': await csrfOf(cookie) }, body: { name: 'x' } }), 403, {
      message: '403 Forbidden',
    });
  });

  test('a session of a user blocked later is refused with the reason', async () => {
    const dave = await t.user({ username: 'dave' });
    const cookie = await signIn('dave');
    expectStatus(await t.post(`/api/v4/users/${dave.user.id}/block`, { token: ROOT_TOKEN }), 201);
    expectError(await t.get('/api/v4/user', { headers: { cookie } }), 403, { message: '403 Forbidden - Your account has been blocked.' });
  });

  test('a session ends after a week', async () => {
    const cookie = await signIn();
    const start = clock;
    try {
      clock = start + 7 * 86_400_000 - 1000;
      expectStatus(await t.get('/api/v4/user', { headers: { cookie } }), 200);
      clock = start + 7 * 86_400_000;
      expectError(await t.get('/api/v4/user', { headers: { cookie } }), 401, { message: '401 Unauthorized' });
    } finally {
      clock = start;
    }
  });
});

describe('signing out', () => {
  test('with the page\'s token ends the session', async () => {
    const cookie = await signIn();
    const token = await csrfOf(cookie);
    const res = await t.post('/users/sign_out', { headers: { cookie }, form: `authenticity_token=${encodeURIComponent(token)}` });
    expectStatus(res, 302);
    const cleared = res.cookies.find((c) => c.name === '_service_session');
    assert.equal(cleared?.value, '');
    expectError(await t.get('/api/v4/user', { headers: { cookie } }), 401, { message: '401 Unauthorized' });
    const page = await t.get('/users/sign_in', { headers: { cookie } });
    assert.match(page.body, /name="user\[login\]"/);
  });

  test('without the token the session survives (another site cannot sign the user out)', async () => {
    const cookie = await signIn();
    expectStatus(await t.post('/users/sign_out', { headers: { cookie } }), 302);
    expectStatus(await t.get('/api/v4/user', { headers: { cookie } }), 200);
  });
});

describe('passwords', () => {
  test('are stored as scrypt hashes, never in clear', async () => {
    const row = await t.deps.db.selectFrom('users').select('encrypted_password').where('id', '=', alice.user.id).executeTakeFirstOrThrow();
    assert.match(row.encrypted_password ?? '', /^scrypt\$1024\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.ok(!row.encrypted_password?.includes(PASSWORD));
  });

  test('each hash has its own salt', async () => {
    const a = await hashPassword(PASSWORD, 1024);
    const b = await hashPassword(PASSWORD, 1024);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword(PASSWORD, a), true);
    assert.equal(await verifyPassword(PASSWORD, b), true);
  });

  test('an unknown login costs a password hash too, so timing does not reveal which logins exist', async () => {
    const slow = await createTestApp({ QUARRY_PASSWORD_HASH_COST: '32768' });
    try {
      await slow.user({ username: 'erin' });
      const attempt = async (username: string) => {
        const started = process.hrtime.bigint();
        const res = await slow.post('/oauth/token', { body: { grant_type: 'password', username, password: 'wrong-password' } });
        expectStatus(res, 400);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const median = async (username: string) => {
        const runs = [await attempt(username), await attempt(username), await attempt(username)];
        return runs.sort((a, b) => a - b)[1];
      };
      const known = await median('erin');
      const unknown = await median('nobody-at-all');
      assert.ok(unknown > known * 0.25, `unknown login answered in ${unknown.toFixed(1)} ms, a wrong password in ${known.toFixed(1)} ms`);
    } finally {
      await slow.close();
    }
  });

  test('verification refuses wrong passwords and malformed hashes', async () => {
    const stored = await hashPassword(PASSWORD, 1024);
    assert.equal(await verifyPassword(`${PASSWORD}x`, stored), false);
    assert.equal(await verifyPassword('', stored), false);
    for (const bad of [null, '', 'plain', 'bcrypt$1024$a$b', 'scrypt$1000$AAAA$AAAA', 'scrypt$99999999999$AAAA$AAAA', 'scrypt$1024$AAAA$', stored.replace(/\$[^$]+$/, '$AAAA')]) {
      assert.equal(await verifyPassword(PASSWORD, bad), false, String(bad));
    }
  });
});
