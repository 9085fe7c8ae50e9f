// Migration 0026 on a database holding memberships: they survive (SQLite rebuilds the table), a row
// without a user may now be written, and what the table carried before still holds: its unique
// membership per user and source, the cascade from users, its ids going on, and the triggers that
// bump membership_generation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../database.ts';
import * as m0001 from './0001_users_and_tokens.ts';
import * as m0002 from './0002_namespaces_projects_members_events.ts';
import * as m0003 from './0003_list_counts_and_search.ts';
import * as m0026 from './0026_member_invitations.ts';

const url = process.env.DATABASE_URL || null;
let database: Database;
let db: Kysely<any>;
let schema: string | undefined;

async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url as string });
  await client.connect();
  await client.query(statement);
  await client.end();
}

const at = '2024-01-01T00:00:00.000Z';
let ann: number;
let bob: number;
let group: number;
let kept: number[];
let highest: number;

before(async () => {
  if (url) {
    schema = `m_${process.pid}_${randomBytes(4).toString('hex')}`;
    await pgAdmin(`create schema ${schema}`);
  }
  database = openDatabase({ url, pgSchema: schema, poolSize: 2 });
  db = database.db as unknown as Kysely<any>;
  for (const migration of [m0001, m0002, m0003]) await migration.up(db);
  const user = async (username: string) =>
    (await db.insertInto('users').values({ username, name: username, email: `${username}@example.com`, created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow()).id as number;
  ann = await user('ann');
  bob = await user('bob');
  group = (
    await db
      .insertInto('namespaces')
      .values({ type: 'Group', name: 'g', path: 'g', traversal_path: '/x/', full_path: 'g', full_name: 'g', visibility_level: 0, created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  const membership = { source_type: 'Namespace', source_id: group, access_level: 30, created_by_id: null, created_at: at, updated_at: at };
  const first = await db.insertInto('members').values({ ...membership, user_id: ann, expires_at: '2099-01-01' }).returning('id').executeTakeFirstOrThrow();
  const second = await db.insertInto('members').values({ ...membership, user_id: bob, expires_at: null }).returning('id').executeTakeFirstOrThrow();
  kept = [Number(first.id), Number(second.id)];
  // The highest id given out was deleted: it is not given out again (SQLite rebuilds the table).
  const last = await db.insertInto('members').values({ ...membership, user_id: bob, source_id: group + 1, expires_at: null }).returning('id').executeTakeFirstOrThrow();
  highest = Number(last.id);
  await db.deleteFrom('members').where('id', '=', last.id).execute();
  await m0026.up(db);
});

after(async () => {
  await database.close();
  if (url && schema) await pgAdmin(`drop schema if exists ${schema} cascade`);
});

const generation = async () => Number((await sql<{ generation: number }>`select generation from membership_generation where id = 1`.execute(db)).rows[0].generation);

test('memberships survive, with the new columns empty', async () => {
  const rows = await db.selectFrom('members').selectAll().orderBy('id').execute();
  assert.deepEqual(
    rows.map((r) => ({ ...r, id: Number(r.id), source_id: Number(r.source_id), user_id: Number(r.user_id) })),
    kept.map((id, i) => ({
      id,
      source_type: 'Namespace',
      source_id: group,
      user_id: [ann, bob][i],
      access_level: 30,
      expires_at: ['2099-01-01', null][i],
      created_by_id: null,
      created_at: at,
      updated_at: at,
      invite_email: null,
      invite_token: null,
      invite_accepted_at: null,
    })),
  );
});

test('an invitation is a row without a user; tokens are unique; every change still bumps the generation', async () => {
  const before = await generation();
  const invitation = { source_type: 'Namespace', source_id: group, user_id: null, access_level: 10, created_at: at, updated_at: at };
  const { id } = await db.insertInto('members').values({ ...invitation, invite_email: 'a@x.example', invite_token: 'digest-1' }).returning('id').executeTakeFirstOrThrow();
  assert.ok(Number(id) > highest, 'ids go on after every id given out');
  await db.insertInto('members').values({ ...invitation, invite_email: 'b@x.example', invite_token: null }).execute();
  await assert.rejects(db.insertInto('members').values({ ...invitation, invite_email: 'c@x.example', invite_token: 'digest-1' }).execute());
  await db.updateTable('members').set({ access_level: 20 }).where('id', '=', id).execute();
  await db.deleteFrom('members').where('id', '=', id).execute();
  assert.equal(await generation(), before + 4);
});

test('one membership per user and source; deleting a user still deletes theirs', async () => {
  await assert.rejects(db.insertInto('members').values({ source_type: 'Namespace', source_id: group, user_id: ann, access_level: 10, created_at: at, updated_at: at }).execute());
  await db.deleteFrom('users').where('id', '=', bob).execute();
  assert.deepEqual((await db.selectFrom('members').select('id').where('user_id', 'is not', null).execute()).map((r) => Number(r.id)), [kept[0]]);
});

test('users have a confirmation token column, unique', async () => {
  await db.updateTable('users').set({ confirmation_token: 'confirm-1' }).where('id', '=', ann).execute();
  const other = await db.insertInto('users').values({ username: 'cy', name: 'cy', email: 'cy@example.com', created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow();
  await assert.rejects(db.updateTable('users').set({ confirmation_token: 'confirm-1' }).where('id', '=', other.id).execute());
});
