// Dotenv reports (notes gitlab-ci.md §3.4, §3.6; the platform's Ci::ParseDotenvArtifactService,
// 14.x): a job's `artifacts:reports:dotenv` upload (gzip members, one per file) is parsed on upload
// into variables kept with the job, encrypted; the refusals (too large, more than 20 variables,
// not KEY=VALUE lines, a bad key, not gzip) answer 400 with the platform's message and keep
// nothing. The jobs that depend on it (earlier stages, `needs` with artifacts, `dependencies:`)
// receive them after the YAML variables and before the instance's, groups' and project's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectError, expectStatus } from '../matchers.ts';
import { RUNNER_FEATURES, uploadArtifact, variablePairs } from './ci-test-helpers.ts';
import { type CiProject, ciProject } from './fixtures.ts';

const CONFIG = `
stages: [build, test, deploy]
variables:
  FROM_YAML: yaml
  SHARED: yaml
build:
  stage: build
  script: [make]
  artifacts:
    reports:
      dotenv: build.env
test:
  stage: test
  script: [check]
isolated:
  stage: test
  script: [check]
  dependencies: []
dag:
  stage: deploy
  script: [ship]
  needs: [build]
dag-without-artifacts:
  stage: deploy
  script: [ship]
  needs:
    - job: build
      artifacts: false
`;

type Payload = { id: number; token: string; job_info: { name: string }; variables: { key: string; value: string; public: boolean; masked: boolean }[] };

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
});
after(() => t.close());

const dotenv = (...files: string[]) => ({ filename: 'build.env.gz', content: Buffer.concat(files.map((f) => gzipSync(f))) });
const DOTENV = { artifact_type: 'dotenv', artifact_format: 'gzip' };

async function takeBuild(): Promise<{ ci: CiProject; runner: string; build: Payload }> {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig(CONFIG);
  const build = (await ci.takeJob(runner, { features: RUNNER_FEATURES })) as Payload | null;
  assert.equal(build?.job_info.name, 'build');
  return { ci, runner, build };
}

async function takeAll(ci: CiProject, runner: string): Promise<Map<string, Payload>> {
  const jobs = new Map<string, Payload>();
  for (let job = await ci.takeJob(runner, { features: RUNNER_FEATURES }); job; job = await ci.takeJob(runner, { features: RUNNER_FEATURES })) {
    jobs.set(job.job_info.name, job as unknown as Payload);
  }
  return jobs;
}

describe('a dotenv report', () => {
  test('reaches the dependent jobs, after the YAML variables and before the CI/CD variables, encrypted at rest', async () => {
    const { ci, runner, build } = await takeBuild();
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/variables`, { token: ci.owner.token, body: { key: 'PROJECT_WINS', value: 'project' } }), 201);
    const res = await uploadArtifact(t, build.id, build.token, dotenv('FROM_DOTENV=one\nSHARED = dotenv \n', 'PROJECT_WINS=dotenv\nQUOTED="a b"\nREF=${FROM_YAML}_x\nEMPTY=\n'), DOTENV);
    expectStatus(res, 201);
    assert.equal(res.json(), '201');
    const stored = await t.deps.db.selectFrom('ci_job_variables').selectAll().where('job_id', '=', build.id).orderBy('id').execute();
    assert.deepEqual(stored.map((v) => [v.key, v.source]), [['FROM_DOTENV', 'dotenv'], ['SHARED', 'dotenv'], ['PROJECT_WINS', 'dotenv'], ['QUOTED', 'dotenv'], ['REF', 'dotenv'], ['EMPTY', 'dotenv']]);
    assert.ok(stored.every((v) => !v.value_encrypted.includes('dotenv') && !v.value_encrypted.includes('one')));
    await ci.finishJob(build, 'success');

    const jobs = await takeAll(ci, runner);
    const payload = jobs.get('test') as Payload;
    const keys = ['FROM_YAML', 'SHARED', 'FROM_DOTENV', 'PROJECT_WINS', 'QUOTED', 'REF', 'EMPTY'];
    assert.deepEqual(variablePairs(payload, keys), [
      ['FROM_YAML', 'yaml'],
      ['SHARED', 'yaml'],
      ['FROM_DOTENV', 'one'],
      ['SHARED', 'dotenv'],
      ['PROJECT_WINS', 'dotenv'],
      ['QUOTED', '"a b"'],
      ['REF', '${FROM_YAML}_x'],
      ['EMPTY', ''],
      ['PROJECT_WINS', 'project'],
    ]);
    assert.deepEqual(payload.variables.find((v) => v.key === 'FROM_DOTENV'), { key: 'FROM_DOTENV', value: 'one', public: false, masked: false });
    // Through `needs` too (those jobs started with `test`), but not to jobs that asked for no artifacts.
    assert.deepEqual([...jobs.keys()].sort(), ['dag', 'dag-without-artifacts', 'isolated', 'test']);
    assert.deepEqual(variablePairs(jobs.get('dag') as Payload, ['FROM_DOTENV']), [['FROM_DOTENV', 'one']]);
    assert.deepEqual(variablePairs(jobs.get('isolated') as Payload, ['FROM_DOTENV']), []);
    assert.deepEqual(variablePairs(jobs.get('dag-without-artifacts') as Payload, ['FROM_DOTENV']), []);
  });

  test('a key given twice keeps its first place and its last value; a byte order mark and CRLF line ends are fine', async () => {
    const { build } = await takeBuild();
    expectStatus(await uploadArtifact(t, build.id, build.token, dotenv('\ufeffA=1\r\nB=2\r\n', 'A=3\n'), DOTENV), 201);
    const stored = await t.deps.db.selectFrom('ci_job_variables').select('key').where('job_id', '=', build.id).orderBy('id').execute();
    assert.deepEqual(stored.map((v) => v.key), ['A', 'B']);
  });

  describe('refused with 400 and the platform message, keeping nothing', () => {
    const cases: [string, () => { filename: string; content: Buffer }, Record<string, string>, string][] = [
      ['a report of 5 KB or more', () => ({ filename: 'build.env.gz', content: gzipSync(`A=${randomBytes(6000).toString('base64')}\n`) }), DOTENV, 'Dotenv Artifact Too Big. Maximum Allowable Size: 5120'],
      ['more than 20 variables', () => dotenv(Array.from({ length: 21 }, (_, i) => `KEY${i}=v${i}\n`).join('')), DOTENV, 'Dotenv files cannot have more than 20 variables'],
      ['a line without =', () => dotenv('A=1\nnot a variable\n'), DOTENV, 'Invalid Format'],
      ['an empty line', () => dotenv('A=1\n\nB=2\n'), DOTENV, 'Invalid Format'],
      ['a key of other characters', () => dotenv('K E Y=1\n'), DOTENV, "Validation failed: Key can contain only letters, digits and '_'."],
      ['no key', () => dotenv('=1\n'), DOTENV, "Validation failed: Key can't be blank, Key can contain only letters, digits and '_'."],
      ['a key too long', () => dotenv(`${'K'.repeat(256)}=1\n`), DOTENV, 'Validation failed: Key is too long (maximum is 255 characters)'],
      ['not gzip', () => ({ filename: 'build.env.gz', content: Buffer.from('A=1\n') }), DOTENV, 'Invalid Format'],
      ['another format than gzip', () => ({ filename: 'build.env', content: Buffer.from('A=1\n') }), { artifact_type: 'dotenv', artifact_format: 'raw' }, 'Validation failed: Invalid file format with specified file type'],
    ];
    for (const [what, file, query, message] of cases) {
      test(what, async () => {
        const { build } = await takeBuild();
        const before = [await t.count('ci_job_artifacts'), await t.count('ci_job_variables')];
        expectError(await uploadArtifact(t, build.id, build.token, file(), query), 400, { message });
        assert.deepEqual([await t.count('ci_job_artifacts'), await t.count('ci_job_variables')], before);
        // The job may still upload a good report.
        expectStatus(await uploadArtifact(t, build.id, build.token, dotenv('OK=1\n'), DOTENV), 201);
      });
    }
  });

  test('who may upload: the running job, by its token', async () => {
    const { ci, build } = await takeBuild();
    expectError(await uploadArtifact(t, build.id, 'glcbt-wrong', dotenv('A=1\n'), DOTENV), 403, { message: '403 Forbidden' });
    await ci.finishJob(build, 'success');
    const late = await uploadArtifact(t, build.id, build.token, dotenv('A=1\n'), DOTENV);
    expectError(late, 403, { message: '403 Forbidden - Job is not running' });
    assert.equal(late.headers['job-status'], 'success');
    assert.equal(await t.deps.db.selectFrom('ci_job_variables').select('id').where('job_id', '=', build.id).executeTakeFirst(), undefined);
  });
});
