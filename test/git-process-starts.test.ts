// Which git processes a request starts, counted through the git observer: writes start the
// processes that write (objects, the index, refs) and nothing to read, reads start none once their
// repository's reader is open; the one kept on purpose (diff stats, once per commit) is named.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type GitObserver, gitObserver, observeGit } from '../src/git/observer.ts';
import { type TestApp, type TestUser, createTestApp } from './harness.ts';
import { expectStatus } from './matchers.ts';

let t: TestApp;
let owner: TestUser;
let projectId: number;
let previous: GitObserver | null;
const started: string[] = [];

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Counted', initialize_with_readme: true } });
  expectStatus(res, 201);
  projectId = res.json().id;
  await t.runJobs();
  previous = gitObserver();
  // Counts starts, and passes everything on to the observer already there (the metrics).
  observeGit({
    started: (subcommand) => {
      started.push(subcommand);
      previous?.started(subcommand);
    },
    ended: (subcommand, seconds, failure) => previous?.ended(subcommand, seconds, failure),
    readerRestarted: (reason) => previous?.readerRestarted(reason),
  });
});
after(async () => {
  observeGit(previous);
  await t.close();
});

/** The git subcommands started while `work` ran (a long-lived reader counts as `cat-file`). */
async function startsOf(work: () => Promise<unknown>): Promise<string[]> {
  started.length = 0;
  await work();
  return [...started];
}

const api = (suffix: string) => `/api/v4/projects/${projectId}/repository${suffix}`;
/** Subcommands that only write: objects, the private index of a commit, refs, HEAD. */
const WRITES = new Set(['hash-object', 'read-tree', 'update-index', 'write-tree', 'commit-tree', 'mktag', 'update-ref', 'symbolic-ref']);
const reads = (starts: readonly string[]) => starts.filter((s) => !WRITES.has(s) && s !== 'cat-file');

test('a branch made from the default branch head starts update-ref alone: its checks, its push data and its answer read without git', async () => {
  // The repository's reader opens on a first read; it stays open for the requests below.
  expectStatus(await t.get(api('/branches/main'), { token: owner.token }), 200);
  const starts = await startsOf(async () => expectStatus(await t.post(api('/branches'), { token: owner.token, body: { branch: 'feature', ref: 'main' } }), 201));
  assert.deepEqual(reads(starts), [], `started: ${starts.join(', ')}`);
  assert.ok(starts.includes('update-ref'));
});

test('a file committed through the files API starts only what writes the commit; the same through the commits API', async () => {
  const file = await startsOf(async () =>
    expectStatus(await t.post(api('/files/docs%2Fa.md'), { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'Add a' } }), 201),
  );
  assert.deepEqual(reads(file), [], `started: ${file.join(', ')}`);
  const update = await startsOf(async () =>
    expectStatus(await t.put(api('/files/docs%2Fa.md'), { token: owner.token, body: { branch: 'feature', content: 'b', commit_message: 'Change a' } }), 400),
  );
  assert.deepEqual(reads(update), [], `started: ${update.join(', ')}`);
  const commit = await startsOf(async () =>
    expectStatus(
      await t.post(api('/commits'), {
        token: owner.token,
        query: { stats: 'false' },
        body: { branch: 'main', commit_message: 'More\n\nSigned-off-by: Olga <olga@example.com>', actions: [{ action: 'create', file_path: 'b.md', content: 'b' }] },
      }),
      201,
    ),
  );
  assert.deepEqual(reads(commit).filter((s) => s !== 'diff-tree'), [], `started: ${commit.join(', ')}`);
});

test('a commit read with its trailers starts nothing; its diff stats start diff-tree once, then never again', async () => {
  const head = (await t.get(api('/branches/main'), { token: owner.token })).json().commit.id as string;
  const plain = await startsOf(async () => {
    const res = await t.get(api(`/commits/${head}`), { token: owner.token, query: { stats: 'false' } });
    expectStatus(res, 200);
    assert.deepEqual(res.json().trailers, { 'Signed-off-by': 'Olga <olga@example.com>' });
  });
  assert.deepEqual(plain, []);
  const first = await startsOf(async () => expectStatus(await t.get(api(`/commits/${head}`), { token: owner.token }), 200));
  assert.ok(first.every((s) => s === 'diff-tree'), `started: ${first.join(', ')}`);
  const again = await startsOf(async () => expectStatus(await t.get(api(`/commits/${head}`), { token: owner.token }), 200));
  assert.deepEqual(again, []);
});

test('a branch and a tag deleted, a tag made: only ref writes (and the tag object)', async () => {
  const tag = await startsOf(async () => expectStatus(await t.post(api('/tags'), { token: owner.token, body: { tag_name: 'v1', ref: 'main', message: 'One' } }), 201));
  assert.deepEqual(reads(tag), [], `started: ${tag.join(', ')}`);
  const gone = await startsOf(async () => {
    expectStatus(await t.del(api('/tags/v1'), { token: owner.token }), 204);
    expectStatus(await t.del(api('/branches/feature'), { token: owner.token }), 204);
  });
  assert.deepEqual(reads(gone), [], `started: ${gone.join(', ')}`);
});

test('the default branch of an archive is read from HEAD: one git archive process, nothing else', async () => {
  const starts = await startsOf(async () => expectStatus(await t.get(api('/archive.tar'), { token: owner.token }), 200));
  assert.deepEqual(starts, ['archive']);
});
