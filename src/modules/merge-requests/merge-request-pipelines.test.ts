// Merge request pipelines on real repositories and a runner speaking the protocol: made when a
// merge request is opened and after pushes to its source branch when the configuration asks for
// them, their ref and variables, the list of a merge request's pipelines, POST …/pipelines with
// its refusals; and merging when the pipeline succeeds: enabled while the head pipeline runs,
// merged once it succeeds, canceled, ended by a push, kept through a failure.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CiProject, ciProject } from '../../../test/ci/fixtures.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { resolveRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { PipelineBasicEntity, PipelineEntity } from '../pipelines/pipelines.schemas.ts';
import { MergeRequestEntity } from './merge-requests.schemas.ts';

const MR_CONFIG = `
mr-test:
  script: echo mr
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_TARGET_BRANCH_NAME == "main"
branch-test:
  script: echo branch
  rules:
    - if: $CI_COMMIT_BRANCH
`;
const BRANCH_ONLY = 'build: {script: echo build}\n';
const REFSPECS = { features: { refspecs: true } };

let t: TestApp;
let reporter: TestUser;
before(async () => {
  t = await createTestApp();
  reporter = await t.user();
});
after(() => t.close());

let sequence = 0;
/** A commit of a new file on `branch` (created from main when new), and the background work it causes. */
async function push(ci: CiProject, branch: string): Promise<string> {
  const exists = (await t.get(`/api/v4/projects/${ci.projectId}/repository/branches/${branch}`, { token: ci.owner.token })).statusCode === 200;
  const res = await t.post(`/api/v4/projects/${ci.projectId}/repository/commits`, {
    token: ci.owner.token,
    body: { branch, ...(exists ? {} : { start_branch: 'main' }), commit_message: `Change ${++sequence}`, actions: [{ action: 'create', file_path: `file-${sequence}.txt`, content: 'x' }] },
  });
  expectStatus(res, 201);
  await t.runJobs();
  return res.json().id;
}

async function openMergeRequest(ci: CiProject, source: string, title = 'A change'): Promise<number> {
  const res = await t.post(`/api/v4/projects/${ci.projectId}/merge_requests`, { token: ci.owner.token, body: { title, source_branch: source, target_branch: 'main' } });
  expectStatus(res, 201);
  await t.runJobs();
  return res.json().iid;
}

const mrUrl = (ci: CiProject, iid: number, tail = '') => `/api/v4/projects/${ci.projectId}/merge_requests/${iid}${tail}`;
const getMr = async (ci: CiProject, iid: number) => (await t.get(mrUrl(ci, iid), { token: ci.owner.token })).json();
const notes = async (ci: CiProject, iid: number) => {
  const res = await t.get(mrUrl(ci, iid, '/notes'), { token: ci.owner.token, query: { sort: 'asc' } });
  expectEntities(res.json(), NoteEntity);
  return res.json().map((n: { body: string }) => n.body);
};

async function addReporter(ci: CiProject): Promise<void> {
  expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/members`, { token: ci.owner.token, body: { user_id: reporter.user.id, access_level: 20 } }), 201);
}

/** Takes pending jobs until the one named `name` (at `sha` when given); the others succeed. */
async function takeNamed(ci: CiProject, runner: string, name: string, sha?: string) {
  for (;;) {
    const job = await ci.takeJob(runner, REFSPECS);
    assert.ok(job, `no pending job named ${name}`);
    if (job.job_info.name === name && (sha === undefined || (job.git_info as { sha: string }).sha === sha)) return job;
    await ci.finishJob(job, 'success');
  }
}

const variable = (job: Record<string, unknown>, key: string) => (job.variables as { key: string; value: string }[]).findLast((v) => v.key === key)?.value;

describe('merge request pipelines', () => {
  test('opening a merge request and pushing to its source make merge request pipelines, with their ref and variables', async () => {
    const ci = await ciProject(t);
    await ci.commitConfig(MR_CONFIG);
    const head = await push(ci, 'feature');
    const iid = await openMergeRequest(ci, 'feature');

    const [mrPipeline, branchPipeline] = (await t.get(`/api/v4/projects/${ci.projectId}/pipelines`, { token: ci.owner.token, query: { per_page: '2' } })).json();
    assert.equal(mrPipeline.source, 'merge_request_event');
    assert.equal(mrPipeline.ref, `refs/merge-requests/${iid}/head`);
    assert.equal(mrPipeline.sha, head);
    assert.deepEqual(await ci.jobStates(mrPipeline.id), [['mr-test', 'pending']]);
    assert.equal(branchPipeline.source, 'push');
    assert.equal(branchPipeline.ref, 'feature');
    const project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', ci.projectId).executeTakeFirstOrThrow();
    const dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
    assert.equal(await resolveRef(dir, `refs/merge-requests/${iid}/head`), head);

    const mr = await getMr(ci, iid);
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.head_pipeline.id, mrPipeline.id, 'the newest pipeline at the source head');

    const runner = await ci.registerRunner();
    const job = await takeNamed(ci, runner, 'mr-test');
    const gitInfo = job.git_info as { ref: string; refspecs: string[] };
    assert.equal(gitInfo.ref, `refs/merge-requests/${iid}/head`);
    assert.ok(gitInfo.refspecs.includes(`+refs/pipelines/${mrPipeline.id}:refs/pipelines/${mrPipeline.id}`), JSON.stringify(gitInfo.refspecs));
    assert.equal(variable(job, 'CI_PIPELINE_SOURCE'), 'merge_request_event');
    assert.equal(variable(job, 'CI_COMMIT_REF_NAME'), 'feature');
    assert.equal(variable(job, 'CI_COMMIT_BRANCH'), undefined);
    assert.equal(variable(job, 'CI_MERGE_REQUEST_IID'), String(iid));
    assert.equal(variable(job, 'CI_MERGE_REQUEST_ID'), String(mr.id));
    assert.equal(variable(job, 'CI_MERGE_REQUEST_REF_PATH'), `refs/merge-requests/${iid}/head`);
    assert.equal(variable(job, 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME'), 'feature');
    assert.equal(variable(job, 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME'), 'main');
    assert.equal(variable(job, 'CI_MERGE_REQUEST_TITLE'), 'A change');
    assert.equal(variable(job, 'CI_MERGE_REQUEST_EVENT_TYPE'), 'detached');
    assert.equal(variable(job, 'CI_MERGE_REQUEST_PROJECT_PATH'), project.full_path);
    assert.equal(variable(job, 'CI_MERGE_REQUEST_DIFF_BASE_SHA'), mr.diff_refs.base_sha);
    assert.equal(variable(job, 'CI_OPEN_MERGE_REQUESTS'), `${project.full_path}!${iid}`);
    await ci.finishJob(job, 'success');

    // The branch's own pipeline names its open merge requests.
    const next = await push(ci, 'feature');
    const branchJob = await takeNamed(ci, runner, 'branch-test');
    assert.equal(variable(branchJob, 'CI_COMMIT_BRANCH'), 'feature');
    assert.equal(variable(branchJob, 'CI_OPEN_MERGE_REQUESTS'), `${project.full_path}!${iid}`);
    assert.equal(variable(branchJob, 'CI_MERGE_REQUEST_IID'), undefined);

    // The push made a second merge request pipeline, and moved the ref.
    const list = await t.get(mrUrl(ci, iid, '/pipelines'), { token: ci.owner.token });
    expectStatus(list, 200);
    expectEntities(list.json(), PipelineBasicEntity);
    const listed = list.json().map((p: { source: string; sha: string }) => [p.source, p.sha]);
    assert.deepEqual(listed, [['merge_request_event', next], ['push', next], ['merge_request_event', head], ['push', head]]);
    assert.equal(list.headers['x-total'], '4');
    assert.equal(await resolveRef(dir, `refs/merge-requests/${iid}/head`), next);
  });

  test('POST …/pipelines: 200 with the pipeline; 405 without commits; 400 when the configuration has no merge request jobs; who may', async () => {
    const ci = await ciProject(t);
    await ci.commitConfig(MR_CONFIG);
    await addReporter(ci);
    await push(ci, 'topic');
    const iid = await openMergeRequest(ci, 'topic');
    const before = (await t.get(mrUrl(ci, iid, '/pipelines'), { token: ci.owner.token })).json().length;
    const res = await t.post(mrUrl(ci, iid, '/pipelines'), { token: ci.owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), PipelineEntity);
    assert.equal(res.json().source, 'merge_request_event');
    assert.equal(res.json().status, 'pending', 'processed before the answer');
    assert.equal(res.json().user.id, ci.owner.user.id);
    assert.equal((await t.get(mrUrl(ci, iid, '/pipelines'), { token: ci.owner.token })).json().length, before + 1, 'a duplicate is allowed on request');

    expectError(await t.post(mrUrl(ci, iid, '/pipelines'), { token: reporter.token }), 400, { message: { base: ['Insufficient permissions to create a new pipeline'] } });
    expectError(await t.post(mrUrl(ci, iid, '/pipelines')), 401, { message: '401 Unauthorized' });
    expectError(await t.post(mrUrl(ci, 999, '/pipelines'), { token: ci.owner.token }), 404, { message: '404 Not found' });
    const stranger = await t.user();
    expectError(await t.get(mrUrl(ci, iid, '/pipelines'), { token: stranger.token }), 404, { message: '404 Project Not Found' });
    expectStatus(await t.get(mrUrl(ci, iid, '/pipelines'), { token: reporter.token }), 200);

    // A source branch with nothing to merge.
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/repository/branches`, { token: ci.owner.token, query: { branch: 'empty', ref: 'main' } }), 201);
    const empty = await openMergeRequest(ci, 'empty', 'Nothing');
    expectError(await t.post(mrUrl(ci, empty, '/pipelines'), { token: ci.owner.token }), 405, { message: '405 Method Not Allowed' });

    const plain = await ciProject(t);
    await plain.commitConfig(BRANCH_ONLY);
    await push(plain, 'work');
    const count = (await plain.pipelines()).length;
    const plainIid = await openMergeRequest(plain, 'work');
    assert.equal((await plain.pipelines()).length, count, 'no merge request pipeline without jobs for one');
    expectError(await t.post(mrUrl(plain, plainIid, '/pipelines'), { token: plain.owner.token }), 400, { message: { base: ['No stages / jobs for this pipeline.'] } });
  });
});

describe('merge when pipeline succeeds', () => {
  let ci: CiProject;
  let runner: string;
  before(async () => {
    ci = await ciProject(t);
    await ci.commitConfig(BRANCH_ONLY);
    await addReporter(ci);
    runner = await ci.registerRunner();
    // The main branch's own pipeline is out of the way.
    const job = await ci.takeJob(runner);
    if (job) await ci.finishJob(job, 'success');
  });

  /** A source branch whose pipeline waits for a runner, and its merge request. */
  async function waitingMergeRequest(branch: string): Promise<{ iid: number; sha: string }> {
    const sha = await push(ci, branch);
    return { iid: await openMergeRequest(ci, branch, `Change ${branch}`), sha };
  }
  const merge = (iid: number, body: Record<string, unknown> = {}, token = ci.owner.token) => t.put(mrUrl(ci, iid, '/merge'), { token, body: { merge_when_pipeline_succeeds: true, ...body } });

  test('set while the pipeline runs; merged by the user who asked once it succeeds', async () => {
    const { iid, sha } = await waitingMergeRequest('auto');
    const res = await merge(iid);
    expectStatus(res, 200);
    expectEntity(res.json(), MergeRequestEntity);
    assert.equal(res.json().state, 'opened');
    assert.equal(res.json().merge_when_pipeline_succeeds, true);
    assert.equal(res.json().merge_user.id, ci.owner.user.id);
    assert.equal(res.json().merged_by, null);
    assert.ok((await notes(ci, iid)).includes(`enabled an automatic merge when the pipeline for ${sha} succeeds`));
    await t.runJobs();
    assert.equal((await getMr(ci, iid)).state, 'opened', 'nothing merges while the pipeline runs');

    await ci.finishJob(await takeNamed(ci, runner, 'build', sha), 'success');
    await t.runJobs();
    const merged = await getMr(ci, iid);
    expectEntity(merged, MergeRequestEntity);
    assert.equal(merged.state, 'merged');
    assert.equal(merged.merged_by.id, ci.owner.user.id);
    assert.equal(merged.merge_when_pipeline_succeeds, false);
    assert.ok(merged.merge_commit_sha);
  });

  test('refusals: no pipeline (405), a reporter (401); with a successful head pipeline it merges at once', async () => {
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/repository/branches`, { token: ci.owner.token, query: { branch: 'bare', ref: 'main' } }), 201);
    const { iid, sha: head } = await waitingMergeRequest('quick');
    expectError(await merge(iid, {}, reporter.token), 401, { message: '401 Unauthorized' });
    expectError(await merge(iid, { sha: 'f'.repeat(40) }), 409, { message: `SHA does not match HEAD of source branch: ${head}` });
    await ci.finishJob(await takeNamed(ci, runner, 'build', head), 'success');
    const res = await merge(iid);
    expectStatus(res, 200);
    assert.equal(res.json().state, 'merged');
    assert.equal(res.json().merge_when_pipeline_succeeds, false);

    // Skipped by `[ci skip]`: a head pipeline that is neither running nor successful.
    const sha = await (async () => {
      const r = await t.post(`/api/v4/projects/${ci.projectId}/repository/commits`, {
        token: ci.owner.token,
        body: { branch: 'skipped', start_branch: 'main', commit_message: 'Quiet [ci skip]', actions: [{ action: 'create', file_path: 'quiet.txt', content: 'q' }] },
      });
      expectStatus(r, 201);
      await t.runJobs();
      return r.json().id as string;
    })();
    const skipped = await openMergeRequest(ci, 'skipped');
    assert.equal((await getMr(ci, skipped)).sha, sha);
    expectError(await merge(skipped), 405, { message: '405 Method Not Allowed' });
  });

  test('canceled by whoever may merge or the author; a second cancel is the service error; others are refused', async () => {
    const { iid, sha } = await waitingMergeRequest('cancel');
    expectStatus(await merge(iid), 200);
    const url = mrUrl(ci, iid, '/cancel_merge_when_pipeline_succeeds');
    expectError(await t.post(url, { token: reporter.token }), 401, { message: '401 Unauthorized' });
    const res = await t.post(url, { token: ci.owner.token });
    expectStatus(res, 201);
    assert.deepEqual(res.json(), { status: 'success' });
    const mr = await getMr(ci, iid);
    assert.equal(mr.merge_when_pipeline_succeeds, false);
    assert.equal(mr.merge_user, null);
    assert.ok((await notes(ci, iid)).includes('canceled the automatic merge'));
    const again = await t.post(url, { token: ci.owner.token });
    expectStatus(again, 201);
    assert.deepEqual(again.json(), { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 });
    await ci.finishJob(await takeNamed(ci, runner, 'build', sha), 'success');
    await t.runJobs();
    assert.equal((await getMr(ci, iid)).state, 'opened', 'a canceled merge does not happen');
  });

  test('a push to the source ends it; a failed pipeline keeps it, and a successful retry merges', async () => {
    const pushed = await waitingMergeRequest('moving');
    expectStatus(await merge(pushed.iid), 200);
    const newer = await push(ci, 'moving');
    const moved = await getMr(ci, pushed.iid);
    assert.equal(moved.merge_when_pipeline_succeeds, false);
    assert.ok((await notes(ci, pushed.iid)).includes('aborted the automatic merge because source branch was updated'));
    await ci.finishJob(await takeNamed(ci, runner, 'build', newer), 'success');
    await t.runJobs();
    assert.equal((await getMr(ci, pushed.iid)).state, 'opened', 'the ended merge does not happen');

    const { iid, sha } = await waitingMergeRequest('flaky');
    expectStatus(await merge(iid), 200);
    const job = await takeNamed(ci, runner, 'build', sha);
    await ci.finishJob(job, 'failed');
    await t.runJobs();
    const failed = await getMr(ci, iid);
    assert.equal(failed.state, 'opened');
    assert.equal(failed.merge_when_pipeline_succeeds, true, 'a failed pipeline keeps the automatic merge');
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${job.id}/retry`, { token: ci.owner.token }), 201);
    await t.runJobs();
    await ci.finishJob(await takeNamed(ci, runner, 'build', sha), 'success');
    await t.runJobs();
    assert.equal((await getMr(ci, iid)).state, 'merged');
  });
});
