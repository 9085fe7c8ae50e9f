// The SQLite adapter's rows: plain objects with the statement's columns as own properties, in
// order, whatever the column names, the same from all() and iterate().
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { sqliteAdapter } from './sqlite-adapter.ts';

const adapter = () => {
  const raw = new DatabaseSync(':memory:');
  raw.exec(`create table t (id integer primary key, name text, "__proto__" text, "constructor" integer)`);
  raw.exec(`insert into t values (1, 'a', 'x', 7), (2, 'b', null, null)`);
  return sqliteAdapter(raw);
};

test('rows are plain objects holding every column as an own property, in order', () => {
  const rows = adapter().prepare('select * from t order by id').all([]) as Record<string, unknown>[];
  assert.equal(rows.length, 2);
  assert.deepEqual(Object.keys(rows[0]), ['id', 'name', '__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
  assert.ok(Object.hasOwn(rows[0], '__proto__'));
  assert.equal(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value, 'x');
  assert.equal(rows[0].constructor, 7);
  assert.equal(rows[1].name, 'b');
  assert.equal(Object.getOwnPropertyDescriptor(rows[1], '__proto__')?.value, null);
  assert.equal(JSON.stringify(rows[1]), '{"id":2,"name":"b","__proto__":null,"constructor":null}');
});

test('bound parameters, a repeated column name (the last one wins) and iterate()', () => {
  const stmt = adapter().prepare('select id, name as id from t where id = ?');
  assert.deepEqual(stmt.all([2]), [{ id: 'b' }]);
  assert.deepEqual([...stmt.iterate([1])], [{ id: 'a' }]);
});

test('statements without result columns run and report their changes', () => {
  const db = adapter();
  const stmt = db.prepare('update t set name = ? where id = ?');
  assert.equal(stmt.reader, false);
  assert.equal(Number(stmt.run(['c', 1]).changes), 1);
  assert.deepEqual(db.prepare('select name from t where id = 1').all([]), [{ name: 'c' }]);
});

test('columns declared boolean come out as true/false (null stays null), through aliases, subqueries and RETURNING', () => {
  const raw = new DatabaseSync(':memory:');
  raw.exec(`create table f (id integer primary key, flag boolean not null default false, maybe BOOLEAN, n integer)`);
  const db = sqliteAdapter(raw);
  db.prepare('insert into f (id, flag, maybe, n) values (?, ?, ?, ?)').run([1, true, null, 1]);
  assert.deepEqual(db.prepare('insert into f (id, flag, maybe, n) values (2, 0, 1, 0) returning *').all([]), [{ id: 2, flag: false, maybe: true, n: 0 }]);
  assert.deepEqual(db.prepare('select * from f order by id').all([]), [
    { id: 1, flag: true, maybe: null, n: 1 },
    { id: 2, flag: false, maybe: true, n: 0 },
  ]);
  assert.deepEqual(db.prepare('select s.flag as on_ from (select flag from f where id = 1) s').all([]), [{ on_: true }]);
  assert.deepEqual([...db.prepare('update f set flag = 1 where id = 2 returning flag').iterate([])], [{ flag: true }]);
  // Expressions have no declared type: what SQLite computes is returned as is.
  assert.deepEqual(db.prepare('select max(flag) as m, flag = 1 as e from f where id = 1').all([]), [{ m: 1, e: 1 }]);
});
