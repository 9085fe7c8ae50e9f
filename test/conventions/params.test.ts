// Request parameters: the validator (parseParams) and the Link serialiser (toQuery) as units,
// then the same rules over HTTP: booleans, arrays, hashes, body formats, query/body merging.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError } from '../matchers.ts';
import { DomainError } from '../../src/core/errors.ts';
import { Bool, CommaList, OneOf, Params, parseIdOrPath, parseParams, validatorCompiler } from '../../src/core/params.ts';
import { PageParams } from '../../src/core/pagination.ts';
import { parseQueryString, toQuery } from '../../src/core/query-string.ts';
import { PersonalAccessTokenWithSecretEntity } from '../../src/modules/access-tokens/access-tokens.schemas.ts';
import { UserAdminEntity } from '../../src/modules/users/users.schemas.ts';

/** The message of the 400 parseParams throws, or the parsed value. */
function parse(schema: Parameters<typeof parseParams>[0], data: unknown): unknown {
  try {
    return parseParams(schema, data);
  } catch (error) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.shape, 'error');
    assert.equal(error.status, 400);
    return `error: ${error.message}`;
  }
}

describe('parseParams', () => {
  const flag = Params({ flag: Type.Optional(Bool()) });

  test('booleans: every accepted spelling, and nothing else', () => {
    for (const word of ['1', 'on', 'On', 'ON', 't', 'true', 'True', 'TRUE', 'T', 'y', 'yes', 'Yes', 'YES', 'Y', true, 1]) {
      assert.deepEqual(parse(flag, { flag: word }), { flag: true }, String(word));
    }
    for (const word of ['0', 'off', 'Off', 'OFF', 'f', 'false', 'False', 'FALSE', 'F', 'n', 'no', 'No', 'NO', 'N', false, 0]) {
      assert.deepEqual(parse(flag, { flag: word }), { flag: false }, String(word));
    }
    for (const word of ['tRue', 'FaLse', 'yEs', 'oN', '2', 'truthy', ' true', 2, [], {}, ['true']]) {
      assert.equal(parse(flag, { flag: word }), 'error: flag is invalid', JSON.stringify(word));
    }
  });

  test('booleans: absent or empty means not given; a default applies', () => {
    assert.deepEqual(parse(flag, {}), {});
    assert.deepEqual(parse(flag, { flag: '' }), {});
    assert.deepEqual(parse(Params({ flag: Type.Optional(Bool({ default: false })) }), {}), { flag: false });
  });

  test('integers: base 10, spaces and underscores tolerated, nothing fractional or hexadecimal', () => {
    const s = Params({ n: Type.Optional(Type.Integer()) });
    for (const [input, out] of [['42', 42], ['-7', -7], ['+3', 3], [' 5 ', 5], ['1_000', 1000], ['007', 7], [12, 12], [2.0, 2]] as const) {
      assert.deepEqual(parse(s, { n: input }), { n: out }, String(input));
    }
    for (const input of ['1.5', '0x10', '1e3', 'abc', '1_', '_1', '1__0', '12abc', '9007199254740993', 1.5, true, [1], { a: 1 }, Number.NaN]) {
      assert.equal(parse(s, { n: input }), 'error: n is invalid', JSON.stringify(input));
    }
  });

  test('strings accept numbers and booleans as text, not objects or arrays', () => {
    const s = Params({ s: Type.Optional(Type.String()) });
    assert.deepEqual(parse(s, { s: 12 }), { s: '12' });
    assert.deepEqual(parse(s, { s: false }), { s: 'false' });
    assert.deepEqual(parse(s, { s: '' }), { s: '' });
    assert.equal(parse(s, { s: ['a'] }), 'error: s is invalid');
    assert.equal(parse(s, { s: { a: 1 } }), 'error: s is invalid');
  });

  test('missing, invalid and not-valid values are listed in declaration order, joined with ", "', () => {
    const s = Params({
      name: Type.String(),
      page: Type.Optional(Type.Integer()),
      state: Type.Optional(OneOf(['opened', 'closed'])),
      scopes: Type.Array(Type.String()),
      flag: Type.Optional(Bool()),
    });
    assert.equal(parse(s, { flag: 'x', state: 'merged', page: 'p' }), 'error: name is missing, page is invalid, state does not have a valid value, scopes is missing, flag is invalid');
  });

  test('except values, blank strings, bounds', () => {
    assert.equal(parse(Params(PageParams), { per_page: '0' }), 'error: per_page has a value not allowed');
    assert.deepEqual(parse(Params(PageParams), { per_page: '-1', page: '0' }), { per_page: -1, page: 0 });
    const blank = Params({ name: Type.String({ 'x-blank': false }) });
    assert.equal(parse(blank, { name: '   ' }), 'error: name is empty');
    const bounded = Params({ n: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })) });
    assert.equal(parse(bounded, { n: 4 }), 'error: n does not have a valid value');
  });

  test('string lengths and patterns are "is invalid"; bounds "does not have a valid value"', () => {
    const s = Params({
      code: Type.Optional(Type.String({ minLength: 2, maxLength: 3 })),
      slug: Type.Optional(Type.String({ pattern: '^[a-z]+$' })),
      n: Type.Optional(Type.Integer({ minimum: 1 })),
      x: Type.Optional(Type.Number({ maximum: 1.5 })),
      tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2 })),
    });
    assert.deepEqual(parse(s, { code: 'ab', slug: 'abc', n: '1', x: '1.5', tags: ['a', 'b'] }), { code: 'ab', slug: 'abc', n: 1, x: 1.5, tags: ['a', 'b'] });
    // Characters, not UTF-16 units: three emoji are three characters.
    assert.deepEqual(parse(s, { code: '😀😀😀' }), { code: '😀😀😀' });
    assert.equal(parse(s, { code: 'a', slug: 'A1', n: '0', x: '2', tags: [] }), 'error: code is invalid, slug is invalid, n does not have a valid value, x does not have a valid value, tags is invalid');
    assert.equal(parse(s, { code: 'abcd', tags: ['a', 'b', 'c'] }), 'error: code is invalid, tags is invalid');
  });

  test('a schema keyword the validator does not implement is refused when the route is registered', () => {
    const compile = (schema: Parameters<typeof validatorCompiler>[0]['schema']) => () => validatorCompiler({ schema, method: 'GET', url: '/things', httpPart: 'querystring' });
    for (const [schema, reason] of [
      [Params({ n: Type.Integer({ exclusiveMinimum: 0 }) }), '"exclusiveMinimum" for type integer'],
      [Params({ n: Type.Integer({ minLength: 1 }) }), '"minLength" for type integer'],
      [Params({ s: Type.String({ format: 'uri' }) }), 'format "uri"'],
      [Params({ a: Type.Array(Type.String(), { uniqueItems: true }) }), '"uniqueItems" for type array'],
      [Params({ a: Type.Optional(Type.Array(Type.Integer({ multipleOf: 2 }))) }), '"multipleOf" for type integer'],
      [Params({ u: Type.Union([Type.String({ maxProperties: 1 }), Type.Null()]) }), '"maxProperties" for type string'],
      [Params({ s: Type.String() }, { 'x-mutualy-exclusive': [['s']] } as never), '"x-mutualy-exclusive" for type object'],
      [Params({ h: Type.Record(Type.String({ pattern: '^x' }), Type.String()) }), 'patternProperties other than any key'],
      [Params({ o: Type.Object({ a: Type.String() }, { additionalProperties: Type.String() }) }), '"additionalProperties" beside declared properties'],
    ] as const) {
      assert.throws(compile(schema), (e: unknown) => e instanceof Error && e.message.startsWith('GET /things querystring') && e.message.endsWith(`does not implement ${reason}`), reason);
    }
    assert.doesNotThrow(compile(Params({ s: Type.Optional(Type.String({ minLength: 1, description: 'any' })), h: Type.Optional(Type.Record(Type.String(), Type.Integer())) })));
  });

  test('an application with such a route does not start', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.get('/things', { schema: { querystring: Params({ n: Type.Optional(Type.Integer({ multipleOf: 2 })) }) } }, async () => 'ok');
    await assert.rejects(async () => app.ready(), /GET \/things querystring\.n: the parameter validator does not implement "multipleOf" for type integer/);
  });

  test('null: missing when required, dropped when optional, [] for arrays', () => {
    const s = Params({ a: Type.String(), b: Type.Optional(Type.String()), c: Type.Optional(Type.Array(Type.String())) });
    assert.equal(parse(s, { a: null, b: null }), 'error: a is missing');
    assert.deepEqual(parse(s, { a: 'x', b: null, c: null }), { a: 'x', c: [] });
  });

  test('arrays: name[]=, JSON arrays, a single value, comma lists where declared', () => {
    const plain = Params({ ids: Type.Optional(Type.Array(Type.Integer())) });
    assert.deepEqual(parse(plain, parseQueryString('ids[]=1&ids[]=2')), { ids: [1, 2] });
    assert.deepEqual(parse(plain, { ids: [3, '4'] }), { ids: [3, 4] });
    assert.deepEqual(parse(plain, { ids: '5' }), { ids: [5] });
    assert.deepEqual(parse(plain, parseQueryString('ids[0]=6&ids[1]=7')), { ids: [6, 7] });
    assert.equal(parse(plain, { ids: ['1', 'x'] }), 'error: ids is invalid');
    const comma = Params({ labels: Type.Optional(CommaList(Type.String())) });
    assert.deepEqual(parse(comma, { labels: 'a, b,,c ' }), { labels: ['a', 'b', 'c'] });
    assert.deepEqual(parse(comma, { labels: ['a,b'] }), { labels: ['a,b'] });
    assert.deepEqual(parse(plain, { ids: '1,2' }), 'error: ids is invalid');
  });

  test('arrays of closed values', () => {
    const s = Params({ scopes: CommaList(OneOf(['api', 'read_api'])) });
    assert.deepEqual(parse(s, { scopes: 'api,read_api' }), { scopes: ['api', 'read_api'] });
    assert.equal(parse(s, { scopes: ['api', 'nope'] }), 'error: scopes does not have a valid value');
  });

  test('hashes: a[b]=v, nested objects named with brackets', () => {
    const attrs = Params({ custom_attributes: Type.Optional(Type.Record(Type.String(), Type.String())) });
    assert.deepEqual(parse(attrs, parseQueryString('custom_attributes[team]=core&custom_attributes[site]=x')), {
      custom_attributes: { team: 'core', site: 'x' },
    });
    assert.equal(parse(attrs, { custom_attributes: 'team' }), 'error: custom_attributes is invalid');
    const nested = Params({ platform: Type.Optional(Params({ api_url: Type.String(), port: Type.Optional(Type.Integer()) })) });
    assert.equal(parse(nested, { platform: { port: 'x' } }), 'error: platform[api_url] is missing, platform[port] is invalid');
    assert.deepEqual(parse(nested, parseQueryString('platform[api_url]=https://k&platform[port]=443')), { platform: { api_url: 'https://k', port: 443 } });
  });

  test('arrays of hashes: a[][k]= adds to the last hash until it repeats a key, as Rack reads them', () => {
    assert.deepEqual(parseQueryString('a[][k]=1&a[][j]=2&a[][k]=3&a[][j]=4'), { a: [{ k: '1', j: '2' }, { k: '3', j: '4' }] });
    assert.deepEqual(parseQueryString('a%5B%5D%5Bk%5D=1&a%5B%5D%5Bk%5D=2'), { a: [{ k: '1' }, { k: '2' }] });
    // Nested keys count by their full path; a nested array never counts as had.
    assert.deepEqual(parseQueryString('a[][b][c]=1&a[][b][d]=2&a[][b][c]=3'), { a: [{ b: { c: '1', d: '2' } }, { b: { c: '3' } }] });
    assert.deepEqual(parseQueryString('a[][x][]=1&a[][x][]=2&a[][y]=3&a[][y]=4'), { a: [{ x: ['1', '2'], y: '3' }, { y: '4' }] });
    // Two arrays keep their own hashes; other pairs are untouched.
    assert.deepEqual(parseQueryString('p[][k]=1&q[][k]=2&p[][k]=3&s=x&l[]=1&l[]=2'), { p: [{ k: '1' }, { k: '3' }], q: [{ k: '2' }], s: 'x', l: ['1', '2'] });
  });

  test('undeclared parameters are dropped', () => {
    assert.deepEqual(parse(Params({ a: Type.Optional(Type.String()) }), { a: 'x', b: 'y', __proto__: { c: 1 } }), { a: 'x' });
  });

  test('group rules, after the parameters', () => {
    const s = Params(
      { a: Type.Optional(Type.String()), b: Type.Optional(Type.String()), c: Type.Optional(Type.String()), n: Type.Optional(Type.Integer()) },
      { 'x-mutually-exclusive': [['a', 'b']], 'x-at-least-one-of': [['b', 'c']], 'x-all-or-none-of': [['a', 'c']] },
    );
    assert.equal(parse(s, { a: '1', b: '2', n: 'x' }), 'error: n is invalid, a, b are mutually exclusive, a, c provide all or none of parameters');
    assert.equal(parse(s, {}), 'error: b, c are missing, at least one parameter must be provided');
    const one = Params({ x: Type.Optional(Type.String()), y: Type.Optional(Type.String()) }, { 'x-exactly-one-of': [['x', 'y']] });
    assert.equal(parse(one, {}), 'error: x, y are missing, exactly one parameter must be provided');
    assert.equal(parse(one, { x: '1', y: '2' }), 'error: x, y are mutually exclusive');
    assert.deepEqual(parse(one, { y: '2' }), { y: '2' });
  });

  test('dates, date-times and emails', () => {
    const s = Params({
      d: Type.Optional(Type.String({ format: 'date' })),
      t: Type.Optional(Type.String({ format: 'date-time' })),
      e: Type.Optional(Type.String({ format: 'email' })),
    });
    assert.deepEqual(parse(s, { d: '2024-02-29', t: '2024-01-01T10:00:00+01:00', e: 'a@b.c' }), { d: '2024-02-29', t: '2024-01-01T10:00:00+01:00', e: 'a@b.c' });
    assert.equal(parse(s, { d: '2024-13-01', t: 'yesterday', e: 'nope' }), 'error: d is invalid, t is invalid, e contains an invalid email address');
  });

  test('a non-object input is an empty one', () => {
    assert.equal(parse(Params({ a: Type.String() }), [1, 2]), 'error: a is missing');
    assert.equal(parse(Params({ a: Type.String() }), null), 'error: a is missing');
  });

  test(':id is a number or a full path', () => {
    assert.deepEqual(parseIdOrPath('42'), { id: 42 });
    assert.deepEqual(parseIdOrPath('-1'), { id: -1 });
    assert.deepEqual(parseIdOrPath('group/project'), { path: 'group/project' });
    assert.equal(parseIdOrPath(''), null);
  });
});

describe('parseQueryString', () => {
  test('brackets build arrays and hashes; a repeated plain key keeps the last value', () => {
    assert.deepEqual(parseQueryString('a[]=1&a[]=2&h[k]=v&s=1&s=2'), { a: ['1', '2'], h: { k: 'v' }, s: '2' });
  });

  test('+ is a space, %2B a plus', () => {
    assert.deepEqual(parseQueryString('t=2024-01-01T00:00:00%2B01:00&q=a+b'), { t: '2024-01-01T00:00:00+01:00', q: 'a b' });
  });

  test('no prototype keys', () => {
    const parsed = parseQueryString('__proto__[admin]=1&constructor[prototype][x]=1');
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  });
});

describe('toQuery', () => {
  test('keys sorted; arrays keep their order as k[]=v; hashes as k[a]=v, sorted', () => {
    assert.equal(toQuery({ b: '2', a: '1', list: ['z', 'y'], h: { y: '1', x: '2' } }), 'a=1&b=2&h%5Bx%5D=2&h%5By%5D=1&list%5B%5D=z&list%5B%5D=y');
  });

  test('CGI escaping: space as +, reserved characters as %XX', () => {
    assert.equal(toQuery({ q: "a b&c=d/é!'()*~._-" }), 'q=a+b%26c%3Dd%2F%C3%A9%21%27%28%29%2A~._-');
  });

  test('null is an empty value; undefined, empty arrays and empty hashes are left out', () => {
    assert.equal(toQuery({ a: null, b: undefined, c: [], d: {}, e: false, f: 0 }), 'a=&e=false&f=0');
  });

  test('arrays of hashes', () => {
    assert.equal(toQuery({ v: [{ key: 'K', value: 'V' }] }), 'v%5B%5D%5Bkey%5D=K&v%5B%5D%5Bvalue%5D=V');
  });

  test('round-trips through the parser', () => {
    const params = { search: 'a+b c', ids: ['3', '1'], attrs: { team: 'core' }, page: '2' };
    assert.deepEqual(parseQueryString(toQuery(params)), params);
  });
});

describe('over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const tokens = '/api/v4/users/1/personal_access_tokens';
  const boundary = '----quarry-test';
  const multipart = (fields: [string, string][]) =>
    fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`;
  const multipartHeaders = { 'content-type': `multipart/form-data; boundary=${boundary}` };

  function created(res: { statusCode: number; body: string; json(): any }, name: string, scopes: string[]) {
    assert.equal(res.statusCode, 201, res.body);
    expectEntity(res.json(), PersonalAccessTokenWithSecretEntity);
    assert.equal(res.json().name, name);
    assert.deepEqual(res.json().scopes, scopes);
  }

  test('boolean query parameters: valid spellings filter, odd ones are 400', async () => {
    const { user } = await t.user();
    await t.post(`/api/v4/users/${user.id}/block`, { token: ROOT_TOKEN });
    for (const word of ['true', 'yes', 'Y', '1', 'ON']) {
      const res = await t.get(`/api/v4/users?blocked=${word}`, { token: ROOT_TOKEN });
      assert.equal(res.statusCode, 200, word);
      expectEntities(res.json(), UserAdminEntity);
      assert.deepEqual(res.json().map((u: { id: number }) => u.id), [user.id], word);
    }
    expectError(await t.get('/api/v4/users?blocked=tRue', { token: ROOT_TOKEN }), 400, { error: 'blocked is invalid' });
    expectError(await t.get('/api/v4/users?blocked=true&active=maybe&per_page=x', { token: ROOT_TOKEN }), 400, { error: 'per_page is invalid, active is invalid' });
  });

  test('a[b]=v hashes reach the route', async () => {
    const { user } = await t.user();
    await t.put(`/api/v4/users/${user.id}/custom_attributes/team`, { token: ROOT_TOKEN, body: { value: 'core' } });
    const res = await t.get('/api/v4/users?custom_attributes[team]=core', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().map((u: { id: number }) => u.id), [user.id]);
  });

  test('a repeated plain key keeps the last value', async () => {
    const res = await t.get('/api/v4/users?username=nobody&username=root', { token: ROOT_TOKEN });
    assert.deepEqual(res.json().map((u: { id: number }) => u.id), [1]);
  });

  test('JSON body, with or without a charset, and JSON arrays', async () => {
    created(await t.post(tokens, { token: ROOT_TOKEN, body: { name: 'json', scopes: ['api', 'read_user'] } }), 'json', ['api', 'read_user']);
    created(
      await t.post(tokens, { token: ROOT_TOKEN, body: { name: 'charset', scopes: ['api'] }, headers: { 'content-type': 'application/json; charset=utf-8' } }),
      'charset',
      ['api'],
    );
  });

  test('a body without Content-Type is read as JSON', async () => {
    const res = await t.app.inject({ method: 'POST', url: tokens, headers: { 'private-token': ROOT_TOKEN }, payload: Buffer.from(JSON.stringify({ name: 'bare', scopes: ['api'] })) });
    created(res, 'bare', ['api']);
  });

  test('form-urlencoded: name[]= arrays and comma lists', async () => {
    created(await t.post(tokens, { token: ROOT_TOKEN, form: 'name=form&scopes[]=api&scopes[]=read_api' }), 'form', ['api', 'read_api']);
    created(await t.post(tokens, { token: ROOT_TOKEN, form: 'name=comma&scopes=api,read_user' }), 'comma', ['api', 'read_user']);
  });

  test('multipart: fields, name[] arrays and a[b] hashes', async () => {
    const res = await t.post(tokens, {
      token: ROOT_TOKEN,
      body: multipart([['name', 'multi'], ['scopes[]', 'api'], ['scopes[]', 'read_api']]),
      headers: multipartHeaders,
    });
    created(res, 'multi', ['api', 'read_api']);
  });

  test('a broken multipart body is 400 and writes nothing', async () => {
    const before = await t.count('personal_access_tokens');
    const noBoundary = await t.post(tokens, { token: ROOT_TOKEN, body: 'name=x', headers: { 'content-type': 'multipart/form-data' } });
    expectError(noBoundary, 400, { message: '400 Bad request' });
    // Cut mid-part: whatever was read is validated, and the missing rest fails.
    const cut = await t.post(tokens, { token: ROOT_TOKEN, body: multipart([['name', 'x'], ['scopes[]', 'api']]).slice(0, 60), headers: multipartHeaders });
    assert.equal(cut.statusCode, 400, cut.body);
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('query parameters count for writes; the body wins over the query', async () => {
    created(await t.post(`${tokens}?name=query&scopes[]=api`, { token: ROOT_TOKEN }), 'query', ['api']);
    created(await t.post(`${tokens}?name=query&scopes=read_api`, { token: ROOT_TOKEN, body: { name: 'body' } }), 'body', ['read_api']);
    created(await t.post(`${tokens}?name=query&scopes=api`, { token: ROOT_TOKEN, form: 'name=form' }), 'form', ['api']);
  });

  test('a JSON body that is not an object adds nothing', async () => {
    created(await t.post(`${tokens}?name=q&scopes=api`, { token: ROOT_TOKEN, body: [{ name: 'array' }] }), 'q', ['api']);
    created(await t.post(`${tokens}?name=q2&scopes=api`, { token: ROOT_TOKEN, body: '"text"' }), 'q2', ['api']);
  });

  test('a GET body is ignored', async () => {
    const res = await t.request('GET', '/api/v4/users?username=root', { token: ROOT_TOKEN, body: { username: 'nobody' } });
    assert.deepEqual(res.json().map((u: { id: number }) => u.id), [1]);
  });

  test('path parameters win over the body', async () => {
    const { user } = await t.user();
    const res = await t.put(`/api/v4/users/${user.id}`, { token: ROOT_TOKEN, body: { id: 1, bio: 'path wins' } });
    assert.equal(res.statusCode, 200);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().id, user.id);
    assert.equal(res.json().bio, 'path wins');
  });

  test('missing parameters of a write', async () => {
    expectError(await t.post(tokens, { token: ROOT_TOKEN, body: {} }), 400, { error: 'name is missing, scopes is missing' });
  });
});
