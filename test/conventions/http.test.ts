// HTTP-level conventions: HEAD, OPTIONS + Allow, slashes, /api/v3, request ids, common headers,
// health probes, /version and /metadata.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError } from '../matchers.ts';
import { MetadataEntity } from '../../src/modules/metadata/metadata.routes.ts';
import { UserAdminEntity } from '../../src/modules/users/users.schemas.ts';
import { REPORTED_VERSION } from '../../src/version.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('HEAD', () => {
  test('answers every GET route with the GET headers and no body', async () => {
    const get = await t.get('/api/v4/users', { token: ROOT_TOKEN });
    const head = await t.request('HEAD', '/api/v4/users', { token: ROOT_TOKEN });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    for (const name of ['content-type', 'link', 'x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-next-page', 'x-prev-page']) {
      assert.equal(head.headers[name], get.headers[name], name);
    }
  });

  test('a read_api token may send HEAD', async () => {
    const { token } = await t.user({}, ['read_api']);
    const res = await t.request('HEAD', '/api/v4/user', { token });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '');
  });

  test('HEAD needs the same authentication as GET', async () => {
    const res = await t.request('HEAD', '/api/v4/user');
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, '');
  });

  test('the GET route answers with its Content-Length, and the request stays a HEAD for what follows routing', async () => {
    const get = await t.get('/api/v4/version', { token: ROOT_TOKEN });
    const head = await t.request('HEAD', '/api/v4/version?x=1', { token: ROOT_TOKEN });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    // Git over HTTP refuses HEAD by name: its handler sees the method.
    assert.equal((await t.request('HEAD', '/root/anything.git/info/refs?service=git-upload-pack')).statusCode, 403);
  });

  test('a path without GET, or unknown, is the catch-all 404', async () => {
    for (const url of ['/api/v4/users/1/block', '/api/v4/nothing/here']) {
      const res = await t.request('HEAD', url, { token: ROOT_TOKEN });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.body, '');
    }
  });
});

describe('OPTIONS', () => {
  test('a known path answers 204 with Allow in definition order, HEAD last', async () => {
    const list = await t.request('OPTIONS', '/api/v4/users');
    assert.equal(list.statusCode, 204);
    assert.equal(list.headers.allow, 'OPTIONS, GET, POST, HEAD');
    assert.equal(list.body, '');

    const one = await t.request('OPTIONS', '/api/v4/users/1');
    assert.equal(one.statusCode, 204);
    assert.equal(one.headers.allow, 'OPTIONS, GET, PUT, DELETE, HEAD');
  });

  test('a path without GET has no HEAD in Allow', async () => {
    const res = await t.request('OPTIONS', '/api/v4/users/1/block');
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers.allow, 'OPTIONS, POST');
  });

  test('needs no authentication', async () => {
    const res = await t.request('OPTIONS', '/api/v4/user');
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers.allow, 'OPTIONS, GET, HEAD');
  });

  test('an unknown path is the catch-all 404', async () => {
    expectError(await t.request('OPTIONS', '/api/v4/nothing/here'), 404, { error: '404 Not Found' });
  });

  test('paths match as for the other methods: slashes, a query, encoded parameters, a static path beside a parameter', async () => {
    for (const url of ['/api/v4/users/1/', '/api/v4//users/1', '/api/v4/users/1?x=1', '/api/v4/users/%31']) {
      const res = await t.request('OPTIONS', url);
      assert.equal(res.statusCode, 204, url);
      assert.equal(res.headers.allow, 'OPTIONS, GET, PUT, DELETE, HEAD', url);
    }
    const user = await t.request('OPTIONS', '/api/v4/user/keys');
    assert.equal(user.headers.allow, 'OPTIONS, GET, POST, HEAD');
  });
});

describe('routing', () => {
  test('an unknown route is 404 {"error":"404 Not Found"}', async () => {
    expectError(await t.get('/api/v4/nothing'), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4_or_is_it/users'), 404, { error: '404 Not Found' });
    expectError(await t.get('/nothing'), 404, { error: '404 Not Found' });
  });

  test('a wrong verb on a real path is the catch-all 404', async () => {
    expectError(await t.request('PATCH', '/api/v4/users', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
    expectError(await t.request('PUT', '/api/v4/users', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
  });

  test('/users/:id takes digits only', async () => {
    expectError(await t.get('/api/v4/users/root', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
  });

  test('trailing and doubled slashes are ignored, in the route and in the links', async () => {
    for (const url of ['/api/v4/users/', '/api//v4//users', '//api/v4/users//']) {
      const res = await t.get(url, { token: ROOT_TOKEN });
      assert.equal(res.statusCode, 200, url);
      expectEntities(res.json(), UserAdminEntity);
      assert.equal(
        res.headers.link,
        '<http://quarry.test/api/v4/users?page=1&per_page=20&with_custom_attributes=false>; rel="first", ' +
          '<http://quarry.test/api/v4/users?page=1&per_page=20&with_custom_attributes=false>; rel="last"',
        url,
      );
    }
    const one = await t.get('/api/v4/users/1/', { token: ROOT_TOKEN });
    assert.equal(one.statusCode, 200);
    expectEntity(one.json(), UserAdminEntity);
  });

  test('/api/v3 is gone: 410', async () => {
    const body = { error: 'API V3 is no longer supported. Use API V4 instead.' };
    for (const url of ['/api/v3', '/api/v3/', '/api/v3/projects', '/api/v3/users?page=2', '/api/v3?x=1', '/api//v3/users']) {
      expectError(await t.get(url), 410, body);
    }
    expectError(await t.post('/api/v3/projects', { token: ROOT_TOKEN, body: {} }), 410, body);
    expectError(await t.get('/api/v3x/users'), 404, { error: '404 Not Found' });
  });
});

describe('request id', () => {
  test('a well-formed X-Request-Id is echoed', async () => {
    const res = await t.get('/api/v4/version', { token: ROOT_TOKEN, headers: { 'x-request-id': 'abc-123.x:y_z' } });
    assert.equal(res.headers['x-request-id'], 'abc-123.x:y_z');
  });

  test('one is generated when none or a bad one is given, a new one each time', async () => {
    const a = await t.get('/api/v4/version', { token: ROOT_TOKEN });
    const b = await t.get('/api/v4/version', { token: ROOT_TOKEN, headers: { 'x-request-id': 'bad id with spaces <script>' } });
    const c = await t.get('/api/v4/version', { token: ROOT_TOKEN, headers: { 'x-request-id': 'x'.repeat(129) } });
    for (const res of [a, b, c]) assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{32}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  test('errors carry it too', async () => {
    const res = await t.get('/api/v4/nothing', { headers: { 'x-request-id': 'req-404' } });
    assert.equal(res.headers['x-request-id'], 'req-404');
  });
});

describe('common headers', () => {
  const urls: [string, string, number][] = [
    ['GET', '/api/v4/version', 200],
    ['GET', '/api/v4/user', 401],
    ['GET', '/api/v4/nothing', 404],
    ['GET', '/api/v3/users', 410],
    ['GET', '/api/v4/users?search=%00', 400],
    ['GET', '/api/v4/users/%E0%A4%A', 400],
    ['OPTIONS', '/api/v4/users', 204],
    ['GET', '/-/health', 200],
  ];
  for (const [method, url, status] of urls) {
    test(`${method} ${url} (${status}) has the security headers and a request id`, async () => {
      const res = await t.request(method as 'GET', url, { token: url.includes('version') ? ROOT_TOKEN : undefined });
      assert.equal(res.statusCode, status);
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{32}$/);
    });
  }

  test('JSON answers are application/json without a charset, errors included', async () => {
    for (const res of [
      await t.get('/api/v4/user', { token: ROOT_TOKEN }),
      await t.get('/api/v4/user'),
      await t.get('/api/v4/nothing'),
      await t.get('/api/v4/users?per_page=abc', { token: ROOT_TOKEN }),
      await t.post('/api/v4/users', { token: ROOT_TOKEN, body: '{' }),
    ]) {
      assert.equal(res.headers['content-type'], 'application/json', res.body);
    }
  });
});

describe('health probes', () => {
  test('/-/health is plain text', async () => {
    const res = await t.get('/-/health');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(res.body, 'Quarry OK');
  });

  test('/-/liveness', async () => {
    const res = await t.get('/-/liveness');
    assert.equal(res.statusCode, 200);
    expectEntity(res.json(), Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false }));
  });

  test('/-/readiness checks the database', async () => {
    const res = await t.get('/-/readiness');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok', db_check: [{ status: 'ok' }] });
  });

  test('probes ignore credentials, even broken ones', async () => {
    for (const url of ['/-/health', '/-/liveness', '/-/readiness']) {
      const res = await t.get(url, { token: 'glpat-garbage', headers: { sudo: 'nobody' } });
      assert.equal(res.statusCode, 200, url);
    }
  });

  test('HEAD works on probes', async () => {
    const res = await t.request('HEAD', '/-/liveness');
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '');
  });
});

describe('/version and /metadata', () => {
  test('both answer the same body to any signed-in user', async () => {
    const { token } = await t.user();
    const version = await t.get('/api/v4/version', { token });
    const metadata = await t.get('/api/v4/metadata', { token });
    assert.equal(version.statusCode, 200);
    assert.equal(metadata.statusCode, 200);
    expectEntity(version.json(), MetadataEntity);
    assert.deepEqual(version.json(), metadata.json());
    assert.equal(version.json().version, REPORTED_VERSION);
    assert.deepEqual(version.json().kas, { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null });
    assert.equal(version.json().enterprise, false);
  });

  test('anonymous callers get 401', async () => {
    expectError(await t.get('/api/v4/version'), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/metadata'), 401, { message: '401 Unauthorized' });
  });

  test('a bad token is 401', async () => {
    expectError(await t.get('/api/v4/metadata', { token: 'glpat-nope' }), 401, { message: '401 Unauthorized' });
  });

  test('read_user and read_api tokens may read it', async () => {
    for (const scope of ['read_user', 'read_api']) {
      const { token } = await t.user({}, [scope]);
      const res = await t.get('/api/v4/metadata', { token });
      assert.equal(res.statusCode, 200, scope);
      expectEntity(res.json(), MetadataEntity);
    }
  });

  test('a token with only read_repository lacks the scope', async () => {
    const { token } = await t.user({}, ['read_repository']);
    expectError(await t.get('/api/v4/version', { token }), 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
  });
});
