// A user's own OAuth applications on the /oauth/applications pages: signed-in users register them
// (the secret shown once), see and delete only their own, and use them in the authorization-code
// flow; the Applications API (administrators') does not reach them; the user_oauth_applications
// setting switched off sends every page but the list to the profile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectStatus } from '../../../test/matchers.ts';

const CALLBACK = 'https://client.example/callback';

let t: TestApp;
let alice: TestUser;

interface Web {
  cookie: string;
  csrf: string;
}
let aliceWeb: Web;
let bobWeb: Web;

async function signIn(username: string): Promise<Web> {
  const res = await t.post('/users/sign_in', { form: new URLSearchParams({ 'user[login]': username, 'user[password]': PASSWORD }).toString() });
  expectStatus(res, 302);
  const session = res.cookies.find((c: { name: string }) => c.name === '_service_session');
  assert.ok(session);
  const cookie = `_service_session=${session.value}`;
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec((await t.get('/users/sign_in', { headers: { cookie } })).body)?.[1] ?? '';
  assert.ok(csrf);
  return { cookie, csrf };
}

const form = (fields: [string, string][]) => new URLSearchParams(fields).toString();
const fields = (web: Web, overrides: Record<string, string> = {}): [string, string][] => {
  const base: Record<string, string> = { 'doorkeeper_application[name]': 'My tool', 'doorkeeper_application[redirect_uri]': CALLBACK, ...overrides };
  return [['authenticity_token', web.csrf], ...Object.entries(base), ['doorkeeper_application[confidential]', '0'], ['doorkeeper_application[confidential]', '1'], ['doorkeeper_application[scopes][]', 'api'], ['doorkeeper_application[scopes][]', 'read_user']];
};
const create = (web: Web, f = fields(web)) => t.post('/oauth/applications', { headers: { cookie: web.cookie }, form: form(f) });
const setting = async (value: boolean) => expectStatus(await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { user_oauth_applications: value } }), 200);

/** Registers an application for the user; its id, client id and secret from the page. */
async function register(web: Web, name = 'My tool') {
  const res = await create(web, fields(web, { 'doorkeeper_application[name]': name }));
  expectStatus(res, 201);
  const uid = /<code id="application_id">([0-9a-f]{64})<\/code>/.exec(res.body)?.[1];
  const secret = /<code id="secret">([0-9a-f]{64})<\/code>/.exec(res.body)?.[1];
  assert.ok(uid && secret, res.body);
  const row = await t.deps.db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid).executeTakeFirstOrThrow();
  return { row, uid, secret };
}

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'appalice' });
  await t.user({ username: 'appbob' });
  aliceWeb = await signIn('appalice');
  bobWeb = await signIn('appbob');
});
after(() => t.close());

describe('signed out', () => {
  test('every page goes to the sign-in page, which comes back', async () => {
    for (const [method, url] of [
      ['GET', '/oauth/applications'],
      ['POST', '/oauth/applications'],
      ['GET', '/oauth/applications/1'],
      ['DELETE', '/oauth/applications/1'],
    ] as const) {
      const res = await t.request(method, url);
      expectStatus(res, 302);
      const location = new URL(res.headers.location as string, 'http://x');
      assert.equal(location.pathname, '/users/sign_in', `${method} ${url}`);
      assert.equal(location.searchParams.get('redirect_to'), url);
    }
  });
});

describe('registering', () => {
  test('the list page has the form; a registration shows the secret once and belongs to the user', async () => {
    const empty = await t.get('/oauth/applications', { headers: { cookie: aliceWeb.cookie } });
    expectStatus(empty, 200);
    assert.match(empty.headers['content-type'] as string, /^text\/html/);
    assert.match(empty.body, /Add new application/);
    assert.match(empty.body, /Your applications \(0\)/);
    const { row, uid, secret } = await register(aliceWeb);
    assert.deepEqual([row.owner_id, row.owner_type, row.name, row.redirect_uri, row.scopes, row.confidential], [alice.user.id, 'User', 'My tool', CALLBACK, 'api read_user', true]);
    assert.notEqual(row.secret_digest, secret);
    const list = await t.get('/oauth/applications', { headers: { cookie: aliceWeb.cookie } });
    assert.match(list.body, /Your applications \(1\)/);
    assert.match(list.body, new RegExp(`href="/oauth/applications/${row.id}"`));
    const shown = await t.get(`/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie } });
    expectStatus(shown, 200);
    assert.ok(shown.body.includes(uid));
    assert.ok(!shown.body.includes(secret), 'the secret is shown only once');
  });

  test('a public (not confidential) application, the scopes as one string', async () => {
    const res = await create(aliceWeb, [
      ['authenticity_token', aliceWeb.csrf],
      ['doorkeeper_application[name]', 'CLI'],
      ['doorkeeper_application[redirect_uri]', 'urn:ietf:wg:oauth:2.0:oob'],
      ['doorkeeper_application[confidential]', '0'],
      ['doorkeeper_application[scopes]', 'read_api'],
    ]);
    expectStatus(res, 201);
    const row = await t.deps.db.selectFrom('oauth_applications').selectAll().where('name', '=', 'CLI').executeTakeFirstOrThrow();
    assert.deepEqual([row.confidential, row.scopes, row.owner_id], [false, 'read_api', alice.user.id]);
  });

  test('refused input: the list again with the messages and what was typed; nothing stored', async () => {
    const before = await t.count('oauth_applications');
    const res = await create(aliceWeb, fields(aliceWeb, { 'doorkeeper_application[name]': '  ', 'doorkeeper_application[redirect_uri]': 'https://a.example/cb#frag' }));
    expectStatus(res, 200);
    assert.match(res.body, /Name can&#39;t be blank/);
    assert.match(res.body, /Redirect URI cannot contain a fragment\./);
    assert.match(res.body, /value="https:\/\/a.example\/cb#frag"|>https:\/\/a.example\/cb#frag</);
    const badScope = await create(aliceWeb, [['authenticity_token', aliceWeb.csrf], ['doorkeeper_application[name]', 'x'], ['doorkeeper_application[redirect_uri]', CALLBACK], ['doorkeeper_application[scopes][]', 'sudo_everything']]);
    assert.match(badScope.body, /Scopes doesn&#39;t match configured on the server\./);
    assert.equal(await t.count('oauth_applications'), before);
  });

  test("without the session's CSRF token: 422, nothing stored", async () => {
    const before = await t.count('oauth_applications');
    const res = await t.post('/oauth/applications', { headers: { cookie: aliceWeb.cookie }, form: form(fields(aliceWeb).filter(([k]) => k !== 'authenticity_token')) });
    expectStatus(res, 422);
    assert.equal(await t.count('oauth_applications'), before);
  });
});

describe('whose they are', () => {
  test("another user (an administrator too) neither sees nor deletes them; the Applications API does not reach them", async () => {
    const { row } = await register(aliceWeb, 'Private tool');
    expectStatus(await t.get(`/oauth/applications/${row.id}`, { headers: { cookie: bobWeb.cookie } }), 404);
    expectStatus(await t.request('DELETE', `/oauth/applications/${row.id}`, { headers: { cookie: bobWeb.cookie, 'x-csrf-token': bobWeb.csrf } }), 404);
    assert.doesNotMatch((await t.get('/oauth/applications', { headers: { cookie: bobWeb.cookie } })).body, /Private tool/);
    const listed = (await t.get('/api/v4/applications', { token: ROOT_TOKEN })).json() as { id: number }[];
    assert.ok(!listed.some((a) => a.id === row.id));
    expectStatus(await t.del(`/api/v4/applications/${row.id}`, { token: ROOT_TOKEN }), 404);
    expectStatus(await t.post(`/api/v4/applications/${row.id}/renew-secret`, { token: ROOT_TOKEN }), 404);
    await t.user({ username: 'appadmin', admin: true });
    const admin = await signIn('appadmin');
    expectStatus(await t.get(`/oauth/applications/${row.id}`, { headers: { cookie: admin.cookie } }), 404);
    assert.equal(await t.deps.db.selectFrom('oauth_applications').select('id').where('id', '=', row.id).executeTakeFirst().then(Boolean), true);
  });

  test('an instance-wide application is not on any user page', async () => {
    const admin = await t.post('/api/v4/applications', { token: ROOT_TOKEN, body: { name: 'Instance app', redirect_uri: CALLBACK, scopes: 'api' } });
    expectStatus(admin, 201);
    expectStatus(await t.get(`/oauth/applications/${admin.json().id}`, { headers: { cookie: aliceWeb.cookie } }), 404);
    assert.doesNotMatch((await t.get('/oauth/applications', { headers: { cookie: aliceWeb.cookie } })).body, /Instance app/);
  });
});

/** Bob gives the application access through the authorization-code flow; the access token. */
async function authorizeAsBob(uid: string, secret: string, name: string): Promise<string> {
  const query = new URLSearchParams({ client_id: uid, redirect_uri: CALLBACK, response_type: 'code', state: 's1', scope: 'read_user' }).toString();
  const consent = await t.get(`/oauth/authorize?${query}`, { headers: { cookie: bobWeb.cookie } });
  expectStatus(consent, 200);
  assert.ok(consent.body.includes(name));
  const approved = await t.post('/oauth/authorize', { headers: { cookie: bobWeb.cookie }, form: `${query}&authenticity_token=${encodeURIComponent(bobWeb.csrf)}` });
  expectStatus(approved, 302);
  const code = new URL(approved.headers.location as string).searchParams.get('code');
  assert.ok(code);
  const token = await t.post('/oauth/token', { form: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: uid, client_secret: secret }).toString() });
  expectStatus(token, 200);
  return token.json().access_token;
}

describe('in the authorization-code flow', () => {
  test("bob authorizes alice's application; the token works and the application is among bob's authorized ones", async () => {
    const { uid, secret } = await register(aliceWeb, 'Flow tool');
    const me = await t.get('/api/v4/user', { headers: { authorization: `Bearer ${await authorizeAsBob(uid, secret, 'Flow tool')}` } });
    expectStatus(me, 200);
    assert.equal(me.json().username, 'appbob');
    assert.match((await t.get('/oauth/applications', { headers: { cookie: bobWeb.cookie } })).body, /Authorized applications \(1\)[\s\S]*Flow tool/);
  });

  test('deleting it (a form post with _method=delete) revokes what it was given', async () => {
    const { row, uid, secret } = await register(aliceWeb, 'Short-lived');
    const bearer = { authorization: `Bearer ${await authorizeAsBob(uid, secret, 'Short-lived')}` };
    expectStatus(await t.get('/api/v4/user', { headers: bearer }), 200);
    const res = await t.post(`/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie }, form: form([['authenticity_token', aliceWeb.csrf], ['_method', 'delete']]) });
    expectStatus(res, 302);
    assert.equal(res.headers.location, '/oauth/applications');
    assert.equal(await t.deps.db.selectFrom('oauth_applications').select('id').where('id', '=', row.id).executeTakeFirst(), undefined);
    expectStatus(await t.get('/api/v4/user', { headers: bearer }), 401);
    expectStatus(await t.request('DELETE', `/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie, 'x-csrf-token': aliceWeb.csrf } }), 404);
  });

  test('a delete without the CSRF token is refused', async () => {
    const { row } = await register(aliceWeb, 'Kept');
    expectStatus(await t.request('DELETE', `/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie } }), 422);
    assert.ok(await t.deps.db.selectFrom('oauth_applications').select('id').where('id', '=', row.id).executeTakeFirst());
  });
});

describe('user_oauth_applications switched off', () => {
  test("the list keeps only the access given; every other page goes to the profile; the applications stay and still work", async () => {
    const { row, uid } = await register(aliceWeb, 'Before switch');
    await setting(false);
    try {
      const list = await t.get('/oauth/applications', { headers: { cookie: aliceWeb.cookie } });
      expectStatus(list, 200);
      assert.doesNotMatch(list.body, /Add new application|Your applications/);
      assert.match(list.body, /Authorized applications/);
      const before = await t.count('oauth_applications');
      for (const res of [
        await create(aliceWeb),
        await t.get(`/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie } }),
        await t.request('DELETE', `/oauth/applications/${row.id}`, { headers: { cookie: aliceWeb.cookie, 'x-csrf-token': aliceWeb.csrf } }),
      ]) {
        expectStatus(res, 302);
        assert.equal(res.headers.location, '/-/profile');
      }
      assert.equal(await t.count('oauth_applications'), before);
      // Signed out still goes to the sign-in page first.
      assert.match((await t.get(`/oauth/applications/${row.id}`)).headers.location as string, /^\/users\/sign_in/);
      const consent = await t.get(`/oauth/authorize?${new URLSearchParams({ client_id: uid, redirect_uri: CALLBACK, response_type: 'code', scope: 'api' })}`, { headers: { cookie: bobWeb.cookie } });
      expectStatus(consent, 200);
    } finally {
      await setting(true);
    }
  });
});

describe('a deleted user', () => {
  test("takes their applications along", async () => {
    const carol = await t.user({ username: 'appcarol' });
    const { row } = await register(await signIn('appcarol'), 'Carol tool');
    expectStatus(await t.del(`/api/v4/users/${carol.user.id}?hard_delete=true`, { token: ROOT_TOKEN }), 204);
    await t.runJobs();
    assert.equal(await t.deps.db.selectFrom('oauth_applications').select('id').where('id', '=', row.id).executeTakeFirst(), undefined);
  });
});
