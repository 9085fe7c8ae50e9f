// A creation cut short (the process killed between placing the repository and committing) leaves
// a repository at the path of an id the database hands out again (SQLite does after a rollback):
// the next creation must not fail on it forever.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repositoryPath } from '../../git/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('a repository left at the next id is set aside, and the project is created', async () => {
  const first = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'first', initialize_with_readme: true } });
  assert.equal(first.statusCode, 201, first.body);
  const storage = t.deps.config.repositoryStorages.default;
  const next = first.json().id + 1;
  const leftover = repositoryPath(storage, next);
  fs.mkdirSync(leftover, { recursive: true });
  fs.writeFileSync(path.join(leftover, 'HEAD'), 'ref: refs/heads/old\n');

  const second = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'second', initialize_with_readme: true } });
  assert.equal(second.statusCode, 201, second.body);
  assert.equal(second.json().id, next);
  const branches = await t.get(`/api/v4/projects/${next}/repository/branches`, { token: ROOT_TOKEN });
  assert.deepEqual(branches.json().map((b: { name: string }) => b.name), ['main']);
  const orphaned = fs.readdirSync(path.join(storage, '@orphaned'));
  assert.equal(orphaned.length, 1);
  assert.equal(fs.readFileSync(path.join(storage, '@orphaned', orphaned[0], 'HEAD'), 'utf8'), 'ref: refs/heads/old\n');
});

test('a creation whose follow-up cannot start after the commit keeps the project and its repository', async () => {
  // The README commit's follow-up job is claimed after the project's transaction committed; a
  // claim that fails (the database busy, say) must not take the committed project's repository.
  const executor = t.deps.db.getExecutor();
  const executeQuery = executor.executeQuery.bind(executor);
  let failures = 1;
  executor.executeQuery = (async (query: Parameters<typeof executeQuery>[0]) => {
    if (failures > 0 && /^update "background_jobs" set "state" = /.test(query.sql)) {
      failures--;
      throw new Error('the database is busy');
    }
    return executeQuery(query);
  }) as typeof executor.executeQuery;
  try {
    const created = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'kept', initialize_with_readme: true } });
    assert.equal(failures, 0, 'the follow-up was claimed, and failed');
    assert.equal(created.statusCode, 500, created.body);
  } finally {
    executor.executeQuery = executeQuery;
  }
  const project = await t.get('/api/v4/projects/root%2Fkept', { token: ROOT_TOKEN });
  assert.equal(project.statusCode, 200, project.body);
  assert.ok(fs.existsSync(repositoryPath(t.deps.config.repositoryStorages.default, project.json().id)), 'its repository is in place');
  const branches = await t.get(`/api/v4/projects/${project.json().id}/repository/branches`, { token: ROOT_TOKEN });
  assert.equal(branches.statusCode, 200, branches.body);
  assert.deepEqual(branches.json().map((b: { name: string }) => b.name), ['main']);
});
