// Storage moves wait for the pushes under way on every node sharing the database, not only on the
// node that runs the move: two app instances on one database and one set of repository storages,
// each with a data directory of its own. A push held open on one node (git receive-pack waiting
// for the client's commands) keeps a move run by the other from copying until it ends; a lease
// whose node died (expired) holds nothing.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createGroup } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';

let a: TestApp;
let b: TestApp;
let hostA: string;
let author: TestUser;

before(async () => {
  ({ t: a, host: hostA } = await listeningTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories' }));
  b = await createTestApp({}, { nodeOf: a });
  author = await a.user({ username: 'author' });
});
after(async () => {
  await b.close();
  await a.close();
});

interface HeldPush {
  /** Sends the end of the client's commands (none), and resolves with the answer's status once the push is over. */
  finish(): Promise<number>;
}

/** Starts a push over HTTP to node A and holds it open before its commands: git receive-pack runs and waits. */
async function holdPush(repository: string, user: TestUser): Promise<HeldPush> {
  const leasesBefore = await a.count('push_leases');
  let answered: (status: number) => void;
  const status = new Promise<number>((resolve) => (answered = resolve));
  const req = http.request(`${hostA}/${repository}.git/git-receive-pack`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-receive-pack-request',
      authorization: `Basic ${Buffer.from(`${user.user.username}:${user.token}`).toString('base64')}`,
      'transfer-encoding': 'chunked',
    },
  });
  req.on('response', (res) => {
    res.resume();
    res.on('end', () => answered(res.statusCode ?? 0));
  });
  req.flushHeaders();
  // The push is under way once node A holds its lease.
  const deadline = Date.now() + 30_000;
  while ((await a.count('push_leases')) <= leasesBefore) {
    if (Date.now() > deadline) throw new Error(`node A took no lease for ${repository}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    finish() {
      req.end('0000');
      return status;
    },
  };
}

type MoveTable = 'project_repository_storage_moves' | 'snippet_repository_storage_moves' | 'group_repository_storage_moves';

const moveState = async (table: MoveTable, id: number) => (await b.deps.db.selectFrom(table).select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;

/**
 * Schedules a move through node B and runs it there while node A holds a push: the move waits
 * at `started` until the push ends, then finishes.
 */
async function moveDuringPush(push: HeldPush, schedule: string, table: MoveTable): Promise<void> {
  const res = await b.post(schedule, { token: ROOT_TOKEN, body: { destination_storage_name: 'other' } });
  assert.equal(res.statusCode, 201, res.body);
  const moveId = res.json().id as number;
  const running = b.runJobs();
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // A group's move records no `started`: it is still `scheduled` while it waits.
    assert.ok(([MOVE_STATE.scheduled, MOVE_STATE.started] as number[]).includes(await moveState(table, moveId)), 'the move waits for the push on the other node');
  } finally {
    assert.equal(await push.finish(), 200);
  }
  await running;
  assert.equal(await moveState(table, moveId), MOVE_STATE.finished);
  assert.equal(await a.count('push_leases'), 0);
}

describe('a move on one node waits for the pushes on another', () => {
  test("a project's repository", async () => {
    const res = await a.post('/api/v4/projects', { token: author.token, body: { name: 'held', initialize_with_readme: true } });
    assert.equal(res.statusCode, 201, res.body);
    const push = await holdPush(res.json().path_with_namespace, author);
    await moveDuringPush(push, `/api/v4/projects/${res.json().id}/repository_storage_moves`, 'project_repository_storage_moves');
  });

  test("a snippet's repository", async () => {
    const res = await a.post('/api/v4/snippets', { token: author.token, body: { title: 'Held', file_name: 'h.txt', content: 'h', visibility: 'private' } });
    assert.equal(res.statusCode, 201, res.body);
    const push = await holdPush(`snippets/${res.json().id}`, author);
    await moveDuringPush(push, `/api/v4/snippets/${res.json().id}/repository_storage_moves`, 'snippet_repository_storage_moves');
  });

  test("a group's wiki", async () => {
    const group = await createGroup(a, { path: 'wikigroup', members: [[author.user.id, 40]] });
    const push = await holdPush(`${group.full_path}.wiki`, author);
    await moveDuringPush(push, `/api/v4/groups/${group.id}/repository_storage_moves`, 'group_repository_storage_moves');
  });

  test('a lease whose node died holds nothing once it has expired', async () => {
    const res = await a.post('/api/v4/projects', { token: author.token, body: { name: 'orphaned', initialize_with_readme: true } });
    assert.equal(res.statusCode, 201, res.body);
    const past = new Date(Date.now() - 1000).toISOString();
    await a.deps.db.insertInto('push_leases').values({ repository: `project:${res.json().id}`, node: 'gone~1', expires_at: past, created_at: past }).execute();
    const move = await b.post(`/api/v4/projects/${res.json().id}/repository_storage_moves`, { token: ROOT_TOKEN, body: { destination_storage_name: 'other' } });
    assert.equal(move.statusCode, 201, move.body);
    await b.runJobs();
    assert.equal(await moveState('project_repository_storage_moves', move.json().id), MOVE_STATE.finished);
  });
});
