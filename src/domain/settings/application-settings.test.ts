// The cached reader of the instance's settings: one copy per process, re-read when the row's
// generation moved, which is checked at most every RECHECK_MS without a query per read.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { setInstanceSettings } from '../../../test/factories.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { statementsDuring } from '../../../test/sql-spy.ts';
import { APPLICATION_SETTINGS, RECHECK_MS, applicationSettings, defaultBranchName, defaultProjectCreationLevel } from './application-settings.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('application settings', () => {
  test('a new instance has every declared default', async () => {
    assert.deepEqual(await applicationSettings(t.deps.db), APPLICATION_SETTINGS.defaults);
    assert.equal(defaultBranchName(APPLICATION_SETTINGS.defaults), 'main');
    assert.equal(defaultProjectCreationLevel(APPLICATION_SETTINGS.defaults), 'developer');
  });

  test('reads come from memory: no query between checks', async () => {
    await applicationSettings(t.deps.db);
    const statements = await statementsDuring(t, async () => {
      for (let i = 0; i < 50; i++) await applicationSettings(t.deps.db);
    });
    assert.deepEqual(statements, []);
  });

  test('a change made here is seen at once, and moves the generation on', async () => {
    const before = await t.deps.db.selectFrom('application_settings').select('generation').executeTakeFirstOrThrow();
    await setInstanceSettings(t, { default_branch_name: 'trunk', default_projects_limit: 7, restricted_visibility_levels: ['public'] });
    const settings = await applicationSettings(t.deps.db);
    assert.equal(settings.default_branch_name, 'trunk');
    assert.equal(settings.default_projects_limit, 7);
    assert.deepEqual(settings.restricted_visibility_levels, ['public']);
    assert.equal(defaultBranchName(settings), 'trunk');
    const afterwards = await t.deps.db.selectFrom('application_settings').select('generation').executeTakeFirstOrThrow();
    assert.equal(Number(afterwards.generation), Number(before.generation) + 1);
  });

  test("another process's change is seen once the copy is RECHECK_MS old: one cheap check, then the row", async () => {
    await applicationSettings(t.deps.db);
    // What another node's update does: the row and its generation change, this process's copy does not know.
    await sql`update application_settings set default_projects_limit = 11, generation = generation + 1 where id = 1`.execute(t.deps.db);
    assert.notEqual((await applicationSettings(t.deps.db)).default_projects_limit, 11);
    await sleep(RECHECK_MS + 50);
    const statements = await statementsDuring(t, async () => assert.equal((await applicationSettings(t.deps.db)).default_projects_limit, 11));
    assert.equal(statements.length, 2);
    assert.match(statements[0], /select "generation" from "application_settings"/);
    // Unchanged since: the next check after RECHECK_MS costs the generation alone.
    await sleep(RECHECK_MS + 50);
    const check = await statementsDuring(t, () => applicationSettings(t.deps.db));
    assert.equal(check.length, 1);
  });

  test('a missing row (after a reset) is recreated with the defaults', async () => {
    await t.deps.db.deleteFrom('application_settings').execute();
    await setInstanceSettings(t, { default_branch_name: 'again' });
    assert.equal((await applicationSettings(t.deps.db)).default_branch_name, 'again');
    assert.equal((await applicationSettings(t.deps.db)).default_projects_limit, APPLICATION_SETTINGS.defaults.default_projects_limit);
  });
});
