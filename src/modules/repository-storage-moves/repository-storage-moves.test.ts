// Repository storage moves: administrators only; the entities; storage names checked; a project's
// move through its states (copied, verified, switched, the original removed), read-only while it
// runs and writable from `replicated`; resuming a move cut short, failing one cleanly, keeping an
// original written to after the copy; bulk moves; group and snippet moves (snippets' own in the snippets module); and pushes racing a
// move over real git HTTP (refused while read-only, accepted after, nothing lost).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, runMatrix } from '../../../test/access-matrix.ts';
import { createGroup, unprotectDefaultBranch } from '../../../test/factories.ts';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import { chooseRepositoryStorage } from '../../domain/settings/application-settings.ts';
import { refsChecksum } from '../../git/checksums.ts';
import { READ_ONLY_MARKER } from '../../git/hooks/hooks.ts';
import { listRefs } from '../../git/refs.ts';
import { copyRepository, repositoryExists, repositoryPath } from '../../git/repository.ts';
import { GroupStorageMoveEntity, ProjectStorageMoveEntity } from './repository-storage-moves.schemas.ts';

let t: TestApp;
let host: string;
let git: GitCli;
let world: MatrixWorld;
let developer: TestUser;

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories,broken=broken' }));
  // A storage whose directory is a file: nothing can be copied onto it.
  fs.writeFileSync(path.join(t.deps.config.dataDir, 'broken'), '');
  git = gitCli();
  world = await buildMatrixWorld(t);
  developer = await t.user();
});
after(async () => {
  git.close();
  await t.close();
});

const admin = { token: ROOT_TOKEN };
const storageDir = (name: string) => t.deps.config.repositoryStorages[name];
const row = (id: number) => t.deps.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const moveRow = (id: number) => t.deps.db.selectFrom('project_repository_storage_moves').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** A project with a README commit (main unprotected), the developer a member. */
async function newProject(): Promise<ProjectRow> {
  const name = `moving-${randomBytes(3).toString('hex')}`;
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, initialize_with_readme: true } });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  expectStatus(await t.post(`/api/v4/projects/${res.json().id}/members`, { token: ROOT_TOKEN, body: { user_id: developer.user.id, access_level: 30 } }), 201);
  await t.runJobs();
  return row(res.json().id);
}

async function scheduleMove(project: ProjectRow, destination?: string) {
  const res = await t.post(`/api/v4/projects/${project.id}/repository_storage_moves`, { ...admin, body: destination ? { destination_storage_name: destination } : {} });
  expectStatus(res, 201);
  expectEntity(res.json(), ProjectStorageMoveEntity);
  return res.json() as { id: number; state: string };
}

/** Runs due jobs; jobs waiting out a retry's delay are made due first, `rounds` times. */
async function runJobs(rounds = 1) {
  const outcomes = [];
  for (let i = 0; i < rounds; i++) {
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date(0).toISOString() }).execute();
    outcomes.push(...(await t.runJobs()));
  }
  return outcomes;
}

describe('who may call', () => {
  const adminOnly = (success: number) => (role: string) => (role === 'anonymous' ? 401 : role === 'admin' ? success : 403);
  const errors = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };

  test('every route is for administrators, checked before anything is looked up', async () => {
    const routes: [string, string, number, unknown?][] = [
      ['GET', '/project_repository_storage_moves', 200],
      ['POST', '/project_repository_storage_moves', 202, { source_storage_name: 'broken' }],
      ['GET', '/group_repository_storage_moves', 200],
      ['POST', '/group_repository_storage_moves', 202, { source_storage_name: 'default' }],
      ['GET', '/snippet_repository_storage_moves', 200],
      ['POST', '/snippet_repository_storage_moves', 202, { source_storage_name: 'default' }],
    ];
    for (const [method, route, success, body] of routes) {
      await runMatrix(world, {
        expect: adminOnly(success),
        errors,
        call: (c) => t.request(method as 'GET', `/api/v4${route}`, { token: c.caller.token, body }),
      });
    }
  });

  test('a project’s and a group’s moves: administrators only, even where the caller is an owner', async () => {
    await runMatrix(world, {
      expect: adminOnly(200),
      errors,
      call: (c) => t.get(`/api/v4/projects/${c.project.id}/repository_storage_moves`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), ProjectStorageMoveEntity),
    });
    await runMatrix(world, {
      expect: adminOnly(200),
      errors,
      call: (c) => t.get(`/api/v4/groups/${c.group.id}/repository_storage_moves`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), GroupStorageMoveEntity),
    });
    // Refused before the project is looked for: no hint of what exists.
    expectError(await t.get('/api/v4/projects/999999/repository_storage_moves', { token: developer.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post('/api/v4/projects/999999/repository_storage_moves', { token: developer.token, body: {} }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/projects/999999/repository_storage_moves', admin), 404, { message: '404 Project Not Found' });
  });
});

describe('a project’s move', () => {
  let project: ProjectRow;
  let source: string;

  before(async () => {
    project = await newProject();
    source = repositoryPath(storageDir('default'), project.id);
  });

  test('storage names are checked', async () => {
    const url = `/api/v4/projects/${project.id}/repository_storage_moves`;
    expectError(await t.post(url, { ...admin, body: { destination_storage_name: 'nowhere' } }), 400, { message: { destination_storage_name: ['is not included in the list'] } });
    expectError(await t.post('/api/v4/project_repository_storage_moves', { ...admin, body: {} }), 400, { error: 'source_storage_name is missing' });
    expectError(await t.post('/api/v4/project_repository_storage_moves', { ...admin, body: { source_storage_name: 'nowhere' } }), 400, { error: 'source_storage_name does not have a valid value' });
    expectError(
      await t.post('/api/v4/project_repository_storage_moves', { ...admin, body: { source_storage_name: 'default', destination_storage_name: 'nowhere' } }),
      400,
      { error: 'destination_storage_name does not have a valid value' },
    );
    expectError(await t.post('/api/v4/group_repository_storage_moves', { ...admin, body: { source_storage_name: 'x'.repeat(300) } }), 400, { error: 'source_storage_name does not have a valid value' });
    assert.equal(await t.count('project_repository_storage_moves'), 0);
    assert.equal((await row(project.id)).repository_read_only, false);
  });

  test('scheduled: read-only at once; reads work, writes are refused; a second move is refused', async () => {
    const move = await scheduleMove(project, 'other');
    assert.equal(move.state, 'scheduled');
    const body = (await t.get(`/api/v4/project_repository_storage_moves/${move.id}`, admin)).json();
    expectEntity(body, ProjectStorageMoveEntity);
    assert.deepEqual(body, {
      id: move.id,
      created_at: body.created_at,
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'other',
      error_message: null,
      project: {
        id: project.id,
        description: project.description,
        name: project.name,
        name_with_namespace: project.name_with_namespace,
        path: project.path,
        path_with_namespace: project.full_path,
        created_at: project.created_at,
      },
    });
    assert.equal((await row(project.id)).repository_read_only, true);
    expectStatus(await t.get(`/api/v4/projects/${project.id}/repository/files/README.md?ref=main`, { token: developer.token }), 200);
    expectStatus(await t.get(`/api/v4/projects/${project.id}/repository/branches`, { token: developer.token }), 200);
    expectError(await t.post(`/api/v4/projects/${project.id}/repository/branches`, { token: developer.token, body: { branch: 'feature', ref: 'main' } }), 400, {
      message: REPOSITORY_READ_ONLY_MESSAGE,
    });
    const commit = { branch: 'main', commit_message: 'while moving', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] };
    expectError(await t.post(`/api/v4/projects/${project.id}/repository/commits`, { token: developer.token, body: commit }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
    expectError(await t.post(`/api/v4/projects/${project.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } }), 400, {
      message: { project: ['is read-only'] },
    });
    // The project's entity still names the storage it is on.
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, admin)).json().repository_storage, 'default');
  });

  test('run: copied, verified, switched, the original removed; writable again', async () => {
    const refsBefore = await refsChecksum(source);
    const [moveRecord] = await t.deps.db.selectFrom('project_repository_storage_moves').select('id').where('project_id', '=', project.id).execute();
    assert.deepEqual((await runJobs()).map((o) => [o.kind, o.ok]), [['project.repository_storage_move', true]]);
    const move = (await t.get(`/api/v4/projects/${project.id}/repository_storage_moves/${moveRecord.id}`, admin)).json();
    expectEntity(move, ProjectStorageMoveEntity);
    assert.equal(move.state, 'finished');
    const moved = await row(project.id);
    assert.equal(moved.repository_storage, 'other');
    assert.equal(moved.repository_read_only, false);
    const destination = repositoryPath(storageDir('other'), project.id);
    assert.equal(await refsChecksum(destination), refsBefore);
    assert.equal(repositoryExists(source), false);
    assert.equal(fs.existsSync(path.join(destination, READ_ONLY_MARKER)), false);
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, admin)).json().repository_storage, 'other');
    // Only administrators see the storage.
    assert.equal('repository_storage' in (await t.get(`/api/v4/projects/${project.id}`, { token: developer.token })).json(), false);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/repository/branches`, { token: developer.token, body: { branch: 'after-move', ref: 'main' } }), 201);
    // Listed by storage, for administrators.
    const onOther = (await t.get('/api/v4/projects', { ...admin, query: { repository_storage: 'other', per_page: '100' } })).json() as { id: number }[];
    assert.ok(onOther.some((p) => p.id === project.id));
    const onDefault = (await t.get('/api/v4/projects', { ...admin, query: { repository_storage: 'default', per_page: '100' } })).json() as { id: number }[];
    assert.ok(!onDefault.some((p) => p.id === project.id));
  });

  test('lists: newest first, paginated; one project’s; an unknown move is 404', async () => {
    const again = await scheduleMove(project, 'default');
    await runJobs();
    const all = await t.get('/api/v4/project_repository_storage_moves', { ...admin, query: { per_page: '1' } });
    expectStatus(all, 200);
    expectEntities(all.json(), ProjectStorageMoveEntity);
    assert.equal(all.json()[0].id, again.id);
    assert.equal(all.headers['x-total'], String(await t.count('project_repository_storage_moves')));
    const mine = (await t.get(`/api/v4/projects/${project.id}/repository_storage_moves`, admin)).json() as { id: number; state: string }[];
    assert.deepEqual(mine.map((m) => m.state), ['finished', 'finished']);
    expectError(await t.get('/api/v4/project_repository_storage_moves/999999', admin), 404, { message: '404 Not found' });
    const other = await newProject();
    expectError(await t.get(`/api/v4/projects/${other.id}/repository_storage_moves/${again.id}`, admin), 404, { message: '404 Not found' });
    assert.equal((await row(project.id)).repository_storage, 'default');
  });

  test('without a destination, one is chosen by the storages’ weights, never the source', async () => {
    const pick = (weights: Record<string, number>, storages: string[], random: number, except?: string) =>
      chooseRepositoryStorage({ repository_storages_weighted: weights }, storages, random, except);
    assert.equal(pick({ default: 100, other: 0, third: 5 }, ['default', 'other', 'third'], 0.99, 'default'), 'third');
    assert.equal(pick({ default: 100 }, ['default', 'other'], 0.5, 'default'), 'other');
    assert.equal(pick({ default: 100 }, ['default'], 0.5, 'default'), 'default');
    const picks = [0, 0.24, 0.25, 0.99].map((roll) => pick({ a: 10, b: 30, c: 0 }, ['a', 'b', 'c'], roll));
    assert.deepEqual(picks, ['a', 'a', 'b', 'b']);
    const move = await scheduleMove(project);
    assert.ok(['other', 'broken'].includes((await moveRow(move.id)).destination_storage_name));
    await runJobs(3);
    assert.equal((await row(project.id)).repository_read_only, false);
  });
});

describe('cut short, failed, resumed', () => {
  /** A move to `other` as a worker that died right after the switch's transaction leaves it. */
  async function switchedButNotCleanedUp() {
    const project = await newProject();
    const move = await scheduleMove(project, 'other');
    const source = repositoryPath(storageDir('default'), project.id);
    await copyRepository(project.id, storageDir('default'), storageDir('other'));
    await t.deps.db.updateTable('projects').set({ repository_storage: 'other', repository_read_only: false }).where('id', '=', project.id).execute();
    await t.deps.db.updateTable('project_repository_storage_moves').set({ state: MOVE_STATE.replicated }).where('id', '=', move.id).execute();
    return { project, move, source };
  }

  test('a move cut short while copying resumes and finishes', async () => {
    const project = await newProject();
    const move = await scheduleMove(project, 'other');
    // As if a worker died mid-copy: started, half a repository at the destination.
    await t.deps.db.updateTable('project_repository_storage_moves').set({ state: MOVE_STATE.started }).where('id', '=', move.id).execute();
    const destination = repositoryPath(storageDir('other'), project.id);
    fs.mkdirSync(path.join(destination, 'objects'), { recursive: true });
    fs.writeFileSync(path.join(destination, 'HEAD'), 'garbage');
    const refs = await refsChecksum(repositoryPath(storageDir('default'), project.id));
    await runJobs();
    assert.equal((await moveRow(move.id)).state, MOVE_STATE.finished);
    assert.equal(await refsChecksum(destination), refs);
    assert.equal((await row(project.id)).repository_storage, 'other');
  });

  test('a move cut short after the switch removes the original when it runs again', async () => {
    const { move, source } = await switchedButNotCleanedUp();
    await runJobs();
    assert.equal((await moveRow(move.id)).state, MOVE_STATE.finished);
    assert.equal(repositoryExists(source), false);
  });

  test('a write that reached the original after the copy keeps it: cleanup failed, nothing lost', async () => {
    const { project, move, source } = await switchedButNotCleanedUp();
    const [main] = await listRefs(source);
    fs.writeFileSync(path.join(source, 'refs', 'heads', 'late'), `${main.target}\n`);
    await runJobs();
    const failed = (await t.get(`/api/v4/project_repository_storage_moves/${move.id}`, admin)).json();
    expectEntity(failed, ProjectStorageMoveEntity);
    assert.equal(failed.state, 'cleanup failed');
    assert.match(failed.error_message, /changed after it was copied/);
    assert.equal(repositoryExists(source), true);
    assert.equal((await row(project.id)).repository_read_only, false);
  });

  test('a move that cannot copy fails cleanly: the project stays where it was, writable', async () => {
    const project = await newProject();
    const move = await scheduleMove(project, 'broken');
    const outcomes = await runJobs(3);
    assert.deepEqual(outcomes.map((o) => o.ok), [false, false, false]);
    const failed = (await t.get(`/api/v4/project_repository_storage_moves/${move.id}`, admin)).json();
    assert.equal(failed.state, 'failed');
    assert.equal(typeof failed.error_message, 'string');
    const after = await row(project.id);
    assert.equal(after.repository_storage, 'default');
    assert.equal(after.repository_read_only, false);
    const source = repositoryPath(storageDir('default'), project.id);
    assert.equal(fs.existsSync(path.join(source, READ_ONLY_MARKER)), false);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/repository/branches`, { token: developer.token, body: { branch: 'still-writable', ref: 'main' } }), 201);
  });

  test('a move to the storage the project is on fails at once', async () => {
    const project = await newProject();
    const move = await scheduleMove(project, 'default');
    await runJobs();
    const failed = await moveRow(move.id);
    assert.equal(failed.state, MOVE_STATE.failed);
    assert.equal(failed.error_message, 'the source and destination storages are the same');
    assert.equal((await row(project.id)).repository_read_only, false);
    assert.equal(repositoryExists(repositoryPath(storageDir('default'), project.id)), true);
  });
});

describe('bulk moves', () => {
  test('every writable project of the source storage is scheduled, then moved', async () => {
    const [a, b] = [await newProject(), await newProject()];
    await t.post(`/api/v4/projects/${b.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } });
    const res = await t.post('/api/v4/project_repository_storage_moves', { ...admin, body: { source_storage_name: 'default', destination_storage_name: 'other' } });
    expectStatus(res, 202);
    assert.deepEqual(res.json(), { message: '202 Accepted' });
    await runJobs(3);
    for (const project of [a, b]) assert.equal((await row(project.id)).repository_storage, 'other');
    const remaining = (await t.get('/api/v4/projects', { ...admin, query: { repository_storage: 'default' } })).json() as unknown[];
    assert.equal(remaining.length, 0);
    const moves = (await t.get(`/api/v4/projects/${b.id}/repository_storage_moves`, admin)).json() as { state: string }[];
    assert.deepEqual(moves.map((m) => m.state), ['finished']);
  });

  test('groups have no repositories yet, and this instance no snippet: a bulk move finds nothing to move', async () => {
    for (const kind of ['group', 'snippet']) {
      const res = await t.post(`/api/v4/${kind}_repository_storage_moves`, { ...admin, body: { source_storage_name: 'default', destination_storage_name: 'other' } });
      expectStatus(res, 202);
      await runJobs();
    }
    assert.deepEqual((await t.get('/api/v4/snippet_repository_storage_moves', admin)).json(), []);
    expectError(await t.get('/api/v4/snippet_repository_storage_moves/1', admin), 404, { message: '404 Not found' });
    expectError(await t.get('/api/v4/snippets/1/repository_storage_moves', admin), 404, { message: '404 Snippet Not Found' });
    expectError(await t.post('/api/v4/snippets/1/repository_storage_moves', { ...admin, body: {} }), 404, { message: '404 Snippet Not Found' });
  });

  test('one group’s move is recorded and finishes with nothing to copy', async () => {
    const group = await createGroup(t);
    const res = await t.post(`/api/v4/groups/${group.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } });
    expectStatus(res, 201);
    expectEntity(res.json(), GroupStorageMoveEntity);
    assert.equal(res.json().state, 'scheduled');
    assert.deepEqual(res.json().group, { id: group.id, web_url: `${host}/groups/${group.full_path}`, name: group.name });
    await runJobs();
    const done = (await t.get(`/api/v4/groups/${group.id}/repository_storage_moves/${res.json().id}`, admin)).json();
    expectEntity(done, GroupStorageMoveEntity);
    assert.equal(done.state, 'finished');
    const listed = (await t.get('/api/v4/group_repository_storage_moves', admin)).json();
    expectEntities(listed, GroupStorageMoveEntity);
    assert.equal(listed[0].id, done.id);
    expectError(await t.post(`/api/v4/groups/${group.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'nowhere' } }), 400, {
      message: { destination_storage_name: ['is not included in the list'] },
    });
  });
});

describe('pushes racing a move', () => {
  test('refused while read-only, accepted after, nothing lost', async () => {
    const project = await newProject();
    const url = gitUrl(host, project.full_path, { login: developer.user.username, password: developer.token });
    const pushers = await Promise.all(
      [0, 1].map(async (i) => {
        const dir = path.join(git.root, `racer-${project.id}-${i}`);
        await git.ok(['clone', '--quiet', url, dir]);
        await git.ok(['checkout', '-q', '-b', `racer-${i}`], dir);
        return { i, dir, accepted: 0, refused: 0, acceptedAfterMove: 0, commits: [] as string[] };
      }),
    );
    let moveDone = false;
    let stop = false;
    const unexpected: string[] = [];
    const refusals: string[] = [];
    const race = pushers.map(async (p) => {
      let n = 0;
      while (!stop) {
        p.commits.push(await git.commit(p.dir, `file-${p.i}-${++n}.txt`, `${n}\n`, `commit ${n} of racer ${p.i}`));
        const result = await git.run(['push', '--quiet', 'origin', `racer-${p.i}`], p.dir);
        if (result.code === 0) {
          p.accepted += 1;
          if (moveDone) p.acceptedAfterMove += 1;
          // Refused by the access check (before receive-pack, which git reports as the HTTP status
          // of its second request) or by pre-receive, which shows the message.
        } else if (result.stderr.includes(REPOSITORY_READ_ONLY_MESSAGE) || result.stderr.includes('HTTP 403')) {
          p.refused += 1;
          refusals.push(result.stderr);
          // As a client told to try again later does.
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        else unexpected.push(result.stderr);
      }
    });
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    try {
      await until(() => pushers.every((p) => p.accepted >= 2));
      const move = await scheduleMove(await row(project.id), 'other');
      await until(() => pushers.every((p) => p.refused >= 1));
      await runJobs();
      assert.equal((await moveRow(move.id)).state, MOVE_STATE.finished);
      moveDone = true;
      await until(() => pushers.every((p) => p.acceptedAfterMove >= 2));
    } finally {
      stop = true;
      await Promise.all(race);
    }
    assert.deepEqual(unexpected, []);
    assert.ok(refusals.some((stderr) => stderr.includes(`remote: ${REPOSITORY_READ_ONLY_MESSAGE}`)), 'git shows the message');
    // Whatever was refused went with the next push that was accepted: every commit is there.
    for (const p of pushers) {
      const last = await git.run(['push', '--quiet', 'origin', `racer-${p.i}`], p.dir);
      assert.equal(last.code, 0, last.stderr);
    }
    const destination = repositoryPath(storageDir('other'), project.id);
    const refs = new Map((await listRefs(destination)).map((r) => [r.name, r.target]));
    for (const p of pushers) {
      assert.equal(refs.get(`racer-${p.i}`), p.commits[p.commits.length - 1]);
      const log = await git.ok(['log', '--format=%H', `origin/racer-${p.i}`], p.dir);
      for (const commit of p.commits) assert.ok(log.includes(commit), `commit ${commit} of racer ${p.i} is kept`);
    }
    assert.equal(repositoryExists(repositoryPath(storageDir('default'), project.id)), false);
  });
});
