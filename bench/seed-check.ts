// Seeds one dialect into a throw-away database and checks the result against an independent
// computation: `node bench/seed-check.ts sqlite|postgres`. Prints the counts and timings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import type { NotNull } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openConfiguredDatabase } from '../src/bootstrap.ts';
import { ancestorIds } from '../src/core/access/authorizations.ts';
import { ACCESS } from '../src/core/access/levels.ts';
import { SIZES, addPersonalProjects, seed } from './seed.ts';

const dialect = process.argv[2] ?? 'sqlite';
const pgAdminUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function withPgAdmin(run: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

/** project_authorizations as the membership rules define them, computed in memory. */
async function expectedAuthorizations(env: Record<string, string>): Promise<Map<string, number>> {
  const database = openConfiguredDatabase(loadConfig(env));
  try {
    const { db } = database;
    const namespaces = await db.selectFrom('namespaces').select(['id', 'type', 'owner_id', 'traversal_path']).execute();
    const projects = await db.selectFrom('projects').select(['id', 'namespace_id']).execute();
    const members = await db.selectFrom('members').select(['source_type', 'source_id', 'user_id', 'access_level', 'expires_at']).where('user_id', 'is not', null).$narrowType<{ user_id: NotNull }>().execute();
    const byNamespace = new Map(namespaces.map((n) => [n.id, n]));
    const expected = new Map<string, number>();
    const grant = (userId: number, projectId: number, level: number) => {
      const key = `${userId}:${projectId}`;
      expected.set(key, Math.max(level, expected.get(key) ?? 0));
    };
    const groupLevels = new Map<number, Array<[number, number]>>();
    for (const m of members) {
      assert.equal(m.expires_at, null);
      if (m.access_level < ACCESS.GUEST) continue;
      if (m.source_type === 'Project') grant(m.user_id, m.source_id, m.access_level);
      else groupLevels.set(m.source_id, [...(groupLevels.get(m.source_id) ?? []), [m.user_id, m.access_level]]);
    }
    for (const p of projects) {
      const ns = byNamespace.get(p.namespace_id)!;
      if (ns.type === 'User') grant(ns.owner_id!, p.id, ACCESS.OWNER);
      for (const g of ancestorIds(ns.traversal_path)) for (const [userId, level] of groupLevels.get(g) ?? []) grant(userId, p.id, level);
    }
    // Personal namespaces look like the ones the users service creates.
    const users = await db.selectFrom('users').select(['id', 'username', 'name']).execute();
    const personal = namespaces.filter((n) => n.type === 'User');
    assert.equal(personal.length, users.length);
    const full = await db.selectFrom('namespaces').selectAll().where('type', '=', 'User').execute();
    const byOwner = new Map(full.map((n) => [n.owner_id, n]));
    for (const u of users) {
      const n = byOwner.get(u.id)!;
      assert.ok(n, `user ${u.id} has no personal namespace`);
      assert.deepEqual([n.path, n.full_path, n.name, n.full_name, n.traversal_path, n.parent_id], [u.username, u.username, u.name, u.name, `/${n.id}/`, null]);
    }
    for (const n of namespaces.filter((x) => x.type === 'Group')) assert.match(n.traversal_path, new RegExp(`^/(\\d+/)*${n.id}/$`));
    return expected;
  } finally {
    await database.close();
  }
}

async function compare(env: Record<string, string>): Promise<void> {
  const expected = await expectedAuthorizations(env);
  const database = openConfiguredDatabase(loadConfig(env));
  try {
    const rows = await database.db.selectFrom('project_authorizations').selectAll().execute();
    assert.equal(rows.length, expected.size, 'project_authorizations row count');
    for (const r of rows) assert.equal(r.access_level, expected.get(`${r.user_id}:${r.project_id}`), `authorization ${r.user_id}:${r.project_id}`);
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `quarry-seed-check-${dialect}-`));
  const env: Record<string, string> = { QUARRY_DATA_DIR: dataDir, QUARRY_ROOT_TOKEN: `glpat-check-${randomBytes(8).toString('hex')}`, QUARRY_LOG_LEVEL: 'silent' };
  const dbName = `quarry_seed_check_${process.pid}`;
  if (dialect === 'postgres') {
    await withPgAdmin(async (c) => {
      await c.query(`drop database if exists ${dbName} with (force)`);
      await c.query(`create database ${dbName}`);
    });
    const url = new URL(pgAdminUrl);
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  try {
    const seeded = await seed(env);
    console.log(`${dialect}: seeded in ${Math.round(seeded.seedMs)} ms`, seeded.counts, `sample of ${seeded.memberVisibleProjectIds.length} visible ids`);
    const c = seeded.counts;
    assert.equal(c.users, SIZES.users + 2);
    assert.equal(c.personalNamespaces, c.users);
    assert.equal(c.groups, SIZES.topGroups * (1 + SIZES.subgroupsPerTop));
    assert.equal(c.projects, SIZES.projects);
    assert.equal(c.memberGroups, SIZES.memberGroups);
    let started = performance.now();
    await compare(env);
    console.log(`${dialect}: project_authorizations match the membership rules (${c.projectAuthorizations} rows, checked in ${Math.round(performance.now() - started)} ms)`);
    started = performance.now();
    const grown = await addPersonalProjects(env, SIZES.projects, seeded.memberId);
    console.log(`${dialect}: added ${SIZES.projects} personal projects in ${Math.round(performance.now() - started)} ms`, grown);
    assert.equal(grown.projects, 2 * SIZES.projects);
    assert.equal(grown.memberAuthorized, c.memberAuthorized);
    await compare(env);
    console.log(`${dialect}: project_authorizations still match (${grown.projectAuthorizations} rows)`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dialect === 'postgres') await withPgAdmin((c) => c.query(`drop database if exists ${dbName} with (force)`));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
