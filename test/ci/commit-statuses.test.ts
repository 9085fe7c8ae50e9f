// Commit statuses from external systems (14.x lib/api/commit_statuses.rb): posting one finds or
// makes the commit's pipeline, moves a live status along the job state machine or starts another,
// and the pipeline's status follows; a commit's statuses are listed, latest first unless all are
// asked for; who may read and post them; and what bad input gets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { systemContext } from '../../src/core/context.ts';
import { ACCESS } from '../../src/core/access/levels.ts';
import type { ProjectRow } from '../../src/db/schema.ts';
import { dropStuckJobs } from '../../src/modules/ci-jobs/ci-jobs.service.ts';
import { CommitStatusEntity } from '../../src/modules/commit-statuses/commit-statuses.schemas.ts';
import { CommitDetailEntity } from '../../src/modules/commits/commits.schemas.ts';
import { PipelineBasicEntity, PipelineEntity } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { type Expectation, type MatrixWorld, ROLE_LEVEL, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { addMember } from '../factories.ts';
import { giveRepository } from '../fixtures/repository.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;

before(async () => {
  t = await createTestApp();
  [owner, maintainer, developer, reporter, guest] = await Promise.all([t.user(), t.user(), t.user(), t.user(), t.user()]);
});
after(() => t.close());

interface Project {
  id: number;
  row: ProjectRow;
  /** The head of main (and of `feature`, made from it). */
  head: string;
}

/** A private project whose README commit is the head of main (protected) and of `feature`, with members of every role. */
async function project(body: Record<string, unknown> = {}): Promise<Project> {
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: `statuses-${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body } });
  expectStatus(created, 201);
  await t.runJobs();
  const row = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', created.json().id).executeTakeFirstOrThrow();
  for (const [member, level] of [[maintainer, ACCESS.MAINTAINER], [developer, ACCESS.DEVELOPER], [reporter, ACCESS.REPORTER], [guest, ACCESS.GUEST]] as const) {
    await addMember(t, row, member.user.id, level);
  }
  expectStatus(await t.post(`/api/v4/projects/${row.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } }), 201);
  const head = (await t.get(`/api/v4/projects/${row.id}/repository/commits/main`, { token: owner.token })).json().id as string;
  return { id: row.id, row, head };
}

/** Posts a status; as the developer unless another token is given. */
function post(p: { id: number }, sha: string, body: Record<string, unknown>, token = developer.token): Promise<LightMyRequestResponse> {
  return t.post(`/api/v4/projects/${p.id}/statuses/${encodeURIComponent(sha)}`, { token, body });
}

/** Lists a commit's statuses; as the reporter unless another token is given. */
function list(p: { id: number }, sha: string, query: Record<string, string> = {}, token = reporter.token): Promise<LightMyRequestResponse> {
  return t.get(`/api/v4/projects/${p.id}/repository/commits/${encodeURIComponent(sha)}/statuses`, { token, query });
}

/** Posts and expects a status: 201 and the strict entity. */
async function posted(p: { id: number }, sha: string, body: Record<string, unknown>, user: TestUser = developer) {
  const res = await post(p, sha, body, user.token);
  expectStatus(res, 201);
  expectEntity(res.json(), CommitStatusEntity);
  return res.json();
}

async function listed(p: { id: number }, sha: string, query: Record<string, string> = {}) {
  const res = await list(p, sha, query);
  expectStatus(res, 200);
  expectEntities(res.json(), CommitStatusEntity);
  return res;
}

async function pipelinesOf(p: { id: number }) {
  const res = await t.get(`/api/v4/projects/${p.id}/pipelines`, { token: owner.token });
  expectEntities(res.json(), PipelineBasicEntity);
  return res.json() as { id: number; status: string; ref: string; sha: string; source: string }[];
}

async function pipeline(p: { id: number }, id: number) {
  const res = await t.get(`/api/v4/projects/${p.id}/pipelines/${id}`, { token: owner.token });
  expectEntity(res.json(), PipelineEntity);
  return res.json();
}

const refused = (event: string, from: string) => ({ message: `Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")` });

describe('POST /projects/:id/statuses/:sha', () => {
  test('a first status makes an external pipeline on the first branch holding the commit; jobs lists leave it out', async () => {
    const p = await project();
    const status = await posted(p, p.head, { state: 'pending' });
    assert.deepEqual(
      { ...status, id: 0, created_at: '' },
      {
        id: 0, sha: p.head, ref: 'feature', status: 'pending', name: 'default', target_url: null, description: null, created_at: '',
        started_at: null, finished_at: null, allow_failure: false, coverage: null,
        author: { id: developer.user.id, username: developer.user.username, name: developer.user.name, state: 'active', avatar_url: null, web_url: `http://quarry.test/${developer.user.username}` },
      },
    );
    const [only, ...others] = await pipelinesOf(p);
    assert.deepEqual(others, []);
    assert.deepEqual([only.source, only.ref, only.sha, only.status], ['external', 'feature', p.head, 'pending']);
    const jobs = await t.get(`/api/v4/projects/${p.id}/pipelines/${only.id}/jobs`, { token: owner.token });
    assert.deepEqual(jobs.json(), []);
    const all = await t.get(`/api/v4/projects/${p.id}/jobs`, { token: owner.token });
    assert.deepEqual([all.json(), all.headers['x-total']], [[], '0']);
    expectError(await t.get(`/api/v4/projects/${p.id}/jobs/${status.id}`, { token: owner.token }), 404, { message: '404 Not Found' });
    // Any revision names the commit; `context` is the name when `name` is not given.
    const byBranch = await posted(p, 'feature', { state: 'running', context: 'ci/lint' });
    assert.deepEqual([byBranch.sha, byBranch.name, byBranch.ref], [p.head, 'ci/lint', 'feature']);
    assert.equal((await posted(p, p.head, { state: 'success', context: 'ignored', name: 'chosen' })).name, 'chosen');
    assert.equal((await pipelinesOf(p)).length, 1);
  });

  test('transitions: a live status moves on; what the state machine refuses is a 400 in its words', async () => {
    const p = await project();
    const pending = await posted(p, p.head, { state: 'pending', ref: 'feature' });
    expectError(await post(p, p.head, { state: 'pending', ref: 'feature' }), 400, refused('enqueue', 'pending'));
    const running = await posted(p, p.head, { state: 'running', ref: 'feature' });
    assert.equal(running.id, pending.id);
    assert.equal(running.status, 'running');
    assert.ok(running.started_at !== null && running.finished_at === null);
    expectError(await post(p, p.head, { state: 'running', ref: 'feature', description: 'again' }), 400, refused('run', 'running'));
    expectError(await post(p, p.head, { state: 'pending', ref: 'feature' }), 400, refused('enqueue', 'running'));
    const done = await posted(p, p.head, { state: 'success', ref: 'feature' });
    assert.deepEqual([done.id, done.status, done.description], [pending.id, 'success', null]);
    assert.ok(done.finished_at !== null);
    // A finished status is not live: the next one of its name is a new status, and the old one is retried.
    const again = await posted(p, p.head, { state: 'failed', ref: 'feature' });
    assert.notEqual(again.id, pending.id);
    assert.deepEqual((await listed(p, p.head)).json().map((s: { id: number }) => s.id), [again.id]);
    assert.deepEqual((await listed(p, p.head, { all: 'true' })).json().map((s: { id: number; status: string }) => [s.id, s.status]), [[pending.id, 'success'], [again.id, 'failed']]);
    const row = await t.deps.db.selectFrom('ci_builds').select(['failure_reason', 'type', 'stage', 'stage_idx']).where('id', '=', again.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { failure_reason: 'api_failure', type: 'generic', stage: 'external', stage_idx: 1_000_000 });
    // Every state from nothing, each a status of its own.
    for (const state of ['running', 'success', 'failed', 'canceled']) {
      const fresh = await posted(p, p.head, { state, name: `fresh-${state}`, ref: 'feature' });
      assert.equal(fresh.status, state);
    }
    // Another author's status of the same name is another status.
    const mine = await posted(p, p.head, { state: 'running', name: 'shared', ref: 'feature' });
    const theirs = await posted(p, p.head, { state: 'running', name: 'shared', ref: 'feature' }, maintainer);
    assert.notEqual(mine.id, theirs.id);
    assert.equal(theirs.author.id, maintainer.user.id);
  });

  test('the pipeline\'s status follows its statuses (composite status, processed at once)', async () => {
    const p = await project();
    await posted(p, p.head, { state: 'pending', name: 'a', ref: 'feature' });
    const [{ id }] = await pipelinesOf(p);
    assert.equal((await pipeline(p, id)).status, 'pending');
    await posted(p, p.head, { state: 'running', name: 'b', ref: 'feature', coverage: 50 });
    const running = await pipeline(p, id);
    assert.equal(running.status, 'running');
    assert.ok(running.started_at !== null);
    await posted(p, p.head, { state: 'success', name: 'a', ref: 'feature', coverage: 70.5 });
    assert.equal((await pipeline(p, id)).status, 'running');
    await posted(p, p.head, { state: 'failed', name: 'b', ref: 'feature' });
    const failed = await pipeline(p, id);
    assert.deepEqual([failed.status, failed.coverage], ['failed', '60.25']);
    assert.ok(failed.finished_at !== null);
    // A new status for b that succeeds retries the failed one: the pipeline succeeds.
    await posted(p, p.head, { state: 'success', name: 'b', ref: 'feature' });
    assert.equal((await pipeline(p, id)).status, 'success');
    await posted(p, p.head, { state: 'canceled', name: 'a', ref: 'feature' });
    assert.equal((await pipeline(p, id)).status, 'canceled');
    // Completing it queued the pipeline's follow-up work, which changes nothing more.
    await t.runJobs();
    assert.equal((await pipeline(p, id)).status, 'canceled');
  });

  test('optional attributes: set when given, kept when not, blank ones ignored', async () => {
    const p = await project();
    const first = await posted(p, p.head, { state: 'running', name: 'coverage', ref: 'feature', description: 'coverage test', coverage: 10, target_url: 'http://example.com/status' });
    assert.deepEqual([first.description, first.coverage, first.target_url], ['coverage test', 10, 'http://example.com/status']);
    const second = await posted(p, p.head, { state: 'success', name: 'coverage', ref: 'feature', description: 'new description', coverage: 90.25, target_url: '  ' });
    assert.deepEqual([second.id, second.description, second.coverage, second.target_url], [first.id, 'new description', 90.25, 'http://example.com/status']);
    // A refused transition changes nothing.
    const live = await posted(p, p.head, { state: 'running', name: 'kept', ref: 'feature', description: 'before' });
    expectStatus(await post(p, p.head, { state: 'running', name: 'kept', ref: 'feature', description: 'after' }), 400);
    assert.equal((await listed(p, p.head, { name: 'kept' })).json()[0].description, 'before');
    assert.equal(live.description, 'before');
    // Form bodies, as most integrations send them.
    const form = await t.post(`/api/v4/projects/${p.id}/statuses/${p.head}`, { token: developer.token, form: 'state=success&name=form&ref=feature&coverage=12.5&target_url=https%3A%2F%2Fci.example.com%2F1' });
    expectStatus(form, 201);
    assert.deepEqual([form.json().coverage, form.json().target_url], [12.5, 'https://ci.example.com/1']);
  });

  test('ref and pipeline_id choose the pipeline; an unknown pipeline_id makes a new one', async () => {
    const p = await project();
    const onFeature = await posted(p, p.head, { state: 'pending', ref: 'feature' });
    const [first] = await pipelinesOf(p);
    // Any ref is taken as given (external systems report on refs of their own).
    const elsewhere = await posted(p, p.head, { state: 'pending', ref: 'refs/merge-requests/1/head' });
    assert.equal(elsewhere.ref, 'refs/merge-requests/1/head');
    const [second] = await pipelinesOf(p);
    assert.notEqual(second.id, first.id);
    // Without a ref, the newest pipeline of the commit, and its ref.
    assert.equal((await posted(p, p.head, { state: 'success', name: 'newest' })).ref, 'refs/merge-requests/1/head');
    // pipeline_id picks an older one.
    const chosen = await posted(p, p.head, { state: 'running', pipeline_id: first.id });
    assert.deepEqual([chosen.id, chosen.ref], [onFeature.id, 'feature']);
    // A pipeline_id that names no pipeline of the commit (or of the ref) makes a new one.
    const before = (await pipelinesOf(p)).length;
    await posted(p, p.head, { state: 'pending', pipeline_id: 999_999_999 });
    await posted(p, p.head, { state: 'pending', name: 'x', pipeline_id: first.id, ref: 'refs/merge-requests/1/head' });
    assert.equal((await pipelinesOf(p)).length, before + 2);
    expectError(await post(p, p.head, { state: 'pending', pipeline_id: 'first' }), 400, { error: 'pipeline_id is invalid' });
    expectError(await post(p, p.head, { state: 'pending', pipeline_id: 1.5 }), 400, { error: 'pipeline_id is invalid' });
  });

  test('a status joins the commit\'s CI pipeline; it may not take a job\'s name; pipeline retry leaves it', async () => {
    const ci = await ciProject(t);
    await ci.commitConfig('build:\n  stage: build\n  script: [make]\n');
    const [pushed] = await ci.pipelines();
    const sha = (await t.get(`/api/v4/projects/${ci.projectId}/repository/commits/main`, { token: ci.owner.token })).json().id;
    const p = { id: ci.projectId };
    const res = await post(p, sha, { state: 'failed', name: 'external-check' }, ci.owner.token);
    expectStatus(res, 201);
    assert.equal(res.json().ref, 'main');
    const [same] = await ci.pipelines();
    assert.equal(same.id, pushed.id);
    assert.deepEqual(await ci.jobStates(pushed.id), [['build', 'pending']]);
    expectError(await post(p, sha, { state: 'pending', name: 'build' }, ci.owner.token), 400, { message: { name: ['has already been taken'] } });
    // The commit's statuses are every job of its pipelines, the build too.
    const statuses = await t.get(`/api/v4/projects/${ci.projectId}/repository/commits/${sha}/statuses`, { token: ci.owner.token });
    expectEntities(statuses.json(), CommitStatusEntity);
    assert.deepEqual(statuses.json().map((s: { name: string; status: string }) => [s.name, s.status]), [['build', 'pending'], ['external-check', 'failed']]);
    assert.deepEqual((await t.get(`/api/v4/projects/${ci.projectId}/repository/commits/${sha}/statuses`, { token: ci.owner.token, query: { stage: 'build' } })).json().map((s: { name: string }) => s.name), ['build']);
    // Retrying the pipeline retries its jobs, never an external status.
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/pipelines/${pushed.id}/cancel`, { token: ci.owner.token }), 200);
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/pipelines/${pushed.id}/retry`, { token: ci.owner.token }), 201);
    const after = await t.deps.db.selectFrom('ci_builds').select(['name', 'status', 'retried']).where('pipeline_id', '=', pushed.id).orderBy('id').execute();
    assert.deepEqual(after, [
      { name: 'build', status: 'canceled', retried: true },
      { name: 'external-check', status: 'failed', retried: false },
      { name: 'build', status: 'pending', retried: false },
    ]);
  });

  test('a running status is no stuck job: the stuck-jobs task leaves it', async () => {
    const p = await project();
    const status = await posted(p, p.head, { state: 'running', ref: 'feature' });
    const later = { ...t.deps, now: () => new Date(Date.now() + 48 * 3600 * 1000) };
    await dropStuckJobs(systemContext(later));
    assert.equal((await listed(p, p.head)).json().find((s: { id: number }) => s.id === status.id).status, 'running');
  });

  test('a protected ref needs the right to push or merge to it (403 for developers of main)', async () => {
    const p = await project();
    expectError(await post(p, p.head, { state: 'running', ref: 'main' }), 403, { message: '403 Forbidden' });
    const byMaintainer = await posted(p, p.head, { state: 'running', ref: 'main' }, maintainer);
    assert.equal(byMaintainer.ref, 'main');
    // The pipeline of main now exists: without a ref, a developer's status joins it and is refused too.
    expectError(await post(p, p.head, { state: 'running', name: 'dev' }), 403, { message: '403 Forbidden' });
    const [external] = await pipelinesOf(p);
    const protectedRow = await t.deps.db.selectFrom('ci_pipelines').select('protected').where('id', '=', external.id).executeTakeFirstOrThrow();
    assert.equal(protectedRow.protected, true);
  });

  test('bad input: 400 with the platform\'s bodies, 404 for what names no commit or no branch, never a 500', async () => {
    const p = await project();
    expectError(await post(p, p.head, {}), 400, { error: 'state is missing' });
    expectError(await post(p, p.head, { state: 'invalid' }), 400, { error: 'state does not have a valid value' });
    expectError(await post(p, p.head, { state: 'skipped' }), 400, { error: 'state does not have a valid value' });
    expectError(await post(p, p.head, { state: ['success'] }), 400, { error: 'state is invalid' });
    expectError(await post(p, p.head, { state: 'success', coverage: 'lots' }), 400, { error: 'coverage is invalid' });
    expectError(await post(p, '0'.repeat(40), { state: 'success' }), 404, { message: '404 Commit Not Found' });
    expectError(await post(p, 'invalid_sha', { state: 'success' }), 404, { message: '404 Commit Not Found' });
    expectError(await post(p, '--all', { state: 'success' }), 404, { message: '404 Commit Not Found' });
    const long = 'x'.repeat(256);
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', name: long }), 400, { message: { name: ['is too long (maximum is 255 characters)'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', description: 'd'.repeat(100_000) }), 400, { message: { description: ['is too long (maximum is 255 characters)'] } });
    expectError(await post(p, p.head, { state: 'success', ref: long }), 400, { message: { ref: ['is too long (maximum is 255 characters)'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', target_url: `http://example.com/${long}` }), 400, { message: { target_url: ['is too long (maximum is 255 characters)'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', target_url: 'invalid url' }), 400, { message: { target_url: ['is blocked: Only allowed schemes are http, https'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', target_url: 'git://example.com' }), 400, { message: { target_url: ['is blocked: Only allowed schemes are http, https'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', target_url: 'javascript:alert(1)' }), 400, { message: { target_url: ['is blocked: Only allowed schemes are http, https'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', target_url: 'http://exa mple.com' }), 400, { message: { target_url: ['is blocked: URI is invalid'] } });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', name: '', description: 'e'.repeat(300) }), 400, {
      message: { name: ["can't be blank"], description: ['is too long (maximum is 255 characters)'] },
    });
    expectError(await post(p, p.head, { state: 'success', ref: 'feature', name: '   ' }), 400, { message: { name: ["can't be blank"] } });
    expectError(await post(p, p.head, { state: 'success', ref: '' }), 400, { message: { ref: ["can't be blank"] } });
    // A NUL byte is refused before any route, as the platform's front server does.
    const nul = await post(p, p.head, { state: 'success', name: 'a\u0000b' });
    assert.equal(nul.statusCode, 400);
    // Nothing above made a pipeline or a status.
    assert.deepEqual(await pipelinesOf(p), []);

    // Names are text: any script, emoji, combining marks, right-to-left and zero-width characters,
    // up to 255 characters however many bytes they take.
    for (const name of ['ビルド', '✅ lint 🚀', 'e\u0301te\u0301', 'בדיקה / test', 'zero\u200bwidth', '🦄'.repeat(255), '\u202Eright-to-left']) {
      const status = await posted(p, p.head, { state: 'success', ref: 'feature', name, description: '🦄'.repeat(255) });
      assert.equal(status.name, name);
      assert.equal((await listed(p, p.head, { name })).json()[0].id, status.id);
    }
    // A lone surrogate reaches the database as the replacement character, and comes back as such.
    const lone = await posted(p, p.head, { state: 'success', ref: 'feature', name: 'lone \ud800' });
    assert.equal(lone.name, 'lone \ufffd');

    // A commit on no branch (only a tag holds it) has no ref to join without one.
    const tagged = await t.post(`/api/v4/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'gone', start_branch: 'main', commit_message: 'Tagged', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] } });
    expectStatus(tagged, 201);
    expectStatus(await t.post(`/api/v4/projects/${p.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v-gone', ref: 'gone' } }), 201);
    expectStatus(await t.del(`/api/v4/projects/${p.id}/repository/branches/gone`, { token: owner.token }), 204);
    expectError(await post(p, tagged.json().id, { state: 'success' }), 404, { message: '404 References for commit Not Found' });
    assert.equal((await posted(p, tagged.json().id, { state: 'success', ref: 'v-gone' })).ref, 'v-gone');
  });
});

describe('GET /projects/:id/repository/commits/:sha/statuses', () => {
  test('latest statuses by default, all on request; filters; paginated with the standard headers', async () => {
    const p = await project();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await posted(p, p.head, { state: 'success', name: `check-${i}`, ref: 'feature' })).id);
    const retriedOld = ids[0];
    ids[0] = (await posted(p, p.head, { state: 'failed', name: 'check-0', ref: 'feature' })).id;
    const other = (await posted(p, p.head, { state: 'running', name: 'check-1', ref: 'refs/merge-requests/7/head' })).id;

    const latest = await listed(p, p.head);
    assert.deepEqual(latest.json().map((s: { id: number }) => s.id), [ids[1], ids[2], ids[3], ids[4], ids[0], other]);
    assert.equal(latest.headers['x-total'], '6');
    const everything = await listed(p, p.head, { all: 'TRUE' });
    assert.deepEqual(everything.json().map((s: { id: number }) => s.id), [retriedOld, ids[1], ids[2], ids[3], ids[4], ids[0], other]);
    // `all` is read as the platform reads a boolean string: anything else is false.
    assert.equal((await listed(p, p.head, { all: 'banana' })).json().length, 6);
    assert.equal((await listed(p, p.head, { all: '0' })).json().length, 6);

    assert.deepEqual((await listed(p, p.head, { ref: 'refs/merge-requests/7/head' })).json().map((s: { id: number }) => s.id), [other]);
    assert.deepEqual((await listed(p, p.head, { name: 'check-1' })).json().map((s: { id: number }) => s.id), [ids[1], other]);
    assert.deepEqual((await listed(p, p.head, { name: 'check-0', all: 'yes' })).json().map((s: { id: number }) => s.id), [retriedOld, ids[0]]);
    assert.equal((await listed(p, p.head, { stage: 'external' })).json().length, 6);
    assert.deepEqual((await listed(p, p.head, { stage: 'test' })).json(), []);
    // Empty filters filter nothing.
    assert.equal((await listed(p, p.head, { ref: '', name: '', stage: '' })).json().length, 6);

    const page = await listed(p, p.head, { per_page: '2', page: '2' });
    assert.deepEqual(page.json().map((s: { id: number }) => s.id), [ids[3], ids[4]]);
    assert.deepEqual(
      [page.headers['x-page'], page.headers['x-per-page'], page.headers['x-total'], page.headers['x-total-pages'], page.headers['x-next-page'], page.headers['x-prev-page']],
      ['2', '2', '6', '3', '3', '1'],
    );
    const at = (n: number) => `<http://quarry.test/api/v4/projects/${p.id}/repository/commits/${p.head}/statuses?id=${p.id}&page=${n}&per_page=2&sha=${p.head}>`;
    assert.equal(page.headers.link, `${at(1)}; rel="prev", ${at(3)}; rel="next", ${at(1)}; rel="first", ${at(3)}; rel="last"`);
  });

  test('the sha is matched as given: a branch name lists nothing; an unknown commit is a 404', async () => {
    const p = await project();
    await posted(p, p.head, { state: 'success', ref: 'feature' });
    assert.deepEqual((await listed(p, 'feature')).json(), []);
    assert.deepEqual((await listed(p, p.head.slice(0, 8))).json(), []);
    expectError(await list(p, '0'.repeat(40)), 404, { message: '404 Commit Not Found' });
    expectError(await list(p, 'no-such-thing'), 404, { message: '404 Commit Not Found' });
    expectError(await list(p, p.head, { page: 'x' }), 400, { error: 'page is invalid' });
    // A commit without a pipeline has no statuses.
    const other = (await t.post(`/api/v4/projects/${p.id}/repository/commits`, { token: owner.token, body: { branch: 'feature', commit_message: 'More', actions: [{ action: 'create', file_path: 'y.txt', content: 'y' }] } })).json().id;
    assert.deepEqual((await listed(p, other)).json(), []);
  });

  test('the commit detail shows the latest pipeline and its status', async () => {
    const p = await project();
    const before = await t.get(`/api/v4/projects/${p.id}/repository/commits/${p.head}`, { token: reporter.token });
    expectEntity(before.json(), CommitDetailEntity);
    assert.deepEqual([before.json().status, before.json().last_pipeline], [null, null]);
    await posted(p, p.head, { state: 'running', ref: 'feature' });
    const [external] = await pipelinesOf(p);
    const after = await t.get(`/api/v4/projects/${p.id}/repository/commits/${p.head}`, { token: reporter.token });
    expectEntity(after.json(), CommitDetailEntity);
    assert.equal(after.json().status, 'running');
    assert.deepEqual(after.json().last_pipeline, external);
    // The pipeline is for those who read pipelines; the status is for every reader of the commit.
    const open = await project({ visibility: 'public' });
    await posted(open, open.head, { state: 'success', ref: 'feature' });
    await t.deps.db.updateTable('project_ci_cd_settings').set({ public_builds: false }).where('project_id', '=', open.id).execute();
    await t.deps.db.updateTable('projects').set({ settings_revision: `r${Date.now()}` }).where('id', '=', open.id).execute();
    const stranger = await t.user();
    const seen = await t.get(`/api/v4/projects/${open.id}/repository/commits/${open.head}`, { token: stranger.token });
    expectEntity(seen.json(), CommitDetailEntity);
    assert.deepEqual([seen.json().status, seen.json().last_pipeline], ['success', null]);
  });
});

describe('who may read and post', () => {
  let world: MatrixWorld;
  const heads = new Map<number, string>();

  before(async () => {
    world = await buildMatrixWorld(t, 'statuses');
    for (const row of Object.values(world.projects)) heads.set(row.id, (await giveRepository(t, row)).head);
  });

  /** read_commit_status: members from Reporter, and every signed-in caller of a public or internal project. */
  const readers: Expectation = (role, visibility) => {
    const status = expectation({ success: 200, auth: 'required' })(role, visibility);
    return status === 200 && visibility === 'private' && role !== 'admin' && ROLE_LEVEL[role] < ACCESS.REPORTER ? 403 : status;
  };

  test('POST: developers and up; anonymous callers must sign in', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      call: ({ caller, project, role }) => t.post(`/api/v4/projects/${project.id}/statuses/${heads.get(project.id)}`, { token: caller.token, body: { state: 'success', name: `matrix-${role}` } }),
      verify: (res, { caller }) => {
        expectEntity(res.json(), CommitStatusEntity);
        assert.equal(res.json().author.id, caller.user?.id);
      },
      errors: refusals('Project'),
    });
  });

  test('GET: reporters and up, and every signed-in caller the project is public or internal to', async () => {
    await runMatrix(world, {
      expect: readers,
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/repository/commits/${heads.get(project.id)}/statuses`, { token: caller.token }),
      verify: (res) => {
        expectEntities(res.json(), CommitStatusEntity);
        assert.ok(res.json().length > 0);
      },
      errors: refusals('Project'),
    });
  });

  test('public jobs do not matter; CI/CD kept to members keeps statuses from others; CI/CD disabled leaves them', async () => {
    const project = world.projects.public;
    const sha = heads.get(project.id) as string;
    const as = (role: keyof MatrixWorld['callers']) => world.callers[role].token;
    const set = async (table: 'project_ci_cd_settings' | 'project_features', values: Record<string, unknown>) => {
      await t.deps.db.updateTable(table).set(values).where('project_id', '=', project.id).execute();
      await t.deps.db.updateTable('projects').set({ settings_revision: `r${Math.random()}` }).where('id', '=', project.id).execute();
    };
    try {
      await set('project_ci_cd_settings', { public_builds: false });
      expectStatus(await list(project, sha, {}, as('non_member')), 200);
      await set('project_features', { builds_access_level: 10 });
      expectError(await list(project, sha, {}, as('non_member')), 403, { message: '403 Forbidden' });
      expectStatus(await list(project, sha, {}, as('guest')), 200);
      expectStatus(await post(project, sha, { state: 'success', name: 'private-ci' }, as('developer')), 201);
      await set('project_features', { builds_access_level: 0 });
      expectStatus(await list(project, sha, {}, as('non_member')), 200);
      expectStatus(await post(project, sha, { state: 'success', name: 'no-ci' }, as('developer')), 201);
      await set('project_features', { repository_access_level: 0 });
      expectError(await list(project, sha, {}, as('maintainer')), 403, { message: '403 Forbidden' });
      expectError(await post(project, sha, { state: 'success' }, as('maintainer')), 403, { message: '403 Forbidden' });
    } finally {
      await set('project_ci_cd_settings', { public_builds: true });
      await set('project_features', { builds_access_level: 20, repository_access_level: 20 });
    }
  });

  test('an archived project\'s statuses are read, not posted', async () => {
    const project = world.projects.internal;
    const sha = heads.get(project.id) as string;
    const maintainerToken = world.callers.maintainer.token;
    await t.deps.db.updateTable('projects').set({ archived: true }).where('id', '=', project.id).execute();
    try {
      expectError(await post(project, sha, { state: 'success' }, maintainerToken), 403, { message: '403 Forbidden' });
      expectStatus(await list(project, sha, {}, maintainerToken), 200);
    } finally {
      await t.deps.db.updateTable('projects').set({ archived: false }).where('id', '=', project.id).execute();
    }
  });

  test('a token without the api scope reads but does not post', async () => {
    const project = world.projects.private;
    const sha = heads.get(project.id) as string;
    const readOnly = await t.user({}, ['read_api']);
    await addMember(t, project, readOnly.user.id, ACCESS.MAINTAINER);
    expectStatus(await list(project, sha, {}, readOnly.token), 200);
    expectStatus(await post(project, sha, { state: 'success' }, readOnly.token), 403);
  });
});
