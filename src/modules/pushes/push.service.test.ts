// recordRefUpdates as the API's writers call it: refs changed with the git library, then recorded.
// push_data for every kind of change, bulk events, the first branch of an empty repository,
// empty_repo, the refs.updated job that carries them, and the record of a push its server did not
// get to make.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ProjectRow } from '../../db/schema.ts';
import { ZERO_OID } from '../../git/args.ts';
import { createCommit } from '../../git/commits.ts';
import { deleteRef, resolveRef, updateRef } from '../../git/refs.ts';
import { projectRepositoryPath, readDefaultBranch } from '../../git/repository.ts';
import { runGit } from '../../git/run.ts';
import { identityEnv } from '../../git/signature.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { createProject as createProjectRow } from '../../../test/factories.ts';
import { commitTitle } from './push-data.ts';
import { JobClaimLost, claimNext, enqueue, runClaimed } from '../../jobs/queue.ts';
import { removeLeftovers } from '../../jobs/remove-leftovers.ts';
import { recordRefUpdates, refsUpdatedJob } from './push.service.ts';
import { systemContext } from '../../core/context.ts';

let t: TestApp;
let project: ProjectRow;
let gitDir: string;
let main: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };
const at = new Date('2024-03-04T05:06:07.000Z');

async function apiProject(name: string, readme: boolean): Promise<{ row: ProjectRow; dir: string }> {
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, initialize_with_readme: readme } });
  assert.equal(res.statusCode, 201, res.body);
  const row = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  return { row, dir: projectRepositoryPath(t.deps.config.repositoryStorages, row) as string };
}

async function pushData(target: ProjectRow, since: number) {
  const rows = await t.deps.db.selectFrom('events').select(['id', 'push_data']).where('project_id', '=', target.id).where('action', '=', 'pushed').where('id', '>', since).orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.push_data as string));
}

const lastEventId = async () => Number((await t.deps.db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);

const commit = (branch: string, file: string, message: string, startRevision?: string) =>
  createCommit(gitDir, { branch, actions: [{ action: 'create', path: file, content: file }], message, author, date: at, ...(startRevision ? { startRevision } : {}) });

before(async () => {
  t = await createTestApp();
  ({ row: project, dir: gitDir } = await apiProject('api-writes', true));
  main = (await resolveRef(gitDir, 'refs/heads/main')) as string;
});
after(() => t.close());

describe('push_data', () => {
  test('a branch made through the API, then a commit on it, then its deletion', async () => {
    const since = await lastEventId();
    const made = await commit('topic', 'topic.txt', 'Start the topic', 'main');
    await recordRefUpdates(systemContext(t.deps), project, 1, [{ ref: 'refs/heads/topic', before: ZERO_OID, after: made.id }]);
    const next = await commit('topic', 'more.txt', 'More on the topic\r\nand a body');
    await recordRefUpdates(systemContext(t.deps), project, 1, [{ ref: 'refs/heads/topic', before: made.id, after: next.id }]);
    await deleteRef(gitDir, 'refs/heads/topic');
    await recordRefUpdates(systemContext(t.deps), project, 1, [{ ref: 'refs/heads/topic', before: next.id, after: ZERO_OID }]);
    assert.deepEqual(await pushData(project, since), [
      { commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: made.id, ref: 'topic', commit_title: 'Start the topic', ref_count: null },
      { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: made.id, commit_to: next.id, ref: 'topic', commit_title: 'More on the topic', ref_count: null },
      { commit_count: 0, action: 'removed', ref_type: 'branch', commit_from: next.id, commit_to: null, ref: 'topic', commit_title: null, ref_count: null },
    ]);
  });

  test('tags: annotated ones report the commit they point at; a tag of a tree reports none', async () => {
    await runGit(gitDir, ['tag', '-a', '-m', 'Release', '--', 'r1', main], { env: identityEnv('COMMITTER', author, at) });
    await runGit(gitDir, ['tag', '--', 'tree-tag', `${main}^{tree}`]);
    const r1 = (await resolveRef(gitDir, 'refs/tags/r1')) as string;
    const tree = (await resolveRef(gitDir, 'refs/tags/tree-tag')) as string;
    const since = await lastEventId();
    await recordRefUpdates(systemContext(t.deps), project, 1, [
      { ref: 'refs/tags/r1', before: ZERO_OID, after: r1 },
      { ref: 'refs/tags/tree-tag', before: ZERO_OID, after: tree },
    ]);
    assert.deepEqual(await pushData(project, since), [
      { commit_count: 1, action: 'created', ref_type: 'tag', commit_from: null, commit_to: r1, ref: 'r1', commit_title: 'Initial commit', ref_count: null },
      { commit_count: 0, action: 'created', ref_type: 'tag', commit_from: null, commit_to: tree, ref: 'tree-tag', commit_title: null, ref_count: null },
    ]);
  });

  test('more than three changes of one kind and action make one bulk event; other refs none', async () => {
    const names = ['x1', 'x2', 'x3', 'x4', 'x5'];
    for (const name of names) await updateRef(gitDir, `refs/tags/${name}`, main, null);
    await updateRef(gitDir, 'refs/notes/commits', main, null);
    const since = await lastEventId();
    await recordRefUpdates(systemContext(t.deps), project, 1, [
      ...names.map((name) => ({ ref: `refs/tags/${name}`, before: ZERO_OID, after: main })),
      { ref: 'refs/notes/commits', before: ZERO_OID, after: main },
    ]);
    assert.deepEqual(await pushData(project, since), [
      { commit_count: 0, action: 'created', ref_type: 'tag', commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 5 },
    ]);
  });

  test('titles: the first line, stripped, cut to 70 characters as Rails truncates', () => {
    assert.equal(commitTitle('  Fix it  \n\nBody'), 'Fix it');
    assert.equal(commitTitle('Windows\r\nline'), 'Windows');
    assert.equal(commitTitle('\nStarts blank'), '');
    assert.equal(commitTitle('a'.repeat(70)), 'a'.repeat(70));
    assert.equal(commitTitle('a'.repeat(71)), `${'a'.repeat(67)}...`);
    assert.equal(commitTitle('🚀'.repeat(71)), `${'🚀'.repeat(67)}...`);
  });
});

describe('the project after a change', () => {
  test('the first branch of an empty repository becomes the default, HEAD follows, the branch is protected', async () => {
    const { row, dir } = await apiProject('empty-api', false);
    assert.equal(row.default_branch, null);
    const made = await createCommit(dir, { branch: 'trunk', actions: [{ action: 'create', path: 'a', content: 'a' }], message: 'First', author, date: at });
    await recordRefUpdates(systemContext(t.deps), row, 1, [{ ref: 'refs/heads/trunk', before: ZERO_OID, after: made.id }]);
    const after = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    assert.equal(after.default_branch, 'trunk');
    assert.equal(Boolean(after.empty_repo), false);
    assert.equal(await readDefaultBranch(dir), 'trunk');
    const rules = await t.deps.db.selectFrom('protected_branches').select('name').where('project_id', '=', row.id).execute();
    assert.deepEqual(rules.map((r) => r.name), ['trunk']);

    await deleteRef(dir, 'refs/heads/trunk');
    await recordRefUpdates(systemContext(t.deps), after, 1, [{ ref: 'refs/heads/trunk', before: made.id, after: ZERO_OID }]);
    const emptied = await t.deps.db.selectFrom('projects').select('empty_repo').where('id', '=', row.id).executeTakeFirstOrThrow();
    assert.equal(Boolean(emptied.empty_repo), true);
  });

  test('a project without a repository records no event, and the job is done', async () => {
    await t.runJobs(); // the statistics refreshes the tests above left
    const bare = await createProjectRow(t);
    const outcome = await recordRefUpdates(systemContext(t.deps), bare, 1, [{ ref: 'refs/heads/main', before: ZERO_OID, after: main }]);
    assert.deepEqual(outcome, { id: outcome?.id, kind: 'refs.updated', ok: true });
    assert.deepEqual(await pushData(bare, 0), []);
    assert.equal(await t.count('background_jobs'), 0);
  });

  test('a run cut short records nothing; the next worker records it once', async () => {
    await t.runJobs();
    const since = await lastEventId();
    const update = { ref: 'refs/tags/x1', before: main, after: ZERO_OID };
    // A worker claims the job and dies before finishing it; its claim then expires.
    const id = await enqueue(t.deps.db, refsUpdatedJob, { projectId: project.id, userId: 1, updates: [update] }, { runHere: true });
    const claimed = await claimNext(t.deps.db, id as number);
    assert.equal(claimed?.state, 'running');
    assert.deepEqual(await pushData(project, since), []);
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id as number).execute();

    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['refs.updated', true], ['project.statistics.refresh', true]]);
    assert.equal((await pushData(project, since)).length, 1);
    assert.equal(await t.count('background_jobs'), 0);

    // The dead worker coming back cannot complete what the other one did: its transaction rolls back.
    const lost = await runClaimed(t.deps, new Map([[refsUpdatedJob.name, refsUpdatedJob]]), claimed as NonNullable<typeof claimed>);
    assert.equal(lost.ok, false);
    assert.ok(lost.error instanceof JobClaimLost);
    assert.equal((await pushData(project, since)).length, 1);
  });

  test('a push whose server stopped before recording it is recorded by the sweep of leftovers, once', async () => {
    const since = await lastEventId();
    const made = await commit('swept', 'swept.txt', 'Pushed as the server stopped', 'main');
    // What a push over HTTP leaves when its server dies after git moved the refs: the push's
    // directory, named after the dead process, with its origin and what post-receive wrote.
    const pushes = path.join(t.deps.config.dataDir, 'pushes');
    const dead = (suffix: string) => path.join(pushes, `${os.hostname()}~${2 ** 23}-${suffix}`);
    for (const suffix of ['moved', 'refused']) {
      fs.mkdirSync(dead(suffix), { recursive: true });
      fs.writeFileSync(path.join(dead(suffix), 'origin.json'), JSON.stringify({ projectId: project.id, userId: 1 }));
    }
    fs.writeFileSync(path.join(dead('moved'), 'ref-updates'), `${ZERO_OID} ${made.id} refs/heads/swept\n`);

    await t.runJobs();
    assert.equal(await removeLeftovers(t.deps), 2);
    assert.equal(fs.existsSync(dead('moved')) || fs.existsSync(dead('refused')), false);
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['refs.updated', true], ['project.statistics.refresh', true]]);
    assert.deepEqual(
      (await pushData(project, since)).map((d) => [d.action, d.ref, d.commit_to]),
      [['created', 'swept', made.id]],
    );
    assert.equal(await removeLeftovers(t.deps), 0);
    assert.equal((await t.runJobs()).length, 0);
  });

  test('a leftover push that cannot be read stays for the next sweep; the others go', async () => {
    const pushes = path.join(t.deps.config.dataDir, 'pushes');
    const broken = path.join(pushes, `${os.hostname()}~${2 ** 23}-broken`);
    const empty = path.join(pushes, `${os.hostname()}~${2 ** 23}-empty`);
    fs.mkdirSync(broken, { recursive: true });
    fs.mkdirSync(empty, { recursive: true });
    fs.writeFileSync(path.join(broken, 'ref-updates'), `${ZERO_OID} ${main} refs/heads/lost\n`);
    fs.writeFileSync(path.join(broken, 'origin.json'), '{not json');
    await assert.rejects(removeLeftovers(t.deps), /1 leftover\(s\) in .* could not be salvaged; kept for the next sweep/);
    assert.equal(fs.existsSync(broken), true);
    assert.equal(fs.existsSync(empty), false);
    fs.rmSync(broken, { recursive: true });
  });
});
