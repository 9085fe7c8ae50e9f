// Rebasing merge requests on real repositories: the 202 and the background job, a clean rebase
// (authors and messages kept, then a fast-forward merge), a conflict (merge_error, branch
// unchanged), skip_ci, who may ask (the push permission on the source branch), and the 409 while
// a rebase is under way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createProject } from '../../../test/factories.ts';
import { AUTHOR, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { updateProjectSettings } from '../../domain/settings/project-settings.ts';
import { createCommit, getCommit } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { MergeRequestEntity, RebaseEntity } from './merge-requests.schemas.ts';
import { REBASE_ERROR } from './rebase.ts';

let t: TestApp;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: ProjectRow;
let dir: string;

before(async () => {
  t = await createTestApp();
  developer = await t.user({ username: 'rb-dev', name: 'Dora Developer' });
  reporter = await t.user({ username: 'rb-rep' });
  stranger = await t.user({ username: 'rb-stranger' });
  project = await createProject(t, { visibility: 'public' });
  ({ dir } = await giveRepository(t, project));
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
});
after(() => t.close());

const base = () => `/api/v4/projects/${project.id}/merge_requests`;
const head = async (name: string) => (await resolveRef(dir, `refs/heads/${name}`)) as string;
const rebase = (iid: number, token = developer.token, body: Record<string, unknown> = {}) => t.put(`${base()}/${iid}/rebase`, { token, body });
const get = async (iid: number) => (await t.get(`${base()}/${iid}?include_rebase_in_progress=true`, { token: developer.token })).json();
const setMethod = (merge_method: 'merge' | 'ff' | 'rebase_merge') => updateProjectSettings(t.deps.db, project.id, { settings: { merge_method } });

let sequence = 0;
/** A commit writing `content` into `file` on `branch` (created from `from`). */
async function write(branch: string, file: string, content: string, options: { from?: string; message?: string; date?: Date } = {}): Promise<string> {
  const exists = (await t.get(`/api/v4/projects/${project.id}/repository/files/${encodeURIComponent(file)}?ref=${options.from ?? branch}`, { token: ROOT_TOKEN })).statusCode === 200;
  const made = await createCommit(dir, {
    branch,
    startRevision: options.from,
    actions: [{ action: exists ? 'update' : 'create', path: file, content }],
    message: options.message ?? `Write ${file}`,
    author: AUTHOR,
    date: options.date,
  });
  return made.id;
}

/** A merge request whose branch has two commits of its own, behind main by one commit (on `mainFile`). */
async function behindMain(branchFile: string, mainFile: string): Promise<{ iid: number; source: string }> {
  const source = `rebase-${++sequence}`;
  await write(source, branchFile, 'one\n', { from: 'main', message: 'First change\n\nWith a body.\n', date: new Date('2020-01-02T03:04:05Z') });
  await write(source, `${branchFile}.more`, 'two\n', { message: 'Second change' });
  await write('main', mainFile, `main ${sequence}\n`);
  const res = await t.post(base(), { token: developer.token, body: { title: `Rebase ${sequence}`, source_branch: source, target_branch: 'main' } });
  expectStatus(res, 201);
  await t.runJobs();
  return { iid: res.json().iid, source };
}

describe('PUT /projects/:id/merge_requests/:iid/rebase', () => {
  test('rebases the source branch onto the target in the background, keeping authors and messages; a fast-forward merge then works', async () => {
    await setMethod('ff');
    const { iid, source } = await behindMain('feature.txt', 'upstream.txt');
    const before = await head(source);
    const oldCommits = [await getCommit(dir, before), await getCommit(dir, `${before}~1`)];
    expectError(await t.put(`${base()}/${iid}/merge`, { token: developer.token, body: {} }), 406, { message: 'Branch cannot be merged' });

    const res = await rebase(iid);
    expectStatus(res, 202);
    expectEntity(res.json(), RebaseEntity);
    assert.deepEqual(res.json(), { rebase_in_progress: true });
    const during = await get(iid);
    expectEntity(during, MergeRequestEntity);
    assert.equal(during.rebase_in_progress, true);

    await t.runJobs();
    const mr = await get(iid);
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.rebase_in_progress, false);
    assert.equal(mr.merge_error, null);
    const after = await head(source);
    assert.notEqual(after, before);
    assert.equal(mr.sha, after);
    const main = await head('main');
    assert.equal(mr.diff_refs.base_sha, main);
    const [second, first] = [await getCommit(dir, after), await getCommit(dir, `${after}~1`)];
    assert.deepEqual(first?.parents, [main]);
    for (const [rebased, old] of [[first, oldCommits[1]], [second, oldCommits[0]]]) {
      assert.equal(rebased?.message, old?.message);
      assert.deepEqual(rebased?.author, old?.author);
      assert.equal(rebased?.committer.name, 'Dora Developer');
    }
    assert.equal(first?.message, 'First change\n\nWith a body.\n');

    const merged = await t.put(`${base()}/${iid}/merge`, { token: developer.token, body: {} });
    expectStatus(merged, 200);
    assert.equal(merged.json().state, 'merged');
    assert.equal(await head('main'), after);
    await setMethod('merge');
  });

  test('with rebase_merge, the merge after a rebase makes a merge commit on a linear history', async () => {
    await setMethod('rebase_merge');
    const { iid, source } = await behindMain('semi.txt', 'semi-main.txt');
    expectStatus(await rebase(iid), 202);
    await t.runJobs();
    const rebased = await head(source);
    const merged = await t.put(`${base()}/${iid}/merge`, { token: developer.token, body: {} });
    expectStatus(merged, 200);
    const mergeCommit = await getCommit(dir, await head('main'));
    assert.equal(mergeCommit?.parents[1], rebased);
    await setMethod('merge');
  });

  test('a conflict leaves the branch as it was and sets the platform merge_error', async () => {
    const source = `conflict-${++sequence}`;
    await write(source, 'shared.txt', 'branch\n', { from: 'main' });
    const res = await t.post(base(), { token: developer.token, body: { title: 'Conflicting', source_branch: source, target_branch: 'main' } });
    expectStatus(res, 201);
    await write('main', 'shared.txt', 'main\n');
    await t.runJobs();
    const before = await head(source);
    expectStatus(await rebase(res.json().iid), 202);
    await t.runJobs();
    const mr = await get(res.json().iid);
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.rebase_in_progress, false);
    assert.equal(mr.merge_error, REBASE_ERROR);
    assert.equal(await head(source), before);
    // A later rebase is accepted again.
    expectStatus(await rebase(res.json().iid), 202);
    await t.runJobs();
  });

  test('a branch already on its target keeps its head', async () => {
    const source = `current-${++sequence}`;
    const sha = await write(source, `current-${sequence}.txt`, 'x\n', { from: 'main' });
    const res = await t.post(base(), { token: developer.token, body: { title: 'Current', source_branch: source, target_branch: 'main' } });
    expectStatus(await rebase(res.json().iid), 202);
    await t.runJobs();
    assert.equal(await head(source), sha);
    const mr = await get(res.json().iid);
    assert.equal(mr.rebase_in_progress, false);
    assert.equal(mr.merge_error, null);
  });

  test('409 while a rebase is under way, and for a merge request that is not open', async () => {
    const { iid } = await behindMain('busy.txt', 'busy-main.txt');
    expectStatus(await rebase(iid), 202);
    expectError(await rebase(iid), 409, { message: '409 Conflict: Resource lock' });
    await t.runJobs();
    expectStatus(await t.put(`${base()}/${iid}`, { token: developer.token, body: { state_event: 'close' } }), 200);
    expectError(await rebase(iid), 409, { message: '409 Conflict: Resource lock' });
  });

  test('skip_ci: the push of the rebased branch carries ci.skip, so its pipeline is skipped', async () => {
    const { iid, source } = await behindMain('skip.txt', 'skip-main.txt');
    const pipelineOf = (sha: string) => t.deps.db.selectFrom('ci_pipelines').select('status').where('project_id', '=', project.id).where('sha', '=', sha).executeTakeFirst();
    const before = await write(source, '.gitlab-ci.yml', 'test:\n  script: echo ok\n');
    await t.runJobs();
    // The change of refs that made this commit is not recorded as a push in this test; a push of it would run.
    expectStatus(await rebase(iid, developer.token, { skip_ci: true }), 202);
    await t.runJobs();
    const after = await head(source);
    assert.notEqual(after, before);
    assert.equal((await pipelineOf(after))?.status, 'skipped');
  });

  test('only callers who may push to the source branch', async () => {
    const { iid, source } = await behindMain('perm.txt', 'perm-main.txt');
    expectError(await rebase(iid, reporter.token), 403, { message: '403 Forbidden - Cannot push to source branch' });
    expectError(await rebase(iid, stranger.token), 403, { message: '403 Forbidden - Cannot push to source branch' });
    expectError(await t.put(`${base()}/${iid}/rebase`, { body: {} }), 401, { message: '401 Unauthorized' });
    expectError(await rebase(999_999), 404, { message: '404 Not found' });
    // A protected source branch that only maintainers may push to.
    expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: source, push_access_level: ACCESS.MAINTAINER, merge_access_level: ACCESS.MAINTAINER } }), 201);
    expectError(await rebase(iid), 403, { message: '403 Forbidden - Cannot push to source branch' });
    expectStatus(await rebase(iid, ROOT_TOKEN), 202);
    await t.runJobs();
    assert.equal((await get(iid)).merge_error, null);
    // A source branch that is gone.
    expectStatus(await t.del(`/api/v4/projects/${project.id}/protected_branches/${source}`, { token: ROOT_TOKEN }), 204);
    expectStatus(await t.del(`/api/v4/projects/${project.id}/repository/branches/${source}`, { token: developer.token }), 204);
    expectError(await rebase(iid), 403, { message: '403 Forbidden - Source branch does not exist' });
  });
});
