// Prepared queries: built once per shape (the lengths of their list arguments, their booleans and
// absent arguments), run with each call's values, in a transaction too, on either database; a
// builder that uses an argument other than as a bound value is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type TestApp, createTestApp } from '../../test/harness.ts';
import { prepared } from './prepared.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

let builds = 0;
const usersNamed = prepared((db, ids: readonly number[], state: string) => {
  builds += 1;
  return db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).where('state', '=', state).where('username', '!=', 'nobody').orderBy('id');
});

test('each call runs with its own values; a shape is built once', async () => {
  const a = await t.user();
  const b = await t.user();
  const ids = [a.user.id, b.user.id];
  assert.deepEqual(await usersNamed(t.deps.db, ids, 'active'), ids.map((id, i) => ({ id, username: [a, b][i].user.username })));
  assert.deepEqual(await usersNamed(t.deps.db, [b.user.id, a.user.id], 'blocked'), []);
  assert.deepEqual(await usersNamed(t.deps.db, [b.user.id], 'active'), [{ id: b.user.id, username: b.user.username }]);
  assert.deepEqual(await usersNamed(t.deps.db, [a.user.id], 'active'), [{ id: a.user.id, username: a.user.username }]);
  assert.equal(builds, 2);
});

test('inside a transaction, the transaction sees its own writes', async () => {
  const a = await t.user();
  await t.deps.db.transaction().execute(async (tx) => {
    await tx.updateTable('users').set({ username: 'renamed-in-tx' }).where('id', '=', a.user.id).execute();
    assert.deepEqual(await usersNamed(tx, [a.user.id], 'active'), [{ id: a.user.id, username: 'renamed-in-tx' }]);
  });
});

test('an argument that is not a bound value is refused', async () => {
  const byColumn = prepared((db, column: string) => db.selectFrom('users').select('id').where(sql.ref(column), '=', 1));
  await assert.rejects(() => byColumn(t.deps.db, 'id'), /used other than as a bound value/);
  const unused = prepared((db, _id: number) => db.selectFrom('users').select('id').where('id', '=', 1));
  await assert.rejects(() => unused(t.deps.db, 7), /an argument is not a bound value/);
});

test('booleans and absent arguments choose the shape: the builder branches on them', async () => {
  const a = await t.user();
  const b = await t.user();
  let built = 0;
  const usersOf = prepared((db, ids: readonly number[], descending: boolean, state: string | undefined) => {
    built += 1;
    return db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', ids)
      .$if(state !== undefined, (q) => q.where('state', '=', state!))
      .orderBy('id', descending ? 'desc' : 'asc');
  });
  const ids = [a.user.id, b.user.id];
  assert.deepEqual(await usersOf(t.deps.db, ids, true, undefined), [{ id: b.user.id }, { id: a.user.id }]);
  assert.deepEqual(await usersOf(t.deps.db, ids, false, undefined), [{ id: a.user.id }, { id: b.user.id }]);
  assert.deepEqual(await usersOf(t.deps.db, ids, false, 'blocked'), []);
  assert.deepEqual(await usersOf(t.deps.db, ids, false, 'active'), [{ id: a.user.id }, { id: b.user.id }]);
  assert.deepEqual(await usersOf(t.deps.db, ids, true, undefined), [{ id: b.user.id }, { id: a.user.id }]);
  assert.equal(built, 3);
});
