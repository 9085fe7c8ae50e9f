// A project's settings are kept in memory under the project's settings revision, which every write
// of them replaces: a page of projects reads no settings table once they are known, and a change
// made by any node (here: straight in the database, as another process would) is seen at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { statementsDuring } from '../../../test/sql-spy.ts';
import { PROJECT_SETTINGS, loadProjectSettings, updateProjectSettings } from './project-settings.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const rowOf = (id: number) => t.deps.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('project settings in memory', () => {
  test('known settings are read without a query', async () => {
    const project = await createProject(t);
    const row = await rowOf(project.id);
    assert.match(row.settings_revision, /^[0-9a-f]{16}$/);
    const first = await loadProjectSettings(t.deps.db, [row]);
    assert.deepEqual(first.get(row.id)?.settings, PROJECT_SETTINGS.defaults);
    const statements = await statementsDuring(t, () => loadProjectSettings(t.deps.db, [row, row]));
    assert.deepEqual(statements, []);
  });

  test('a change renews the revision, and the next read sees it whichever process made it', async () => {
    const project = await createProject(t);
    const before = await rowOf(project.id);
    await loadProjectSettings(t.deps.db, [before]);
    await t.deps.db.transaction().execute((trx) => updateProjectSettings(trx, project.id, { settings: { merge_method: 'ff' } }));
    const after = await rowOf(project.id);
    assert.notEqual(after.settings_revision, before.settings_revision);
    assert.equal((await loadProjectSettings(t.deps.db, [after])).get(project.id)?.settings.merge_method, 'ff');
    // A row read before the change carries the old revision: its read goes to the database.
    assert.equal((await loadProjectSettings(t.deps.db, [before])).get(project.id)?.settings.merge_method, 'ff');
  });

  test('a change rolled back leaves the cached settings as they were', async () => {
    const project = await createProject(t);
    const row = await rowOf(project.id);
    await loadProjectSettings(t.deps.db, [row]);
    await assert.rejects(
      t.deps.db.transaction().execute(async (trx) => {
        await updateProjectSettings(trx, project.id, { settings: { merge_method: 'ff' } });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal((await rowOf(project.id)).settings_revision, row.settings_revision);
    assert.equal((await loadProjectSettings(t.deps.db, [row])).get(project.id)?.settings.merge_method, 'merge');
  });

  test('a project without a revision (inserted without its settings) is read each time', async () => {
    const project = await createProject(t);
    await t.deps.db.updateTable('projects').set({ settings_revision: '' }).where('id', '=', project.id).execute();
    const row = await rowOf(project.id);
    await loadProjectSettings(t.deps.db, [row]);
    const statements = await statementsDuring(t, () => loadProjectSettings(t.deps.db, [row]));
    assert.equal(statements.length, 1);
  });
});
