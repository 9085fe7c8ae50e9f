// Migration 0008 on a database holding settings as JSON (as 0007 left them): every value reaches
// its column, tokens end up encrypted, and the declarations' defaults are the columns' defaults.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { digest } from '../../core/auth/secrets.ts';
import { type SecretBox, secretBox } from '../../core/secret-box.ts';
import { APPLICATION_SETTINGS } from '../../domain/settings/application-settings.ts';
import { NAMESPACE_SETTINGS, readNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { PROJECT_CI_CD_SETTINGS, PROJECT_FEATURES, PROJECT_SETTINGS, readProjectSettings } from '../../domain/settings/project-settings.ts';
import { type Database, openDatabase } from '../database.ts';
import { migrateToLatest } from '../migrate.ts';
import type { DB } from '../schema.ts';
import * as m0001 from './0001_users_and_tokens.ts';
import * as m0002 from './0002_namespaces_projects_members_events.ts';
import * as m0003 from './0003_list_counts_and_search.ts';
import * as m0004 from './0004_repositories.ts';
import * as m0005 from './0005_protected_refs.ts';
import * as m0006 from './0006_authorized_projects_by_level.ts';
import * as m0007 from './0007_background_jobs_and_instance.ts';

const BEFORE = [m0001, m0002, m0003, m0004, m0005, m0006, m0007];
const BEFORE_NAMES = ['0001_users_and_tokens', '0002_namespaces_projects_members_events', '0003_list_counts_and_search', '0004_repositories', '0005_protected_refs', '0006_authorized_projects_by_level', '0007_background_jobs_and_instance'];

const url = process.env.DATABASE_URL || null;
let database: Database;
let db: Kysely<DB>;
let schema: string | undefined;
let dataDir: string;
let box: SecretBox;

async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url as string });
  await client.connect();
  await client.query(statement);
  await client.end();
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-migration-'));
  box = secretBox(dataDir);
  if (url) {
    schema = `m_${process.pid}_${randomBytes(4).toString('hex')}`;
    await pgAdmin(`create schema ${schema}`);
  }
  database = openDatabase({ url, pgSchema: schema, poolSize: 2 });
  db = database.db;
  const raw = db as unknown as Kysely<any>;
  for (const migration of BEFORE) await migration.up(raw);
  await sql`create table schema_migrations (name varchar(255) primary key, applied_at varchar(32) not null)`.execute(db);
  for (const name of BEFORE_NAMES) await sql`insert into schema_migrations (name, applied_at) values (${name}, '2024-01-01T00:00:00.000Z')`.execute(db);
});

after(async () => {
  await database.close();
  if (url && schema) await pgAdmin(`drop schema if exists ${schema} cascade`);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const at = '2024-01-01T00:00:00.000Z';

describe('0008_typed_settings', () => {
  let user: number;
  let lockedGroup: number;
  let plainGroup: number;
  let tuned: number;
  let plain: number;

  before(async () => {
    const raw = db as unknown as Kysely<any>;
    user = (await raw.insertInto('users').values({ username: 'ann', name: 'Ann', email: 'ann@example.com', created_at: at, updated_at: at }).returning('id').executeTakeFirstOrThrow()).id;
    const group = (settings: object, p: string) =>
      raw
        .insertInto('namespaces')
        .values({ type: 'Group', name: p, path: p, traversal_path: '', full_path: p, full_name: p, visibility_level: 20, settings: JSON.stringify(settings), created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
    lockedGroup = (
      await group(
        { project_creation_level: 'noone', subgroup_creation_level: 'owner', default_branch_protection: 0, share_with_group_lock: true, lfs_enabled: false, two_factor_grace_period: 12, runners_token: 'group-runners-token-1' },
        'locked',
      )
    ).id;
    plainGroup = (await group({}, 'plain')).id;
    const project = (p: string, visibility: number, switches: object, settings: object) =>
      raw
        .insertInto('projects')
        .values({
          namespace_id: plainGroup,
          name: p,
          path: p,
          full_path: `plain/${p}`,
          name_with_namespace: `plain / ${p}`,
          visibility_level: visibility,
          creator_id: user,
          settings: JSON.stringify(settings),
          runners_token: `${p}-runners-token`,
          created_at: at,
          updated_at: at,
          last_activity_at: at,
          ...switches,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    tuned = (
      await project(
        'tuned',
        0,
        { issues_enabled: false },
        {
          access_levels: { issues: 'enabled', wiki: 'private', pages: 'public' },
          merge_method: 'ff',
          build_timeout: 100,
          public_builds: false,
          ci_config_path: 'ci/build.yml',
          emails_disabled: null,
          remove_source_branch_after_merge: null,
          ci_default_git_depth: null,
          squash_option: 42,
          initialize_with_readme: true,
        },
      )
    ).id;
    plain = (await project('plain', 20, {}, {})).id;
    assert.equal((await migrateToLatest(db, box))[0], '0008_typed_settings');
  });

  test('project settings reach their columns; unset ones get the defaults', async () => {
    const { features, ciCd, settings } = await readProjectSettings(db, { id: tuned });
    // A switched-off feature is disabled whatever level its JSON named.
    assert.equal(features.issues_access_level, 'disabled');
    assert.equal(features.wiki_access_level, 'private');
    assert.equal(features.pages_access_level, 'public');
    assert.equal(features.merge_requests_access_level, 'enabled');
    assert.equal(settings.merge_method, 'ff');
    assert.equal(ciCd.build_timeout, 100);
    assert.equal(ciCd.public_builds, false);
    assert.equal(ciCd.ci_config_path, 'ci/build.yml');
    assert.equal(ciCd.ci_default_git_depth, null);
    assert.equal(settings.emails_disabled, null);
    assert.equal(settings.remove_source_branch_after_merge, null);
    // A value of the wrong type is dropped for the default.
    assert.equal(settings.squash_option, 'default_off');
    assert.equal(settings.initialize_with_readme, true);
    assert.equal(ciCd.keep_latest_artifact, true);

    const other = await readProjectSettings(db, { id: plain });
    assert.deepEqual(other.ciCd, PROJECT_CI_CD_SETTINGS.defaults);
    assert.deepEqual(other.settings, PROJECT_SETTINGS.defaults);
    // Pages that followed the visibility keep what they showed: enabled on a public project.
    assert.deepEqual(other.features, { ...PROJECT_FEATURES.defaults, pages_access_level: 'enabled' });
  });

  test('group settings reach their columns', async () => {
    const levels = await db.selectFrom('namespaces').select(['id', 'project_creation_level', 'subgroup_creation_level']).where('id', 'in', [lockedGroup, plainGroup]).orderBy('id').execute();
    assert.deepEqual(levels, [
      { id: lockedGroup, project_creation_level: 'noone', subgroup_creation_level: 'owner' },
      { id: plainGroup, project_creation_level: 'developer', subgroup_creation_level: 'maintainer' },
    ]);
    const locked = await readNamespaceSettings(db, lockedGroup);
    assert.deepEqual(locked, { ...NAMESPACE_SETTINGS.defaults, default_branch_protection: 0, share_with_group_lock: true, lfs_enabled: false, two_factor_grace_period: 12 });
    assert.deepEqual(await readNamespaceSettings(db, plainGroup), NAMESPACE_SETTINGS.defaults);
  });

  test('runners tokens are encrypted, with a digest to find them by; no clear copy is left', async () => {
    const project = await db.selectFrom('projects').selectAll().where('id', '=', tuned).executeTakeFirstOrThrow();
    assert.ok(!('runners_token' in project) && !('settings' in project) && !('issues_enabled' in project));
    assert.doesNotMatch(project.runners_token_encrypted, /tuned-runners-token/);
    assert.equal(box.open(project.runners_token_encrypted), 'tuned-runners-token');
    assert.equal(project.runners_token_digest, digest('tuned-runners-token'));
    const group = await db.selectFrom('namespace_settings').selectAll().where('namespace_id', '=', lockedGroup).executeTakeFirstOrThrow();
    assert.equal(box.open(group.runners_token_encrypted as string), 'group-runners-token-1');
    assert.equal(group.runners_token_digest, digest('group-runners-token-1'));
    const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', lockedGroup).executeTakeFirstOrThrow();
    assert.ok(!('settings' in namespace));
  });

  test('the instance row holds every declared setting with its declared default, and nothing else', async () => {
    const row = await db.selectFrom('application_settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    assert.deepEqual(APPLICATION_SETTINGS.read(row), APPLICATION_SETTINGS.defaults);
    assert.deepEqual(Object.keys(row).sort(), ['created_at', 'generation', 'id', 'updated_at', ...APPLICATION_SETTINGS.columnNames].sort());
    assert.equal(Number(row.generation), 1);
  });

  test("a settings row created with the columns' defaults reads as the declared defaults", async () => {
    const raw = db as unknown as Kysely<any>;
    const id = (
      await raw
        .insertInto('projects')
        .values({ namespace_id: plainGroup, name: 'bare', path: 'bare', full_path: 'plain/bare', name_with_namespace: 'plain / bare', created_at: at, updated_at: at, last_activity_at: at })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    for (const declared of [PROJECT_FEATURES, PROJECT_CI_CD_SETTINGS, PROJECT_SETTINGS]) {
      await raw.insertInto(declared.table).values({ project_id: id }).execute();
      const row = await raw.selectFrom(declared.table).selectAll().where('project_id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(declared.read(row), declared.defaults, declared.table);
      assert.deepEqual(Object.keys(row).sort(), ['project_id', ...declared.columnNames].sort(), declared.table);
    }
    const bare = (
      await raw
        .insertInto('namespaces')
        .values({ type: 'Group', name: 'bare', path: 'bare', traversal_path: '', full_path: 'bare', full_name: 'bare', created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await raw.insertInto('namespace_settings').values({ namespace_id: bare }).execute();
    const row = await raw.selectFrom('namespace_settings').selectAll().where('namespace_id', '=', bare).executeTakeFirstOrThrow();
    assert.deepEqual(NAMESPACE_SETTINGS.read(row), NAMESPACE_SETTINGS.defaults);
  });
});
