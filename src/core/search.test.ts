// The text conditions of the searches on the database itself: LIKE while SQLite takes the pattern,
// and the same test without LIKE for text longer than its pattern limit (50,000 bytes), so that
// no search of any length fails; then the searches that use them, over HTTP, with such a term.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Expression, type SqlBool, sql } from 'kysely';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../test/harness.ts';
import { containsText, startsWithText } from './search.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function holds(condition: Expression<SqlBool>): Promise<boolean> {
  const { rows } = await sql<{ v: unknown }>`select case when ${condition} then 1 else 0 end as v`.execute(t.deps.db);
  return Number(rows[0].v) === 1;
}

test('containsText and startsWithText: the same answers for short and very long text, wildcards taken literally', async () => {
  for (const length of [10, 60_000]) {
    const word = `a%_\\${'x'.repeat(length)}`;
    const value = sql`cast(${`pre ${word} post`} as text)`;
    assert.equal(await holds(containsText(value, word)), true, `${length}: contains`);
    assert.equal(await holds(containsText(value, `${word}y`)), false, `${length}: does not contain`);
    assert.equal(await holds(containsText(value, word.replace('%', 'q'))), false, `${length}: % is no wildcard`);
    assert.equal(await holds(startsWithText(value, `pre ${word}`)), true, `${length}: starts with`);
    assert.equal(await holds(startsWithText(value, word)), false, `${length}: does not start with`);
  }
});

test('searches with a term longer than a LIKE pattern answer 200, not 500', async () => {
  const term = 'l'.repeat(60_000);
  const group = await t.post('/api/v4/groups', { token: ROOT_TOKEN, body: { name: 'Searched', path: 'searched' } });
  assert.equal(group.statusCode, 201);
  const project = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'searched-project' } });
  assert.equal(project.statusCode, 201);
  for (const url of [
    `/api/v4/personal_access_tokens?search=${term}`,
    `/api/v4/groups/searched/members?query=${term}`,
    `/api/v4/groups/searched/members/all?query=${term}`,
    `/api/v4/projects/${project.json().id}/members/all?query=${term}`,
    `/api/v4/groups?search=${term}&order_by=similarity`,
    `/api/v4/projects?search=${term}&order_by=similarity`,
    `/api/v4/users?search=${term}`,
  ]) {
    const res = await t.get(url, { token: ROOT_TOKEN });
    assert.equal(res.statusCode, 200, url.slice(0, 60));
    assert.deepEqual(res.json(), [], url.slice(0, 60));
  }
});
