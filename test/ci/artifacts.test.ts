// Job artifacts end to end, driven the way a runner and the API's clients drive them (notes
// gitlab-ci.md §1.7, §8.9–8.10, §8.16, §4.5): uploads of a real zip and of a JUnit gzip report, the
// refusals (not a zip, names that leave the archive, too large, a job that no longer runs, another
// artifact of the same type), a dependent job's payload and download, the API's downloads (whole,
// one file, by ref and job name), keep, delete, erase, the pipeline's test report and summary, the
// files removed with their pipeline, and who may call each route.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ACCESS } from '../../src/core/access/levels.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { TestReportEntity, TestReportSummaryEntity } from '../../src/modules/ci-artifacts/artifacts.schemas.ts';
import { artifactsStorage } from '../../src/storage/file-storage.ts';
import { newJobArtifactPath } from '../../src/storage/artifact-paths.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { multipart, zip } from './ci-test-helpers.ts';

const MAX_SIZE = 64 * 1024;

const CONFIG = `
stages: [build, test]
build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
    expire_in: 1 week
    reports:
      junit: report.xml
test:
  stage: test
  script: [check]
`;

const JUNIT_A = `<?xml version="1.0"?>
<testsuites><testsuite name="unit">
  <testcase classname="Calc" name="adds" time="0.5"/>
  <testcase classname="Calc" name="divides" time="1.25"><failure message="boom">expected 2</failure></testcase>
</testsuite></testsuites>`;
const JUNIT_B = `<testsuite name="more"><testcase classname="Str" name="trims" time="0.25"><skipped/></testcase></testsuite>`;

let t: TestApp;
let owner: TestUser;
let projectId: number;
let runnerToken: string;

function upload(jobId: number, token: string | null, file: { name?: string; filename: string; content: Buffer } | null, query: Record<string, string> = {}, fields: Record<string, string> = {}) {
  const { body, contentType } = multipart(file, fields);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (token) headers['job-token'] = token;
  return t.post(`/api/v4/jobs/${jobId}/artifacts`, { headers, query, body });
}

async function requestJob() {
  const res = await t.post('/api/v4/jobs/request', { body: { token: runnerToken, info: { features: { upload_multiple_artifacts: true } } } });
  expectStatus(res, 201);
  return res.json();
}

const storageDir = () => path.join(t.deps.config.dataDir, 'artifacts');
const filesUnder = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : []);

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0', QUARRY_ARTIFACTS_MAX_SIZE: String(MAX_SIZE) });
  owner = await t.user();
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Artifacts', initialize_with_readme: true, visibility: 'private' } });
  expectStatus(created, 201);
  projectId = created.json().id;
  await t.runJobs();
  const project = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json();
  runnerToken = (await t.post('/api/v4/runners', { body: { token: project.runners_token } })).json().token;
});
after(() => t.close());

describe('job artifacts, from a runner to the API', () => {
  const archive = { 'out/hello.txt': 'hello artifacts\n', 'out/page.html': '<p>hi</p>', 'out/deep/data.json': '{"a":1}' };
  let zipBytes: Buffer;
  let build: { id: number; token: string };
  let dependent: { id: number; token: string; dependencies: unknown[] };
  let pipelineId: number;

  test('a running job uploads its archive (201, "201"); refusals leave nothing behind', async () => {
    zipBytes = await zip(archive);
    const commit = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CONFIG }] },
    });
    expectStatus(commit, 201);
    await t.runJobs();
    const payload = await requestJob();
    build = payload;
    pipelineId = (await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}`, { token: owner.token })).json().pipeline.id;
    assert.deepEqual(
      payload.artifacts.map((a: { artifact_type: string; artifact_format: string; expire_in: string }) => [a.artifact_type, a.artifact_format, a.expire_in]),
      [['archive', 'zip', '1 week'], ['junit', 'gzip', '1 week']],
    );

    // Not a zip, names that leave the archive, too large, a wrong token, no file: refused.
    expectError(await upload(build.id, build.token, { filename: 'artifacts.zip', content: Buffer.from('plain text, no zip') }), 400, {
      message: '400 Bad request - Invalid artifacts archive: not a zip file',
    });
    const hostile = await zip({ 'aa/evil.txt': 'x', 'ok.txt': 'y' });
    const patched = Buffer.from(hostile.toString('latin1').replaceAll('aa/evil.txt', '../evil.txt'), 'latin1');
    const escaping = await upload(build.id, build.token, { filename: 'artifacts.zip', content: patched });
    expectStatus(escaping, 400);
    assert.match(escaping.json().message, /^400 Bad request - Invalid artifacts archive: invalid relative path: \.\.\/evil\.txt/);
    const absolute = Buffer.from(hostile.toString('latin1').replaceAll('aa/evil.txt', '/etc/passwd'), 'latin1');
    expectStatus(await upload(build.id, build.token, { filename: 'artifacts.zip', content: absolute }), 400);
    const big = Buffer.alloc(MAX_SIZE + 1024, 7);
    expectError(await upload(build.id, build.token, { filename: 'artifacts.zip', content: big }), 413, { message: 'file size has reached maximum size limit' });
    expectError(await upload(build.id, 'glcbt-wrong', { filename: 'artifacts.zip', content: zipBytes }), 403, { message: '403 Forbidden' });
    expectError(await upload(build.id, build.token, null), 400, { error: 'file is missing' });
    expectError(await upload(build.id, build.token, { name: 'other', filename: 'a.zip', content: zipBytes }), 400, { message: '400 Bad request - invalid form field: other' });
    expectError(await upload(build.id, build.token, { filename: 'a.zip', content: zipBytes }, { artifact_type: 'bogus' }), 400, { error: 'artifact_type does not have a valid value' });
    assert.equal(await t.count('ci_job_artifacts'), 0);
    assert.deepEqual(filesUnder(storageDir()), []);

    // Any file name; type, format and expiry from the query, as current runners send them.
    const res = await upload(build.id, build.token, { filename: 'default.zip', content: zipBytes }, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week' });
    expectStatus(res, 201);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json(), '201');
    // The same bytes again are fine; other bytes of the same type are not.
    expectStatus(await upload(build.id, build.token, { filename: 'default.zip', content: zipBytes }), 201);
    expectError(await upload(build.id, build.token, { filename: 'default.zip', content: await zip({ 'other.txt': 'x' }) }), 400, {
      message: 'another artifact of the same type already exists',
    });
  });

  test('a JUnit report arrives as gzip members, with its type in multipart fields and the token in the body, as older runners send it', async () => {
    const report = Buffer.concat([gzipSync(JUNIT_A), gzipSync(JUNIT_B)]);
    const res = await upload(build.id, null, { filename: 'junit.xml.gz', content: report }, {}, { token: build.token, artifact_type: 'junit', artifact_format: 'gzip', expire_in: '1 week' });
    expectStatus(res, 201);

    const job = await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}`, { token: owner.token });
    expectStatus(job, 200);
    expectEntity(job.json(), JobEntity);
    assert.deepEqual(job.json().artifacts_file, { filename: 'default.zip', size: zipBytes.length });
    assert.deepEqual(
      job.json().artifacts.map((a: { file_type: string; filename: string; file_format: string }) => [a.file_type, a.filename, a.file_format]),
      [['archive', 'default.zip', 'zip'], ['metadata', 'metadata.gz', 'gzip'], ['junit', 'junit.xml.gz', 'gzip']],
    );
    const expires = Date.parse(job.json().artifacts_expire_at) - Date.now();
    assert.ok(Math.abs(expires - 7 * 86_400_000) < 60_000, `expires in ${expires} ms`);

    // The metadata lists the entries as the platform's Workhorse writes them, directories included.
    const row = await t.deps.db.selectFrom('ci_job_artifacts').selectAll().where('build_id', '=', build.id).where('file_type', '=', 'metadata').executeTakeFirstOrThrow();
    const { gunzipSync } = await import('node:zlib');
    const raw = gunzipSync(fs.readFileSync(path.join(storageDir(), row.file_path)));
    const strings: string[] = [];
    for (let at = 0; at < raw.length; ) {
      const length = raw.readUInt32BE(at);
      strings.push(raw.subarray(at + 4, at + 4 + length).toString());
      at += 4 + length;
    }
    assert.equal(strings[0], 'GitLab Build Artifacts Metadata 0.0.2\n');
    assert.equal(strings[1], '{}');
    assert.deepEqual(
      strings.slice(2).filter((_, i) => i % 2 === 0),
      ['out/', 'out/deep/', 'out/deep/data.json', 'out/hello.txt', 'out/page.html'],
    );
    const hello = JSON.parse(strings[strings.indexOf('out/hello.txt') + 1]);
    assert.equal(hello.size, archive['out/hello.txt'].length);
    assert.equal(strings[strings.indexOf('out/') + 1], '{}\n');
  });

  test('a finished job uploads nothing (403 with its status); the dependent job lists the archive and downloads it with its own token', async () => {
    expectStatus(await t.put(`/api/v4/jobs/${build.id}`, { body: { token: build.token, state: 'success' } }), 200);
    const late = await upload(build.id, build.token, { filename: 'late.zip', content: zipBytes }, { artifact_type: 'archive' });
    expectError(late, 403, { message: '403 Forbidden - Job is not running' });
    assert.equal(late.headers['job-status'], 'success');

    await t.runJobs();
    dependent = await requestJob();
    assert.deepEqual(dependent.dependencies, [{ id: build.id, name: 'build', token: dependent.token, artifacts_file: { filename: 'default.zip', size: zipBytes.length } }]);

    const res = await t.get(`/api/v4/jobs/${build.id}/artifacts`, { headers: { 'job-token': dependent.token } });
    expectStatus(res, 200);
    assert.deepEqual(res.rawPayload, zipBytes);
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    // The job's own token, though finished, still reads it (14.x); any other token does not.
    expectStatus(await t.get(`/api/v4/jobs/${build.id}/artifacts`, { query: { token: build.token } }), 200);
    expectError(await t.get(`/api/v4/jobs/${build.id}/artifacts`, { headers: { 'job-token': 'glcbt-unknown' } }), 403, { message: '403 Forbidden' });
    // A job without an archive: 404.
    expectError(await t.get(`/api/v4/jobs/${dependent.id}/artifacts`, { headers: { 'job-token': dependent.token } }), 404, { message: '404 Not Found' });

    // A running job's token reads the project's artifacts through the API as its user.
    const api = await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { headers: { 'job-token': dependent.token } });
    expectStatus(api, 200);
    assert.deepEqual(api.rawPayload, zipBytes);
  });

  test('the API serves the archive, one file out of it, and the same by ref and job name', async () => {
    const whole = await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { token: owner.token });
    expectStatus(whole, 200);
    assert.deepEqual(whole.rawPayload, zipBytes);
    assert.equal(whole.headers['content-disposition'], `attachment; filename="default.zip"; filename*=UTF-8''default.zip`);
    assert.equal(whole.headers['content-length'], String(zipBytes.length));

    const file = await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/out/hello.txt`, { token: owner.token });
    expectStatus(file, 200);
    assert.equal(file.body, archive['out/hello.txt']);
    assert.equal(file.headers['content-disposition'], 'attachment; filename="hello.txt"');
    assert.equal(file.headers['content-type'], 'application/octet-stream');
    const page = await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/out/page.html`, { token: owner.token });
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.body, archive['out/page.html']);
    expectError(await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/out/missing.txt`, { token: owner.token }), 404, { message: '404 Not Found' });
    expectStatus(await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/../../etc/passwd`, { token: owner.token }), 404);
    expectError(await t.get(`/api/v4/projects/${projectId}/jobs/${dependent.id}/artifacts`, { token: owner.token }), 404, { message: '404 Not Found' });
    expectError(await t.get(`/api/v4/projects/${projectId}/jobs/999999/artifacts`, { token: owner.token }), 404, { message: '404 Not Found' });

    // By ref: only once a pipeline of the ref succeeded.
    const byRef = `/api/v4/projects/${projectId}/jobs/artifacts/main`;
    expectError(await t.get(`${byRef}/download`, { token: owner.token, query: { job: 'build' } }), 404, { message: '404 Not found' });
    expectStatus(await t.put(`/api/v4/jobs/${dependent.id}`, { body: { token: dependent.token, state: 'success' } }), 200);
    await t.runJobs();
    const download = await t.get(`${byRef}/download`, { token: owner.token, query: { job: 'build' } });
    expectStatus(download, 200);
    assert.deepEqual(download.rawPayload, zipBytes);
    const raw = await t.get(`${byRef}/raw/out/deep/data.json`, { token: owner.token, query: { job: 'build' } });
    expectStatus(raw, 200);
    assert.equal(raw.body, archive['out/deep/data.json']);
    assert.equal(raw.headers['content-type'], 'application/json');
    expectError(await t.get(`${byRef}/download`, { token: owner.token, query: { job: 'nothing' } }), 404, { message: '404 Not found' });
    expectError(await t.get(`/api/v4/projects/${projectId}/jobs/artifacts/other/download`, { token: owner.token, query: { job: 'build' } }), 404, { message: '404 Not found' });
    expectError(await t.get(`${byRef}/download`, { token: owner.token }), 400, { error: 'job is missing' });
  });

  test('the pipeline test report parses the JUnit artifacts; the summary adds up the stored results', async () => {
    const report = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipelineId}/test_report`, { token: owner.token });
    expectStatus(report, 200);
    expectEntity(report.json(), TestReportEntity);
    assert.deepEqual(report.json(), {
      total_time: 2,
      total_count: 3,
      success_count: 1,
      failed_count: 1,
      skipped_count: 1,
      error_count: 0,
      test_suites: [
        {
          name: 'build',
          total_time: 2,
          total_count: 3,
          success_count: 1,
          failed_count: 1,
          skipped_count: 1,
          error_count: 0,
          suite_error: null,
          test_cases: [
            { status: 'failed', name: 'divides', classname: 'Calc', execution_time: 1.25, system_output: 'expected 2', stack_trace: null },
            { status: 'success', name: 'adds', classname: 'Calc', execution_time: 0.5, system_output: null, stack_trace: null },
            { status: 'skipped', name: 'trims', classname: 'Str', execution_time: 0.25, system_output: null, stack_trace: null },
          ],
        },
      ],
    });
    const summary = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipelineId}/test_report_summary`, { token: owner.token });
    expectStatus(summary, 200);
    expectEntity(summary.json(), TestReportSummaryEntity);
    assert.deepEqual(summary.json(), {
      total: { time: 2, count: 3, success: 1, failed: 1, skipped: 1, error: 0, suite_error: null },
      test_suites: [{ name: 'build', total_time: 2, total_count: 3, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 0, build_ids: [build.id], suite_error: null }],
    });
    expectError(await t.get(`/api/v4/projects/${projectId}/pipelines/999999/test_report`, { token: owner.token }), 404, { message: '404 Not Found' });
  });

  test('keep, delete and erase; who may do them', async () => {
    const developer = await t.user();
    const maintainer = await t.user();
    await t.post(`/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: developer.user.id, access_level: ACCESS.DEVELOPER } });
    await t.post(`/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: maintainer.user.id, access_level: ACCESS.MAINTAINER } });

    const kept = await t.post(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/keep`, { token: developer.token });
    expectStatus(kept, 200);
    expectEntity(kept.json(), JobEntity);
    assert.equal(kept.json().artifacts_expire_at, null);
    expectError(await t.post(`/api/v4/projects/${projectId}/jobs/${dependent.id}/artifacts/keep`, { token: owner.token }), 404, { message: '404 Not Found' });
    expectError(await t.post(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts/keep`), 401, { message: '401 Unauthorized' });

    expectError(await t.del(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { token: developer.token }), 403, { message: '403 Forbidden' });
    const before = filesUnder(storageDir()).length;
    expectStatus(await t.del(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { token: maintainer.token }), 204);
    expectStatus(await t.get(`/api/v4/projects/${projectId}/jobs/${build.id}/artifacts`, { token: owner.token }), 404);
    await t.runJobs();
    assert.equal(filesUnder(storageDir()).length, before - 3);
    const summary = (await t.get(`/api/v4/projects/${projectId}/pipelines/${pipelineId}/test_report_summary`, { token: owner.token })).json();
    assert.deepEqual(summary.test_suites, []);

    // Erase: the log and any artifacts go; the job says who erased it.
    await t.request('PATCH', `/api/v4/jobs/${dependent.id}/trace`, { headers: { 'job-token': dependent.token, 'content-range': '0-2', 'content-type': 'text/plain' }, body: 'log' });
    const trace = await t.deps.db.selectFrom('ci_builds').select('trace_size').where('id', '=', dependent.id).executeTakeFirstOrThrow();
    assert.equal(Number(trace.trace_size), 0, 'a finished job takes no more log');
    expectError(await t.post(`/api/v4/projects/${projectId}/jobs/${dependent.id}/erase`, { token: owner.token }), 403, { message: '403 Forbidden - Job is not erasable!' });
  });

  test('a job with a log is erased; deleting the pipeline removes its artifact files', async () => {
    await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    const job = await requestJob();
    await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': '0-3', 'content-type': 'text/plain' }, body: 'log\n' });
    expectStatus(await upload(job.id, job.token, { filename: 'artifacts.zip', content: zipBytes }), 201);
    expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } }), 200);
    const reporter = await t.user();
    await t.post(`/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: reporter.user.id, access_level: ACCESS.REPORTER } });
    expectError(await t.post(`/api/v4/projects/${projectId}/jobs/${job.id}/erase`, { token: reporter.token }), 403, { message: '403 Forbidden' });

    const erased = await t.post(`/api/v4/projects/${projectId}/jobs/${job.id}/erase`, { token: owner.token });
    expectStatus(erased, 201);
    expectEntity(erased.json(), JobEntity);
    assert.deepEqual(erased.json().artifacts, []);
    assert.equal(erased.json().artifacts_file, undefined);
    const row = await t.deps.db.selectFrom('ci_builds').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.ok(row.erased_at);
    assert.equal(row.erased_by_id, owner.user.id);
    assert.equal((await t.get(`/api/v4/projects/${projectId}/jobs/${job.id}/trace`, { token: owner.token })).body, '');
    expectError(await t.get(`/api/v4/jobs/${job.id}/artifacts`, { headers: { 'job-token': job.token } }), 403, { message: '403 Forbidden - Job has been erased!' });

    // A pipeline deleted: its rows at once, its files through the job queue.
    const pipeline = (await t.get(`/api/v4/projects/${projectId}/jobs/${job.id}`, { token: owner.token })).json().pipeline.id;
    const other = await t.deps.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline).where('id', '!=', job.id).executeTakeFirstOrThrow();
    const storage = artifactsStorage(t.deps.config);
    const leftover = newJobArtifactPath(other, 'archive');
    await storage.write(leftover, Buffer.from('x'));
    expectStatus(await t.del(`/api/v4/projects/${projectId}/pipelines/${pipeline}`, { token: owner.token }), 204);
    assert.ok(await storage.exists(leftover));
    await t.runJobs();
    assert.equal(await storage.exists(leftover), false);
    assert.equal(fs.existsSync(path.join(storageDir(), String(projectId), String(pipeline))), false);
  });

  test('deleting the project removes all its artifact files', async () => {
    assert.ok(fs.existsSync(path.join(storageDir(), String(projectId))));
    expectStatus(await t.del(`/api/v4/projects/${projectId}`, { token: owner.token }), 202);
    await t.runJobs();
    assert.equal(fs.existsSync(path.join(storageDir(), String(projectId))), false);
  });
});

describe('who may read and delete artifacts, by role and visibility', () => {
  let world: MatrixWorld;
  const jobs = new Map<number, number>();
  const bytes = Buffer.from('PK\x05\x06'.padEnd(22, '\0'), 'latin1');

  before(async () => {
    world = await buildMatrixWorld(t, 'artifacts');
    const storage = artifactsStorage(t.deps.config);
    const at = new Date().toISOString();
    for (const project of Object.values(world.projects)) {
      const pipeline = await t.deps.db
        .insertInto('ci_pipelines')
        .values({ project_id: project.id, iid: 1, ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), tag: false, protected: false, source: 'push', status: 'success', created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      const job = await t.deps.db
        .insertInto('ci_builds')
        .values({
          pipeline_id: pipeline.id, project_id: project.id, type: 'build', name: 'build', stage: 'build', stage_idx: 0, status: 'success', ref: 'main', tag: false, protected: false, allow_failure: false, interruptible: false, retried: false,
          when: 'on_success', scheduling_type: 'stage', options: '{}', yaml_variables: '[]', tag_list: '[]', created_at: at, updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const filePath = newJobArtifactPath(job, 'archive');
      await storage.write(filePath, bytes);
      await t.deps.db
        .insertInto('ci_job_artifacts')
        .values({ build_id: job.id, project_id: project.id, file_type: 'archive', file_format: 'zip', filename: 'artifacts.zip', size: bytes.length, sha256: 'x', file_path: filePath, created_at: at })
        .execute();
      jobs.set(project.id, job.id);
    }
  });

  test('GET /projects/:id/jobs/:job_id/artifacts: everyone who reads the project (its jobs are public by default)', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/jobs/${jobs.get(project.id)}/artifacts`, { token: caller.token }),
      verify: (res) => assert.deepEqual(res.rawPayload, bytes),
      errors: refusals('Project'),
    });
  });

  test('GET /projects/:id/jobs/artifacts/:ref_name/download: the same readers', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/jobs/artifacts/main/download`, { token: caller.token, query: { job: 'build' } }),
      errors: refusals('Project'),
    });
  });

  test('DELETE /projects/:id/jobs/:job_id/artifacts: maintainers and up; anonymous callers must sign in', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 204, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      call: ({ caller, project }) => t.del(`/api/v4/projects/${project.id}/jobs/${jobs.get(project.id)}/artifacts`, { token: caller.token }),
      errors: refusals('Project'),
    });
  });
});
