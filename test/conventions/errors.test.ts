// Error answers the platform gives before and around the routes: unknown routes, bodies it cannot
// read, oversized bodies, unsupported media types, malformed strings, and the error handler itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectError } from '../matchers.ts';
import { installErrorHandling } from '../../src/core/error-handler.ts';
import { DomainError, apiError, badRequest, conflict, errorList, messageList, forbidden, insufficientScope, invalidFields, invalidToken, notFound, TOKEN_REVOKED } from '../../src/core/errors.ts';

const BODY_LIMIT = 4096;
let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_BODY_LIMIT: String(BODY_LIMIT) });
});
after(() => t.close());

const tokens = '/api/v4/users/1/personal_access_tokens';

describe('unknown routes', () => {
  test('404 {"error":"404 Not Found"} for any method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      expectError(await t.request(method, '/api/v4/no/such/route', { token: ROOT_TOKEN }), 404, { error: '404 Not Found' });
    }
  });

  test('authentication is not checked first: anonymous and bad tokens get the same 404', async () => {
    expectError(await t.get('/api/v4/nope'), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4/nope', { token: 'garbage' }), 404, { error: '404 Not Found' });
  });
});

describe('bodies the server cannot read', () => {
  test('malformed JSON is 400 and writes nothing', async () => {
    const before = await t.count('personal_access_tokens');
    for (const body of ['{', '{"name": "x",}', "{'name': 'x'}", '[1, 2', 'nul', '{"a":1}{"b":2}']) {
      expectError(await t.post(tokens, { token: ROOT_TOKEN, body }), 400, { error: 'message body does not match declared format' });
    }
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('malformed JSON on a route without a body schema is 400 too', async () => {
    expectError(await t.post('/api/v4/users/1/block', { token: ROOT_TOKEN, body: '{' }), 400, { error: 'message body does not match declared format' });
  });

  test('an empty JSON body counts as no parameters', async () => {
    expectError(await t.post(tokens, { token: ROOT_TOKEN, body: '' }), 400, { error: 'name is missing, scopes is missing' });
  });

  test('__proto__ in a JSON body changes nothing', async () => {
    const res = await t.post(tokens, { token: ROOT_TOKEN, body: '{"__proto__": {"name": "p", "scopes": ["api"]}}' });
    expectError(res, 400, { error: 'name is missing, scopes is missing' });
    assert.equal(({} as Record<string, unknown>).name, undefined);
  });

  test(`a body over QUARRY_BODY_LIMIT is 413`, async () => {
    const before = await t.count('personal_access_tokens');
    const big = { name: 'x'.repeat(BODY_LIMIT), scopes: ['api'] };
    expectError(await t.post(tokens, { token: ROOT_TOKEN, body: big }), 413, { message: '413 Request Entity Too Large' });
    expectError(await t.post(tokens, { token: ROOT_TOKEN, form: `name=${'x'.repeat(BODY_LIMIT)}&scopes=api` }), 413, { message: '413 Request Entity Too Large' });
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('a multipart file over the limit is 413', async () => {
    const boundary = 'b0undary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${'x'.repeat(BODY_LIMIT * 2)}\r\n` +
      `--${boundary}--\r\n`;
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/v4/users/1',
      headers: { 'private-token': ROOT_TOKEN, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    expectError(res, 413, { message: '413 Request Entity Too Large' });
  });

  for (const type of ['text/plain', 'image/png', 'application/xml', 'text/plain; charset=utf-8']) {
    test(`Content-Type ${type} with a body is 415`, async () => {
      const before = await t.count('personal_access_tokens');
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const res = await t.request(method, method === 'POST' ? tokens : '/api/v4/users/1', { token: ROOT_TOKEN, body: 'name=x', headers: { 'content-type': type } });
        expectError(res, 415, { error: `The provided content-type '${type}' is not supported.` });
      }
      assert.equal(await t.count('personal_access_tokens'), before);
    });
  }

  test('a GET with an unsupported body type is served, the body ignored', async () => {
    const res = await t.request('GET', '/api/v4/user', { token: ROOT_TOKEN, body: 'x', headers: { 'content-type': 'image/png' } });
    assert.equal(res.statusCode, 200);
  });
});

describe('malformed strings', () => {
  function expectBadRequestText(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(res.body, 'Bad Request');
  }

  test('a NUL byte in the path, the query or the body', async () => {
    expectBadRequestText(await t.get('/api/v4/users/1%00', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.get('/api/v4/nothing%00here'));
    expectBadRequestText(await t.get('/api/v4/users?search=a%00b', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.get('/api/v4/users?se%00arch=ab', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.post(tokens, { token: ROOT_TOKEN, body: { name: 'a\u0000', scopes: ['api'] } }));
    expectBadRequestText(await t.post(tokens, { token: ROOT_TOKEN, body: { name: 'a', scopes: ['api'], nested: { deep: ['x\u0000'] } } }));
    expectBadRequestText(await t.post(tokens, { token: ROOT_TOKEN, form: 'name=a%00&scopes=api' }));
  });

  test('invalid percent-encoding in the path or the query', async () => {
    expectBadRequestText(await t.get('/api/v4/users/%E0%A4%A', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.get('/api/v4/users/%ZZ', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.get('/api/v4/nothing%'));
    expectBadRequestText(await t.get('/api/v4/users?search=%E0%A4%A', { token: ROOT_TOKEN }));
    expectBadRequestText(await t.get('/api/v4/users?search=100%', { token: ROOT_TOKEN }));
  });

  test('nothing was written by any of them', async () => {
    assert.equal(await t.count('personal_access_tokens'), 1);
  });
});

describe('validation messages', () => {
  test('joined with ", " in declaration order', async () => {
    expectError(await t.post(tokens, { token: ROOT_TOKEN, body: { expires_at: 'soon' } }), 400, { error: 'name is missing, scopes is missing, expires_at is invalid' });
    expectError(await t.post(tokens, { token: ROOT_TOKEN, body: { name: 'x', scopes: ['nope'] } }), 400, { error: 'scopes does not have a valid value' });
  });

  test('401 comes before parameter validation on routes that need a user', async () => {
    expectError(await t.post(tokens, { body: {} }), 401, { message: '401 Unauthorized' });
  });
});

describe('the error handler', () => {
  const app = Fastify();
  installErrorHandling(app);
  const thrown: Record<string, () => unknown> = {
    crash: () => {
      throw new Error('secret detail');
    },
    reject: () => Promise.reject(new TypeError('x is undefined')),
    bad: () => {
      throw badRequest('"title" not given');
    },
    forbidden: () => {
      throw forbidden();
    },
    missing: () => {
      throw notFound('Project');
    },
    fields: () => {
      throw invalidFields({ email: ['has already been taken'], base: ['x'] });
    },
    conflict: () => {
      throw conflict();
    },
    token: () => {
      throw invalidToken(TOKEN_REVOKED);
    },
    scope: () => {
      throw insufficientScope(['api', 'read_api']);
    },
    throttled: () => {
      throw apiError(429, '429 Too Many Requests');
    },
    teapot: () => {
      throw new DomainError({ status: 418, message: "418 I'm a teapot" });
    },
    refusedParams: () => {
      throw new DomainError({ status: 405, message: 'not here', shape: 'error' });
    },
    listed: () => {
      throw errorList(['first', 'second'], 403);
    },
    fullMessages: () => {
      throw messageList(["Name can't be blank"]);
    },
  };
  for (const [name, fn] of Object.entries(thrown)) app.get(`/${name}`, async () => fn());
  after(() => app.close());

  test('an unexpected error is a plain 500 that reveals nothing', async () => {
    for (const url of ['/crash', '/reject']) {
      const res = await app.inject({ url });
      expectError(res, 500, { message: '500 Internal Server Error' });
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
  });

  test('application errors use {"message": ...}', async () => {
    expectError(await app.inject({ url: '/bad' }), 400, { message: '400 Bad request - "title" not given' });
    expectError(await app.inject({ url: '/forbidden' }), 403, { message: '403 Forbidden' });
    expectError(await app.inject({ url: '/missing' }), 404, { message: '404 Project Not Found' });
    expectError(await app.inject({ url: '/conflict' }), 409, { message: '409 Conflict' });
    expectError(await app.inject({ url: '/fields' }), 400, { message: { email: ['has already been taken'], base: ['x'] } });
  });

  test('token failures use the OAuth shape', async () => {
    const revoked = await app.inject({ url: '/token' });
    expectError(revoked, 401, { error: 'invalid_token', error_description: TOKEN_REVOKED });
    assert.equal(revoked.headers['www-authenticate'], `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${TOKEN_REVOKED}"`);
    const scope = await app.inject({ url: '/scope' });
    expectError(scope, 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api',
    });
    assert.equal(scope.headers['www-authenticate'], undefined);
  });

  test('any status with either body shape, no new kind needed', async () => {
    expectError(await app.inject({ url: '/teapot' }), 418, { message: "418 I'm a teapot" });
    expectError(await app.inject({ url: '/refusedParams' }), 405, { error: 'not here' });
    expectError(await app.inject({ url: '/listed' }), 403, { error: ['first', 'second'] });
    expectError(await app.inject({ url: '/fullMessages' }), 422, { message: ["Name can't be blank"] });
  });

  test('429 carries Retry-After: 60', async () => {
    const res = await app.inject({ url: '/throttled' });
    expectError(res, 429, { message: '429 Too Many Requests' });
    assert.equal(res.headers['retry-after'], '60');
  });

  test('unknown routes', async () => {
    expectError(await app.inject({ url: '/nothing' }), 404, { error: '404 Not Found' });
  });
});
