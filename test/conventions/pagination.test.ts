// Offset and keyset pagination: parameters, headers, Link, the count cap and the offset cap.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectError } from '../matchers.ts';
import { statementsDuring } from '../sql-spy.ts';
import { COUNT_LIMIT, type Countable, countStatement } from '../../src/core/pagination.ts';
import type { DB, NewUser } from '../../src/db/schema.ts';
import { UserAdminEntity, UserBasicEntity } from '../../src/modules/users/users.schemas.ts';
import { PersonalAccessTokenEntity } from '../../src/modules/access-tokens/access-tokens.schemas.ts';

const BASE = 'http://quarry.test/api/v4/users';
const SEEDED = 129; // with root: 130 users

/** Inserts users straight into the table, in batches: far faster than the API for big lists. */
async function seedUsers(db: Kysely<DB>, count: number, prefix: string): Promise<void> {
  const at = new Date().toISOString();
  for (let start = 0; start < count; start += 1000) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      const n = String(i).padStart(5, '0');
      rows.push({ username: `${prefix}${n}`, name: `${prefix} ${n}`, email: `${prefix}${n}@example.com`, confirmed_at: at, created_at: at, updated_at: at });
    }
    await db.insertInto('users').values(rows as unknown as NewUser[]).execute();
  }
}

function links(res: LightMyRequestResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of String(res.headers.link ?? '').split(', ')) {
    const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    if (m) out[m[2]] = m[1];
  }
  return out;
}

function rels(res: LightMyRequestResponse): string[] {
  return [...String(res.headers.link ?? '').matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
}

const ids = (res: LightMyRequestResponse) => (res.json() as { id: number }[]).map((u) => u.id);

let t: TestApp;
let allIds: number[];
before(async () => {
  t = await createTestApp();
  await seedUsers(t.deps.db, SEEDED, 'page');
  const rows = await t.deps.db.selectFrom('users').select('id').orderBy('id', 'desc').execute();
  allIds = rows.map((r) => r.id);
});
after(() => t.close());

describe('offset pagination', () => {
  test('20 per page by default, newest id first, with every header', async () => {
    const res = await t.get('/api/v4/users', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    expectEntities(res.json(), UserAdminEntity);
    assert.deepEqual(ids(res), allIds.slice(0, 20));
    assert.equal(res.headers['x-page'], '1');
    assert.equal(res.headers['x-per-page'], '20');
    assert.equal(res.headers['x-next-page'], '2');
    assert.equal(res.headers['x-prev-page'], '');
    assert.equal(res.headers['x-total'], '130');
    assert.equal(res.headers['x-total-pages'], '7');
    assert.equal(
      res.headers.link,
      `<${BASE}?page=2&per_page=20&with_custom_attributes=false>; rel="next", ` +
        `<${BASE}?page=1&per_page=20&with_custom_attributes=false>; rel="first", ` +
        `<${BASE}?page=7&per_page=20&with_custom_attributes=false>; rel="last"`,
    );
  });

  test('a middle page has prev, next, first and last, in that order', async () => {
    const res = await t.get('/api/v4/users?page=3&per_page=10', { token: ROOT_TOKEN });
    assert.deepEqual(ids(res), allIds.slice(20, 30));
    assert.deepEqual(rels(res), ['prev', 'next', 'first', 'last']);
    assert.equal(res.headers['x-page'], '3');
    assert.equal(res.headers['x-prev-page'], '2');
    assert.equal(res.headers['x-next-page'], '4');
    assert.equal(res.headers['x-total-pages'], '13');
    assert.equal(links(res).prev, `${BASE}?page=2&per_page=10&with_custom_attributes=false`);
    assert.equal(links(res).last, `${BASE}?page=13&per_page=10&with_custom_attributes=false`);
  });

  test('the last page has no next; X-Next-Page is an empty string', async () => {
    const res = await t.get('/api/v4/users?page=7', { token: ROOT_TOKEN });
    assert.deepEqual(ids(res), allIds.slice(120));
    assert.deepEqual(rels(res), ['prev', 'first', 'last']);
    assert.equal(res.headers['x-next-page'], '');
    assert.equal(res.headers['x-prev-page'], '6');
  });

  test('following next links walks the whole list exactly once', async () => {
    const seen: number[] = [];
    let url: string | undefined = '/api/v4/users?per_page=33';
    let pages = 0;
    while (url) {
      const res = await t.get(url, { token: ROOT_TOKEN });
      seen.push(...ids(res));
      url = links(res).next?.replace('http://quarry.test', '');
      pages++;
    }
    assert.equal(pages, 4);
    assert.deepEqual(seen, allIds);
  });

  test('per_page above 100 is clamped to 100, in headers and links', async () => {
    const res = await t.get('/api/v4/users?per_page=1000', { token: ROOT_TOKEN });
    assert.equal(res.json().length, 100);
    assert.equal(res.headers['x-per-page'], '100');
    assert.equal(res.headers['x-total-pages'], '2');
    assert.equal(links(res).next, `${BASE}?page=2&per_page=100&with_custom_attributes=false`);
  });

  test('negative per_page falls back to 20', async () => {
    const res = await t.get('/api/v4/users?per_page=-5', { token: ROOT_TOKEN });
    assert.equal(res.json().length, 20);
    assert.equal(res.headers['x-per-page'], '20');
  });

  test('page 0 or below means page 1', async () => {
    for (const page of ['0', '-3']) {
      const res = await t.get(`/api/v4/users?page=${page}&per_page=5`, { token: ROOT_TOKEN });
      assert.equal(res.headers['x-page'], '1');
      assert.equal(res.headers['x-prev-page'], '');
      assert.deepEqual(ids(res), allIds.slice(0, 5));
    }
  });

  test('integers tolerate surrounding spaces and underscores', async () => {
    const res = await t.get('/api/v4/users?per_page=%201_0%20', { token: ROOT_TOKEN });
    assert.equal(res.headers['x-per-page'], '10');
  });

  test('per_page=0 is not allowed', async () => {
    expectError(await t.get('/api/v4/users?per_page=0', { token: ROOT_TOKEN }), 400, { error: 'per_page has a value not allowed' });
  });

  test('non-integer page or per_page is invalid, listed in declaration order', async () => {
    expectError(await t.get('/api/v4/users?per_page=abc', { token: ROOT_TOKEN }), 400, { error: 'per_page is invalid' });
    expectError(await t.get('/api/v4/users?per_page=1.5', { token: ROOT_TOKEN }), 400, { error: 'per_page is invalid' });
    expectError(await t.get('/api/v4/users?page=x', { token: ROOT_TOKEN }), 400, { error: 'page is invalid' });
    expectError(await t.get('/api/v4/users?per_page=0x10&page=x', { token: ROOT_TOKEN }), 400, { error: 'page is invalid, per_page is invalid' });
    expectError(await t.get('/api/v4/personal_access_tokens?page[]=1', { token: ROOT_TOKEN }), 400, { error: 'page is invalid' });
  });

  test('an empty page or per_page counts as not given', async () => {
    const res = await t.get('/api/v4/users?page=&per_page=', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-page'], '1');
    assert.equal(res.headers['x-per-page'], '20');
  });

  test('a page beyond the last is [] with only first and last', async () => {
    const res = await t.get('/api/v4/users?page=50&per_page=10', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
    assert.deepEqual(rels(res), ['first', 'last']);
    assert.equal(res.headers['x-page'], '50');
    assert.equal(res.headers['x-next-page'], '');
    assert.equal(res.headers['x-prev-page'], '');
    assert.equal(res.headers['x-total'], '130');
    assert.equal(res.headers['x-total-pages'], '13');
  });

  test('an empty list: X-Total 0, X-Total-Pages 1', async () => {
    const res = await t.get('/api/v4/users?search=nobody-has-this-name', { token: ROOT_TOKEN });
    assert.deepEqual(res.json(), []);
    assert.equal(res.headers['x-total'], '0');
    assert.equal(res.headers['x-total-pages'], '1');
    assert.deepEqual(rels(res), ['first', 'last']);
  });

  test('links keep every parameter, sorted, credentials and sudo included', async () => {
    const res = await t.get(`/api/v4/users?sudo=root&private_token=${ROOT_TOKEN}&search=page&active=true&per_page=50&zeta[]=b&zeta[]=a&alpha=x%20y`);
    assert.equal(res.statusCode, 200);
    assert.equal(
      links(res).next,
      `${BASE}?active=true&alpha=x+y&page=2&per_page=50&private_token=${ROOT_TOKEN}&search=page&sudo=root&with_custom_attributes=false&zeta%5B%5D=b&zeta%5B%5D=a`,
    );
  });

  test('credentials sent as headers stay out of the links', async () => {
    const res = await t.get('/api/v4/users?per_page=100', { token: ROOT_TOKEN, headers: { sudo: 'root' } });
    assert.equal(links(res).next, `${BASE}?page=2&per_page=100&with_custom_attributes=false`);
  });

  test('links use the configured external URL, whatever Host the request had', async () => {
    const res = await t.get('/api/v4/users?per_page=100', { token: ROOT_TOKEN, headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    assert.ok(links(res).next.startsWith('http://quarry.test/api/v4/users?'));
  });

  test('a list of another module paginates the same way', async () => {
    const res = await t.get('/api/v4/personal_access_tokens?per_page=1', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    expectEntities(res.json(), PersonalAccessTokenEntity);
    assert.equal(res.headers['x-total'], '1');
    assert.equal(
      res.headers.link,
      '<http://quarry.test/api/v4/personal_access_tokens?page=1&per_page=1>; rel="first", <http://quarry.test/api/v4/personal_access_tokens?page=1&per_page=1>; rel="last"',
    );
  });

  test('path parameters are echoed into links', async () => {
    const res = await t.get('/api/v4/users/1/impersonation_tokens', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.equal(links(res).first, 'http://quarry.test/api/v4/users/1/impersonation_tokens?page=1&per_page=20&state=all&user_id=1');
  });

  test('pages are cut in SQL, not in memory', async () => {
    const seen = await statementsDuring(t, async () => {
      const res = await t.get('/api/v4/users?page=2&per_page=7', { token: ROOT_TOKEN });
      assert.equal(res.json().length, 7);
    });
    const page = seen.find((s) => /from "users"/.test(s) && /limit/i.test(s) && /offset/i.test(s) && !/count\(/i.test(s));
    assert.ok(page, `no paged query among:\n${seen.join('\n')}`);
    const count = seen.find((s) => /count\(/i.test(s));
    assert.ok(count, 'the total is counted in SQL');
    // PostgreSQL caps the count at 10,001 rows; SQLite counts directly (see countRows).
    if (t.deps.database.dialect === 'postgres') assert.match(count, /limit/i, 'the count is capped in SQL');
  });

  test('the offset cap for users: page * per_page above 50,000 is refused', async () => {
    expectError(await t.get('/api/v4/users?page=501&per_page=100', { token: ROOT_TOKEN }), 405, {
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type User. Remaining records can be retrieved using keyset pagination.',
    });
    expectError(await t.get('/api/v4/users?page=2501', { token: ROOT_TOKEN }), 405, {
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type User. Remaining records can be retrieved using keyset pagination.',
    });
    const ok = await t.get('/api/v4/users?page=500&per_page=100', { token: ROOT_TOKEN });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), []);
  });

  test('lists without the cap accept any offset', async () => {
    const res = await t.get('/api/v4/personal_access_tokens?page=100000&per_page=100', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });
});

describe('keyset pagination', () => {
  async function walk(query: string, token = ROOT_TOKEN): Promise<{ ids: number[]; pages: LightMyRequestResponse[] }> {
    const out: number[] = [];
    const pages: LightMyRequestResponse[] = [];
    let url: string | undefined = `/api/v4/users?${query}`;
    while (url) {
      const res = await t.get(url, { token });
      assert.equal(res.statusCode, 200, res.body);
      pages.push(res);
      out.push(...ids(res));
      url = links(res).next?.replace('http://quarry.test', '');
      assert.ok(pages.length < 100);
    }
    return { ids: out, pages };
  }

  test('GET /users by id: a cursor in rel="next" only, no X-* headers', async () => {
    const { ids: seen, pages } = await walk('pagination=keyset&per_page=40');
    assert.deepEqual(seen, allIds);
    assert.equal(pages.length, 4);
    for (const res of pages) {
      expectEntities(res.json(), UserAdminEntity);
      for (const h of ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages']) assert.equal(res.headers[h], undefined, h);
    }
    for (const res of pages.slice(0, -1)) {
      assert.deepEqual(rels(res), ['next']);
      assert.match(links(res).next, /^http:\/\/quarry\.test\/api\/v4\/users\?cursor=[\w-]+&pagination=keyset&per_page=40&with_custom_attributes=false$/);
    }
    assert.equal(pages[pages.length - 1].headers.link, undefined, 'the last page has no Link');
  });

  test('ordered by name or username, both directions', async () => {
    const rows = await t.deps.db.selectFrom('users').select(['id', 'name', 'username']).execute();
    const byName = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id)).map((r) => r.id);
    const asc = await walk('pagination=keyset&per_page=17&order_by=name&sort=asc');
    assert.deepEqual(asc.ids, byName);
    const desc = await walk('pagination=keyset&per_page=50&order_by=username&sort=desc');
    const byUsername = [...rows].sort((a, b) => (a.username < b.username ? 1 : a.username > b.username ? -1 : b.id - a.id)).map((r) => r.id);
    assert.deepEqual(desc.ids, byUsername);
  });

  test('per_page: default 20, max 100, 0 refused', async () => {
    const first = await t.get('/api/v4/users?pagination=keyset', { token: ROOT_TOKEN });
    assert.equal(first.json().length, 20);
    const big = await t.get('/api/v4/users?pagination=keyset&per_page=500', { token: ROOT_TOKEN });
    assert.equal(big.json().length, 100);
    assert.match(links(big).next, /per_page=100/);
    expectError(await t.get('/api/v4/users?pagination=keyset&per_page=0', { token: ROOT_TOKEN }), 400, { error: 'per_page has a value not allowed' });
  });

  test('works for non-administrators too', async () => {
    const { token } = await t.user();
    const { ids: seen, pages } = await walk('pagination=keyset&per_page=100', token);
    assert.equal(seen.length, allIds.length + 1);
    expectEntities(pages[0].json(), UserBasicEntity);
  });

  test('an order without keyset support is refused', async () => {
    expectError(await t.get('/api/v4/users?pagination=keyset&order_by=created_at', { token: ROOT_TOKEN }), 405, {
      error: 'Keyset pagination is not yet available for this type of request',
    });
  });

  test('lists without keyset refuse it with 405', async () => {
    expectError(await t.get('/api/v4/personal_access_tokens?pagination=keyset', { token: ROOT_TOKEN }), 405, {
      error: 'Keyset pagination is not yet available for this type of request',
    });
  });

  test('a broken cursor is a parameter error, never a server error', async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '!!!',
      'not-base64-json',
      forged({ value: { a: 1 }, id: 1 }),
      forged({ value: 'abc', id: 'x' }),
      forged({ value: [1], id: [2] }),
      forged({ value: null, id: null }),
      forged({ value: 1.5, id: 1e300 }),
      forged([1, 2]),
    ]) {
      expectError(await t.get(`/api/v4/users?pagination=keyset&cursor=${cursor}`, { token: ROOT_TOKEN }), 400, { error: 'cursor is invalid' });
    }
    expectError(await t.get(`/api/v4/users?pagination=keyset&order_by=name&cursor=${forged({ value: 5, id: 1 })}`, { token: ROOT_TOKEN }), 400, {
      error: 'cursor is invalid',
    });
  });

  test('pagination=other values mean offset pagination', async () => {
    const res = await t.get('/api/v4/users?pagination=offset&per_page=5', { token: ROOT_TOKEN });
    assert.equal(res.headers['x-per-page'], '5');
  });
});

describe('more than 10,000 rows', () => {
  let big: TestApp;
  before(async () => {
    big = await createTestApp();
    await seedUsers(big.deps.db, 10_000, 'many'); // with root: 10,001
  });
  after(() => big.close());

  test('no X-Total, no X-Total-Pages, no rel="last"', async () => {
    const res = await big.get('/api/v4/users?per_page=100&page=2', { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().length, 100);
    assert.equal(res.headers['x-total'], undefined);
    assert.equal(res.headers['x-total-pages'], undefined);
    assert.deepEqual(rels(res), ['prev', 'next', 'first']);
    assert.equal(res.headers['x-next-page'], '3');
    assert.equal(res.headers['x-prev-page'], '1');
  });

  test('the last page has no next', async () => {
    const res = await big.get('/api/v4/users?per_page=100&page=101', { token: ROOT_TOKEN });
    assert.equal(res.json().length, 1);
    assert.deepEqual(rels(res), ['prev', 'first']);
    assert.equal(res.headers['x-next-page'], '');
  });

  test('a full last page has no next either', async () => {
    // 10,001 = 73 × 137
    const res = await big.get('/api/v4/users?per_page=73&page=137', { token: ROOT_TOKEN });
    assert.equal(res.json().length, 73);
    assert.deepEqual(rels(res), ['prev', 'first']);
    assert.equal(res.headers['x-next-page'], '');
  });

  test('a collection counted in parts: the sum of their counts, still above 10,000 when the total is', async () => {
    const { db, database } = big.deps;
    const count = async (parts: Countable[]) => Number((await db.executeQuery(countStatement(db, database.dialect, parts).compile())).rows[0].count);
    const many = db.selectFrom('users').where('username', 'like', 'many%');
    assert.equal(await count([many.where('id', '<=', 50), many.where('id', '>', 50)]), 10_000);
    assert.equal(await count([many.where('id', '<=', 50), db.selectFrom('users').where('username', '=', 'root')]), (await count([many.where('id', '<=', 50)])) + 1);
    // 10,001 rows in all: above the limit however they are split (PostgreSQL stops each part at 10,001).
    const total = await count([db.selectFrom('users').where('id', '<=', 5000), db.selectFrom('users').where('id', '>', 5000)]);
    assert.ok(total > COUNT_LIMIT);
    const sql = countStatement(db, database.dialect, [many, many]).compile().sql;
    if (database.dialect === 'postgres') assert.equal(sql.match(/limit/gi)?.length, 2, sql);
    else assert.doesNotMatch(sql, /limit/i);
  });

  test('exactly 10,000 matches are still counted', async () => {
    const res = await big.get('/api/v4/users?search=many&per_page=100', { token: ROOT_TOKEN });
    assert.equal(res.headers['x-total'], '10000');
    assert.equal(res.headers['x-total-pages'], '100');
    assert.deepEqual(rels(res), ['next', 'first', 'last']);
  });
});
