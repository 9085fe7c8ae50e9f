// Writes made through the API (and by background jobs) race storage moves as pushes do: each holds
// a push lease while it writes git, so a move that begins meanwhile waits for it before it copies,
// and a write that comes once the move has made the repository read-only is refused with the
// platform's message. Deterministic: a write is held inside git (a reference-transaction hook in
// the repository waits for the test to let it go) while it holds its lease; the move is seen
// waiting at `started`, the write lands, and the moved repository has it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unprotectDefaultBranch } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectError, expectStatus } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { beginPush, pushesUnderWay, waitForPushes, withRepositoryWrite } from '../../domain/push-leases.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import { resolveRef } from '../../git/refs.ts';
import { projectWikiRelativePath, repositoryPath, snippetRepositoryPath } from '../../git/repository.ts';

let t: TestApp;
let developer: TestUser;

before(async () => {
  t = await createTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories' });
  developer = await t.user();
});
after(() => t.close());

const admin = { token: ROOT_TOKEN };
const storageDir = (name: string) => t.deps.config.repositoryStorages[name];
const projectRow = (id: number) => t.deps.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leasesOn = (key: string) => t.deps.db.selectFrom('push_leases').select('id').where('repository', '=', key).execute();

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

/** A project with a README commit (main unprotected), the developer a maintainer. */
async function newProject(): Promise<ProjectRow> {
  const res = await t.post('/api/v4/projects', { ...admin, body: { name: `writing-${randomBytes(3).toString('hex')}`, initialize_with_readme: true } });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  expectStatus(await t.post(`/api/v4/projects/${res.json().id}/members`, { ...admin, body: { user_id: developer.user.id, access_level: 40 } }), 201);
  await t.runJobs();
  return projectRow(res.json().id);
}

interface Gate {
  /** Resolves once a ref transaction in the repository is held. */
  entered(): Promise<void>;
  /** Lets held (and later) ref transactions go on, and removes the hook. */
  open(): void;
}

/**
 * Holds the next ref transactions in the repository at `gitDir` inside git (its
 * reference-transaction hook, at `prepared`) until the gate opens: the writer is then between
 * taking its lease and releasing it, for as long as the test wants.
 */
function holdRefWrites(gitDir: string): Gate {
  const gate = path.join(t.deps.config.dataDir, `gate-${randomBytes(4).toString('hex')}`);
  const hooks = path.join(gitDir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  const hook = path.join(hooks, 'reference-transaction');
  fs.writeFileSync(
    hook,
    // It gives up (and the write fails) after a minute or once the test's data is gone, so that a
    // test that fails or is killed leaves no hook waiting forever.
    `#!/bin/sh\ncat >/dev/null\n[ "$1" = prepared ] || exit 0\ntouch '${gate}.entered'\nn=0\nwhile [ ! -e '${gate}.open' ]; do\n  n=$((n + 1)); [ $n -le 3000 ] && [ -d '${path.dirname(gate)}' ] || exit 1\n  sleep 0.02\ndone\n`,
    { mode: 0o755 },
  );
  return {
    entered: () => until('a ref transaction is held', async () => fs.existsSync(`${gate}.entered`)),
    open() {
      fs.writeFileSync(`${gate}.open`, '');
      fs.rmSync(hook, { force: true });
    },
  };
}

type MoveTable = 'project_repository_storage_moves' | 'snippet_repository_storage_moves';
const moveState = async (table: MoveTable, id: number) => (await t.deps.db.selectFrom(table).select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;

/**
 * Holds the write `start` begins inside git (gate), schedules a move and runs it: the move waits
 * at `started` while the write holds its lease, writes begun meanwhile are refused (`refused`),
 * and once the gate opens the write answers `status` and the move finishes. Returns the write's
 * answer.
 */
async function moveDuringWrite(options: {
  gate: Gate;
  start: () => ReturnType<TestApp['post']>;
  status: number;
  lease: string;
  schedule: string;
  table: MoveTable;
  refused?: () => Promise<void>;
}) {
  const write = options.start();
  await options.gate.entered();
  // The write holds its lease while git runs.
  assert.equal((await leasesOn(options.lease)).length, 1);
  const scheduled = await t.post(options.schedule, { ...admin, body: { destination_storage_name: 'other' } });
  expectStatus(scheduled, 201);
  const moveId = scheduled.json().id as number;
  const running = t.runJobs();
  let answer: Awaited<ReturnType<TestApp['post']>>;
  try {
    await until('the move has started', async () => (await moveState(options.table, moveId)) === MOVE_STATE.started);
    await options.refused?.();
    // However long the write takes, the move does not copy before it ends.
    await sleep(500);
    assert.equal(await moveState(options.table, moveId), MOVE_STATE.started, 'the move waits for the write');
  } finally {
    // Once the write's lease is gone the move may copy, switch and remove the original before
    // the write has read back what it answers with (it found the repository there): a lease row of
    // the test's keeps the original until the answer is in.
    const now = new Date();
    await t.deps.db.insertInto('push_leases').values({ repository: options.lease, node: 'test~answer', expires_at: new Date(now.getTime() + 60_000).toISOString(), created_at: now.toISOString() }).execute();
    options.gate.open();
    answer = await write.finally(() => t.deps.db.deleteFrom('push_leases').where('node', '=', 'test~answer').execute());
  }
  expectStatus(answer, options.status);
  await running;
  assert.equal(await moveState(options.table, moveId), MOVE_STATE.finished);
  assert.equal((await leasesOn(options.lease)).length, 0);
  return answer;
}

describe('an API write under way when a move begins is waited for, and lands in the moved repository', () => {
  test("a commit to a project's repository; a branch and a tag begun meanwhile are refused", async () => {
    const project = await newProject();
    const source = repositoryPath(storageDir('default'), project.id);
    const url = `/api/v4/projects/${project.id}/repository`;
    const answer = await moveDuringWrite({
      gate: holdRefWrites(source),
      start: () =>
        t.post(`${url}/commits`, {
          token: developer.token,
          body: { branch: 'main', commit_message: 'during the move', actions: [{ action: 'create', file_path: 'during.txt', content: 'kept' }] },
        }),
      status: 201,
      lease: `project:${project.id}`,
      schedule: `/api/v4/projects/${project.id}/repository_storage_moves`,
      table: 'project_repository_storage_moves',
      refused: async () => {
        expectError(await t.post(`${url}/branches`, { token: developer.token, body: { branch: 'late', ref: 'main' } }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
        expectError(await t.post(`${url}/tags`, { token: developer.token, body: { tag_name: 'late', ref: 'main' } }), 405, { message: REPOSITORY_READ_ONLY_MESSAGE });
        expectError(await t.post(`${url}/files/late.txt`, { token: developer.token, body: { branch: 'main', content: 'x', commit_message: 'late' } }), 400, {
          message: REPOSITORY_READ_ONLY_MESSAGE,
        });
      },
    });
    const moved = await projectRow(project.id);
    assert.equal(moved.repository_storage, 'other');
    const destination = repositoryPath(storageDir('other'), project.id);
    assert.equal(await resolveRef(destination, 'refs/heads/main'), answer.json().id);
    assert.equal(await resolveRef(destination, 'refs/heads/late'), null);
    assert.equal(await resolveRef(destination, 'refs/tags/late'), null);
    const file = await t.get(`${url}/files/during.txt/raw?ref=main`, { token: developer.token });
    expectStatus(file, 200);
    assert.equal(file.body, 'kept');
    // The push event of the commit was recorded once.
    expectStatus(await t.post(`${url}/branches`, { token: developer.token, body: { branch: 'after', ref: 'main' } }), 201);
  });

  test('a branch created through the API', async () => {
    const project = await newProject();
    await moveDuringWrite({
      gate: holdRefWrites(repositoryPath(storageDir('default'), project.id)),
      start: () => t.post(`/api/v4/projects/${project.id}/repository/branches`, { token: developer.token, body: { branch: 'held', ref: 'main' } }),
      status: 201,
      lease: `project:${project.id}`,
      schedule: `/api/v4/projects/${project.id}/repository_storage_moves`,
      table: 'project_repository_storage_moves',
    });
    const destination = repositoryPath(storageDir('other'), project.id);
    assert.equal(await resolveRef(destination, 'refs/heads/held'), await resolveRef(destination, 'refs/heads/main'));
  });

  test("a page of a project's wiki (its move moves the wiki); another page begun meanwhile is refused", async () => {
    const project = await newProject();
    const wikis = `/api/v4/projects/${project.id}/wikis`;
    expectStatus(await t.post(wikis, { token: developer.token, body: { title: 'home', content: 'first' } }), 201);
    await moveDuringWrite({
      gate: holdRefWrites(path.join(storageDir('default'), projectWikiRelativePath(project.id))),
      start: () => t.put(`${wikis}/home`, { token: developer.token, body: { content: 'written during the move' } }),
      status: 200,
      lease: `project_wiki:${project.id}`,
      schedule: `/api/v4/projects/${project.id}/repository_storage_moves`,
      table: 'project_repository_storage_moves',
      refused: async () => {
        expectError(await t.post(wikis, { token: developer.token, body: { title: 'late', content: 'x' } }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
      },
    });
    assert.equal((await projectRow(project.id)).repository_storage, 'other');
    const page = await t.get(`${wikis}/home`, { token: developer.token });
    expectStatus(page, 200);
    assert.equal(page.json().content, 'written during the move');
    expectError(await t.get(`${wikis}/late`, { token: developer.token }), 404, { message: '404 Wiki Page Not Found' });
  });

  test("a snippet's file; another change begun meanwhile is refused", async () => {
    const created = await t.post('/api/v4/snippets', { token: developer.token, body: { title: 'Moving', file_name: 'm.txt', content: 'before', visibility: 'private' } });
    expectStatus(created, 201);
    const id = created.json().id as number;
    const refused = async () => {
      expectError(await t.put(`/api/v4/snippets/${id}`, { token: developer.token, body: { content: 'late' } }), 400, { message: { error: REPOSITORY_READ_ONLY_MESSAGE } });
    };
    if (process.env.DATABASE_URL) {
      // A change held inside git holds the snippet's lease (on SQLite, its transaction holds the
      // one connection, so nothing else could look meanwhile).
      const gate = holdRefWrites(snippetRepositoryPath(storageDir('default'), id));
      const write = t.put(`/api/v4/snippets/${id}`, { token: developer.token, body: { content: 'held' } });
      await gate.entered();
      assert.equal((await leasesOn(`snippet:${id}`)).length, 1);
      gate.open();
      expectStatus(await write, 200);
      assert.equal((await leasesOn(`snippet:${id}`)).length, 0);
    }
    // That change commits as the last step of a transaction that holds the snippet's row: a move
    // cannot even be scheduled while one is held inside git. A lease held by the test, as the
    // change holds it, stands for it.
    const lease = await beginPush(t.deps, { kind: 'snippet', id });
    assert.ok(lease);
    const scheduled = await t.post(`/api/v4/snippets/${id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } });
    expectStatus(scheduled, 201);
    const running = t.runJobs();
    try {
      await until('the move has started', async () => (await moveState('snippet_repository_storage_moves', scheduled.json().id)) === MOVE_STATE.started);
      await refused();
      await sleep(300);
      assert.equal(await moveState('snippet_repository_storage_moves', scheduled.json().id), MOVE_STATE.started);
    } finally {
      await lease.release();
    }
    await running;
    assert.equal(await moveState('snippet_repository_storage_moves', scheduled.json().id), MOVE_STATE.finished);
    expectStatus(await t.put(`/api/v4/snippets/${id}`, { token: developer.token, body: { content: 'during' } }), 200);
    const row = await t.deps.db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.repository_storage, 'other');
    assert.equal(row.repository_read_only, false);
    const raw = await t.get(`/api/v4/snippets/${id}/raw`, { token: developer.token });
    expectStatus(raw, 200);
    assert.equal(raw.body, 'during');
  });
});

describe('the lease an API write takes', () => {
  test('a move waits for a lease held in the test, and then refuses the writes that come', async () => {
    const project = await newProject();
    const lease = await beginPush(t.deps, { kind: 'project', id: project.id });
    assert.ok(lease);
    const scheduled = await t.post(`/api/v4/projects/${project.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } });
    expectStatus(scheduled, 201);
    const running = t.runJobs();
    try {
      await until('the move has started', async () => (await moveState('project_repository_storage_moves', scheduled.json().id)) === MOVE_STATE.started);
      const commit = { branch: 'main', commit_message: 'late', actions: [{ action: 'create', file_path: 'late.txt', content: 'x' }] };
      expectError(await t.post(`/api/v4/projects/${project.id}/repository/commits`, { token: developer.token, body: commit }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
      await sleep(300);
      assert.equal(await moveState('project_repository_storage_moves', scheduled.json().id), MOVE_STATE.started);
    } finally {
      await lease.release();
    }
    await running;
    assert.equal(await moveState('project_repository_storage_moves', scheduled.json().id), MOVE_STATE.finished);
  });

  test('withRepositoryWrite: counted while the write runs, released when it throws, refused when read-only or moved', async () => {
    const project = await newProject();
    const repository = { kind: 'project', id: project.id, storage: project.repository_storage } as const;
    let inside = -1;
    await withRepositoryWrite(t.deps, repository, async () => {
      inside = await pushesUnderWay(t.deps, [repository]);
    });
    assert.equal(inside, 1);
    await assert.rejects(
      withRepositoryWrite(t.deps, repository, async () => {
        throw new Error('git failed');
      }),
      /git failed/,
    );
    assert.equal(await pushesUnderWay(t.deps, [repository]), 0);
    // waitForPushes returns once the write is over.
    let finish: () => void = () => {};
    const held = withRepositoryWrite(t.deps, repository, () => new Promise<void>((resolve) => (finish = resolve)));
    await until('the lease is taken', async () => (await pushesUnderWay(t.deps, [repository])) === 1);
    let waited = false;
    const waiting = waitForPushes(t.deps, [repository], 30_000).then(() => (waited = true));
    await sleep(200);
    assert.equal(waited, false);
    finish();
    await held;
    await waiting;
    assert.equal(waited, true);

    const refusedWith = async (expected: { status: number; message: string }, custom?: () => Error) => {
      let ran = false;
      await assert.rejects(
        withRepositoryWrite(t.deps, repository, async () => void (ran = true), custom),
        (error: Error & { status?: number }) => error.message === expected.message && error.status === expected.status,
      );
      assert.equal(ran, false);
      assert.equal(await pushesUnderWay(t.deps, [repository]), 0);
    };
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    await refusedWith({ status: 400, message: REPOSITORY_READ_ONLY_MESSAGE });
    await t.deps.db.updateTable('projects').set({ repository_read_only: false, repository_storage: 'other' }).where('id', '=', project.id).execute();
    // A writer that found the repository on the storage it has left would write the original.
    await refusedWith({ status: 400, message: REPOSITORY_READ_ONLY_MESSAGE });
    await t.deps.db.updateTable('projects').set({ repository_storage: 'default' }).where('id', '=', project.id).execute();
    await assert.rejects(t.deps.db.transaction().execute((trx) => withRepositoryWrite({ ...t.deps, db: trx }, repository, async () => {})), /outside a transaction/);
  });
});

describe('background writes while a move holds the repository', () => {
  test('a rebase is retried by the queue, not lost, and lands once the move is over', async () => {
    const project = await newProject();
    const url = `/api/v4/projects/${project.id}`;
    const commit = (branch: string, file: string, start?: string) =>
      t.post(`${url}/repository/commits`, {
        token: developer.token,
        body: { branch, ...(start ? { start_branch: start } : {}), commit_message: file, actions: [{ action: 'create', file_path: file, content: file }] },
      });
    expectStatus(await commit('topic', 'topic.txt', 'main'), 201);
    expectStatus(await commit('main', 'main.txt'), 201);
    const mr = await t.post(`${url}/merge_requests`, { token: developer.token, body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' } });
    expectStatus(mr, 201);
    await t.runJobs();
    const dir = repositoryPath(storageDir('default'), project.id);
    const topicBefore = await resolveRef(dir, 'refs/heads/topic');
    // The move holds the repository (scheduled, not yet run): the rebase job is refused its lease.
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    expectStatus(await t.put(`${url}/merge_requests/${mr.json().iid}/rebase`, { token: developer.token }), 202);
    const outcomes = await t.runJobs();
    assert.ok(outcomes.some((o) => o.kind === 'merge_requests.rebase' && !o.ok), 'the rebase failed this attempt');
    assert.equal(await resolveRef(dir, 'refs/heads/topic'), topicBefore);
    const waiting = await t.deps.db.selectFrom('background_jobs').select(['state', 'last_error']).where('kind', '=', 'merge_requests.rebase').executeTakeFirstOrThrow();
    assert.equal(waiting.state, 'queued');
    assert.match(waiting.last_error ?? '', /temporarily read-only/);
    const during = (await t.get(`${url}/merge_requests/${mr.json().iid}?include_rebase_in_progress=true`, { token: developer.token })).json();
    assert.equal(during.rebase_in_progress, true);
    // The move is over: the retry rebases.
    await t.deps.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', project.id).execute();
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date(0).toISOString() }).where('kind', '=', 'merge_requests.rebase').execute();
    await t.runJobs();
    const topicAfter = await resolveRef(dir, 'refs/heads/topic');
    assert.notEqual(topicAfter, topicBefore);
    const done = (await t.get(`${url}/merge_requests/${mr.json().iid}?include_rebase_in_progress=true`, { token: developer.token })).json();
    assert.equal(done.rebase_in_progress, false);
    assert.equal(done.merge_error, null);
  });
});
