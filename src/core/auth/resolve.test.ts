// Unit tests of resolveActor: credential precedence, the job-token resolver (with a fixture
// resolver), sessions and their CSRF rule, and the errors thrown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import type { UserRow } from '../../db/schema.ts';
import { issueToken } from '../../modules/access-tokens/access-tokens.service.ts';
import { startSession } from '../../modules/sessions/sessions.service.ts';
import { DomainError } from '../errors.ts';
import type { RouteAuth } from './scopes.ts';
import type { JobTokenResolver } from './job-tokens.ts';
import { type CredentialSource, type ResolveDeps, SESSION_COOKIE, resolveActor } from './resolve.ts';
import { systemContext } from '../context.ts';

const JOB_TOKEN = 'glcbt-fixture-job-token-0001';
const JOB_ID = 4242;

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let deps: ResolveDeps;
let resolverCalls: string[];

function source(partial: Partial<CredentialSource> = {}): CredentialSource {
  return { method: 'GET', headers: {}, params: {}, cookies: {}, ...partial };
}

const jobRoute: RouteAuth = { auth: 'required', jobToken: true };
const plainRoute: RouteAuth = { auth: 'optional' };
const requiredRoute: RouteAuth = { auth: 'required' };

async function rejects(promise: Promise<unknown>, status: number, message: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.message, message);
    return true;
  });
}

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob', admin: true }, ['api', 'sudo']);
  resolverCalls = [];
  const fixture: JobTokenResolver = async (_db, token) => {
    resolverCalls.push(token);
    return token === JOB_TOKEN ? { user: alice.user, jobId: JOB_ID } : null;
  };
  deps = { db: t.deps.db, config: t.deps.config, jobTokens: fixture, now: t.deps.now };
});
after(() => t.close());

describe('job tokens', () => {
  test('JOB-TOKEN authenticates on a route that accepts job tokens', async () => {
    const actor = await resolveActor(deps, source({ headers: { 'job-token': JOB_TOKEN } }), jobRoute);
    assert.ok(actor);
    assert.equal(actor.via, 'job_token');
    assert.equal(actor.jobId, JOB_ID);
    assert.equal(actor.user.id, alice.user.id);
    assert.deepEqual(actor.scopes, []);
    assert.equal(actor.tokenId, null);
  });

  test('job_token and token parameters work too', async () => {
    for (const name of ['job_token', 'token']) {
      const actor = await resolveActor(deps, source({ params: { [name]: JOB_TOKEN } }), jobRoute);
      assert.equal(actor?.jobId, JOB_ID, name);
    }
  });

  test('a job token sent as Bearer works where job tokens are accepted', async () => {
    const actor = await resolveActor(deps, source({ headers: { authorization: `Bearer ${JOB_TOKEN}` } }), jobRoute);
    assert.equal(actor?.via, 'job_token');
  });

  test('a JOB-TOKEN on another route is ignored: the caller is anonymous', async () => {
    resolverCalls.length = 0;
    assert.equal(await resolveActor(deps, source({ headers: { 'job-token': JOB_TOKEN } }), plainRoute), null);
    assert.deepEqual(resolverCalls, []);
    await rejects(resolveActor(deps, source({ headers: { 'job-token': JOB_TOKEN } }), requiredRoute), 401, '401 Unauthorized');
  });

  test('a job token as Bearer on another route is ignored too', async () => {
    assert.equal(await resolveActor(deps, source({ headers: { authorization: `Bearer ${JOB_TOKEN}` } }), plainRoute), null);
  });

  test('a job token in PRIVATE-TOKEN is left to the job-token lookup', async () => {
    assert.equal(await resolveActor(deps, source({ headers: { 'private-token': JOB_TOKEN } }), plainRoute), null);
    const actor = await resolveActor(deps, source({ headers: { 'private-token': JOB_TOKEN }, params: { job_token: JOB_TOKEN } }), jobRoute);
    assert.equal(actor?.via, 'job_token');
  });

  test('an unknown job token on an accepting route is 401', async () => {
    await rejects(resolveActor(deps, source({ headers: { 'job-token': 'glcbt-unknown' } }), jobRoute), 401, '401 Unauthorized');
    await rejects(resolveActor(deps, source({ params: { job_token: 'glcbt-unknown' } }), { auth: 'optional', jobToken: true }), 401, '401 Unauthorized');
  });

  test('a personal token wins over a job token', async () => {
    const actor = await resolveActor(deps, source({ headers: { 'private-token': bob.token, 'job-token': JOB_TOKEN } }), jobRoute);
    assert.equal(actor?.via, 'personal_access_token');
    assert.equal(actor?.user.id, bob.user.id);
  });

  test('job tokens skip the scope check but cannot sudo', async () => {
    const actor = await resolveActor(deps, source({ method: 'POST', headers: { 'job-token': JOB_TOKEN } }), jobRoute);
    assert.equal(actor?.via, 'job_token');
    const adminJob: JobTokenResolver = async () => ({ user: bob.user, jobId: 7 });
    await rejects(
      resolveActor({ ...deps, jobTokens: adminJob }, source({ headers: { 'job-token': 'glcbt-x', sudo: 'alice' } }), jobRoute),
      403,
      '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo',
    );
  });
});

describe('tokens', () => {
  test('a personal token resolves with its scopes and id', async () => {
    const actor = await resolveActor(deps, source({ headers: { 'private-token': alice.token } }), plainRoute);
    assert.equal(actor?.via, 'personal_access_token');
    assert.deepEqual(actor?.scopes, ['api']);
    assert.equal(typeof actor?.tokenId, 'number');
    assert.equal(actor?.isAdmin, false);
    assert.equal(actor?.impersonation, false);
    assert.equal(actor?.sudoBy, null);
  });

  test('an unknown personal token is 401 even where anonymous is fine', async () => {
    await rejects(resolveActor(deps, source({ params: { private_token: 'glpat-nope' } }), plainRoute), 401, '401 Unauthorized');
  });

  test('no credentials: anonymous, or 401 where required', async () => {
    assert.equal(await resolveActor(deps, source(), plainRoute), null);
    await rejects(resolveActor(deps, source(), requiredRoute), 401, '401 Unauthorized');
  });

  test('insufficient scope lists the route\'s scopes, its own first', async () => {
    const readUser = await t.user({ username: 'ru' }, ['read_user']);
    await assert.rejects(resolveActor(deps, source({ method: 'POST', headers: { 'private-token': readUser.token } }), { scopes: ['read_user'] }), (e: unknown) => {
      assert.ok(e instanceof DomainError);
      assert.deepEqual(e.shape, { oauth: 'insufficient_scope', scope: 'read_user api read_api' });
      return true;
    });
    const ok = await resolveActor(deps, source({ method: 'HEAD', headers: { 'private-token': readUser.token } }), { scopes: ['read_user'] });
    assert.equal(ok?.user.id, readUser.user.id);
  });

  test('a route accepting any scope accepts a token of any scope, for writes too', async () => {
    const repo = await t.user({ username: 'repo' }, ['write_repository']);
    const actor = await resolveActor(deps, source({ method: 'DELETE', headers: { 'private-token': repo.token } }), { auth: 'required', anyScope: true });
    assert.equal(actor?.user.id, repo.user.id);
  });

  test('expiry follows the clock: a token expires when its date begins (UTC)', async () => {
    const { token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'clock', scopes: ['api'], expiresAt: '2030-01-02' }, alice.user);
    const at = (iso: string) => ({ ...deps, now: () => new Date(iso) });
    const src = source({ headers: { 'private-token': token } });
    assert.equal((await resolveActor(at('2030-01-01T23:59:59.999Z'), src, plainRoute))?.user.id, alice.user.id);
    await rejects(resolveActor(at('2030-01-02T00:00:00.000Z'), src, plainRoute), 401, 'Token is expired. You can either do re-authorization or token refresh.');
  });

  test('sudo turns the actor into the target and records who used it', async () => {
    const actor = await resolveActor(deps, source({ headers: { 'private-token': bob.token, sudo: 'ALICE' } }), plainRoute);
    assert.equal(actor?.user.id, alice.user.id);
    assert.equal(actor?.sudoBy?.id, bob.user.id);
    assert.equal(actor?.isAdmin, false);
    assert.equal(actor?.via, 'personal_access_token');
  });

  test('the root token is an administrator', async () => {
    const actor = await resolveActor(deps, source({ headers: { 'private-token': ROOT_TOKEN } }), plainRoute);
    assert.equal(actor?.user.id, 1);
    assert.equal(actor?.isAdmin, true);
  });
});

describe('sessions', () => {
  let cookie: string;
  let csrf: string;
  before(async () => {
    const user = (await t.deps.db.selectFrom('users').selectAll().where('id', '=', alice.user.id).executeTakeFirstOrThrow()) as UserRow;
    ({ cookie, csrfToken: csrf } = await startSession(systemContext(t.deps), user, '127.0.0.1'));
  });

  test('the cookie authenticates reads', async () => {
    for (const method of ['GET', 'HEAD']) {
      const actor = await resolveActor(deps, source({ method, cookies: { [SESSION_COOKIE]: cookie } }), requiredRoute);
      assert.equal(actor?.via, 'session');
      assert.equal(actor?.user.id, alice.user.id);
    }
  });

  test('a write needs the session\'s CSRF token, otherwise the caller is anonymous', async () => {
    assert.equal(await resolveActor(deps, source({ method: 'POST', cookies: { [SESSION_COOKIE]: cookie } }), plainRoute), null);
    assert.equal(await resolveActor(deps, source({ method: 'PUT', cookies: { [SESSION_COOKIE]: cookie }, headers: { 'x-csrf-token': 'wrong' } }), plainRoute), null);
    await rejects(resolveActor(deps, source({ method: 'POST', cookies: { [SESSION_COOKIE]: cookie } }), requiredRoute), 401, '401 Unauthorized');
    const actor = await resolveActor(deps, source({ method: 'POST', cookies: { [SESSION_COOKIE]: cookie }, headers: { 'x-csrf-token': csrf } }), requiredRoute);
    assert.equal(actor?.via, 'session');
  });

  test('an unknown cookie is anonymous', async () => {
    assert.equal(await resolveActor(deps, source({ cookies: { [SESSION_COOKIE]: 'nope' } }), plainRoute), null);
  });

  test('a token wins over the cookie', async () => {
    const actor = await resolveActor(deps, source({ cookies: { [SESSION_COOKIE]: cookie }, headers: { 'private-token': bob.token } }), plainRoute);
    assert.equal(actor?.user.id, bob.user.id);
  });

  test('an expired session is anonymous', async () => {
    const later = { ...deps, now: () => new Date(Date.now() + 8 * 86_400_000) };
    assert.equal(await resolveActor(later, source({ cookies: { [SESSION_COOKIE]: cookie } }), plainRoute), null);
  });

  test('sessions are never checked against scopes', async () => {
    const actor = await resolveActor(deps, source({ method: 'POST', cookies: { [SESSION_COOKIE]: cookie }, headers: { 'x-csrf-token': csrf } }), { scopes: ['read_user'] });
    assert.deepEqual(actor?.scopes, []);
  });
});
