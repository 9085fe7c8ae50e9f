// CI lint as 14.x answers it (`lib/api/lint.rb`, `Gitlab::Ci::Lint`): the global lint with its
// `status`, merged YAML and jobs on request, 401 for anonymous callers when sign-up is closed; the
// project lint of the default branch's configuration and of given content, statically or as a dry
// run that saves nothing; and who may call each (roles × visibility).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../src/core/access/levels.ts';
import { LintEntity, ProjectLintEntity } from '../../src/modules/ci-lint/ci-lint.schemas.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { setInstanceSettings } from '../factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';

const CONFIG = `
stages: [build, test]
default:
  before_script: [echo before]
build:
  stage: build
  script: [make]
  tags: [linux]
  environment: production
test:
  stage: test
  script: [make test]
  needs: [build]
  except: [tags]
manual:
  stage: test
  script: [deploy]
  when: manual
  rules:
    - if: $CI_COMMIT_BRANCH == "main"
`;

let t: TestApp;
let owner: TestUser;
let projectId: number;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  owner = await t.user();
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Lint', initialize_with_readme: true } });
  expectStatus(created, 201);
  projectId = created.json().id;
  await t.runJobs();
  expectStatus(
    await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: '[ci skip] CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CONFIG }] },
    }),
    201,
  );
  await t.runJobs();
  world = await buildMatrixWorld(t, 'lint');
});
after(() => t.close());

describe('POST /ci/lint', () => {
  test('a valid configuration: status, no merged YAML or jobs unless asked', async () => {
    const res = await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: CONFIG } });
    expectStatus(res, 200);
    expectEntity(res.json(), LintEntity);
    assert.deepEqual(res.json(), { valid: true, errors: [], warnings: [], status: 'valid' });
  });

  test('merged YAML and the jobs of a static check', async () => {
    const res = await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: CONFIG, include_merged_yaml: true, include_jobs: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), LintEntity);
    const body = res.json();
    assert.match(body.merged_yaml, /build:/);
    assert.deepEqual(body.jobs, [
      {
        name: 'build',
        stage: 'build',
        before_script: ['echo before'],
        script: ['make'],
        after_script: [],
        tag_list: ['linux'],
        only: { refs: ['branches', 'tags'] },
        except: null,
        environment: 'production',
        when: 'on_success',
        allow_failure: false,
        needs: null,
      },
      {
        name: 'test',
        stage: 'test',
        before_script: ['echo before'],
        script: ['make test'],
        after_script: [],
        tag_list: [],
        only: { refs: ['branches', 'tags'] },
        except: { refs: ['tags'] },
        environment: null,
        when: 'on_success',
        allow_failure: false,
        needs: [{ name: 'build', artifacts: true, optional: false }],
      },
      {
        name: 'manual',
        stage: 'test',
        before_script: ['echo before'],
        script: ['deploy'],
        after_script: [],
        tag_list: [],
        only: null,
        except: null,
        environment: null,
        when: 'manual',
        allow_failure: true,
        needs: null,
      },
    ]);
  });

  test('an invalid configuration: its errors, no jobs', async () => {
    const res = await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: 'build:\n  script: 1\n  stage: nope\n', include_jobs: true, include_merged_yaml: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), LintEntity);
    const body = res.json();
    assert.equal(body.status, 'invalid');
    assert.equal(body.valid, false);
    assert.ok(body.errors.length > 0);
    assert.deepEqual(body.jobs, []);
    assert.equal(body.merged_yaml, null);
    const empty = (await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: '' } })).json();
    assert.deepEqual(empty.errors, ['Please provide content of .gitlab-ci.yml']);
    const local = (await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: 'include: ci/a.yml\njob:\n  script: [x]\n' } })).json();
    assert.deepEqual(local.errors, ['Local file `ci/a.yml` does not have project!']);
    expectError(await t.post('/api/v4/ci/lint', { token: owner.token, body: {} }), 400, { error: 'content is missing' });
  });

  test('anonymous callers: answered while anyone may sign up, 401 when sign-up is closed or limited', async () => {
    expectStatus(await t.post('/api/v4/ci/lint', { body: { content: CONFIG } }), 200);
    await setInstanceSettings(t, { signup_enabled: false });
    expectError(await t.post('/api/v4/ci/lint', { body: { content: CONFIG } }), 401, { message: '401 Unauthorized' });
    expectStatus(await t.post('/api/v4/ci/lint', { token: owner.token, body: { content: CONFIG } }), 200);
    await setInstanceSettings(t, { signup_enabled: true, domain_allowlist: ['example.com'] });
    expectError(await t.post('/api/v4/ci/lint', { body: { content: CONFIG } }), 401, { message: '401 Unauthorized' });
    await setInstanceSettings(t, { domain_allowlist: [] });
  });
});

describe('/projects/:id/ci/lint', () => {
  test("GET: the default branch's configuration", async () => {
    const res = await t.get(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectLintEntity);
    const body = res.json();
    assert.equal(body.valid, true);
    assert.deepEqual(body.errors, []);
    assert.equal(typeof body.merged_yaml, 'string');
    assert.equal('jobs' in body, false);
    const withJobs = (await t.get(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, query: { include_jobs: 'true' } })).json();
    assert.deepEqual(withJobs.jobs.map((j: { name: string }) => j.name), ['build', 'test', 'manual']);
  });

  test('a dry run builds the pipeline of the default branch and saves nothing', async () => {
    const pipelines = await t.count('ci_pipelines');
    const res = await t.get(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, query: { dry_run: 'true', include_jobs: 'true' } });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectLintEntity);
    const body = res.json();
    assert.equal(body.valid, true);
    assert.deepEqual(body.jobs[0], {
      name: 'build',
      stage: 'build',
      before_script: ['echo before'],
      script: ['make'],
      after_script: [],
      tag_list: ['linux'],
      environment: 'production',
      when: 'on_success',
      allow_failure: false,
    });
    assert.deepEqual(body.jobs.map((j: { name: string }) => j.name), ['build', 'test', 'manual']);
    // Rules are evaluated for the default branch: a job for another branch is not in the pipeline.
    const other = await t.post(`/api/v4/projects/${projectId}/ci/lint`, {
      token: owner.token,
      body: { content: 'a:\n  script: [x]\n  rules:\n    - if: $CI_COMMIT_BRANCH == "dev"\nb:\n  script: [y]\n', dry_run: true, include_jobs: true },
    });
    expectStatus(other, 200);
    assert.deepEqual(other.json().jobs.map((j: { name: string }) => j.name), ['b']);
    // Statically both jobs are there.
    const statically = await t.post(`/api/v4/projects/${projectId}/ci/lint`, {
      token: owner.token,
      body: { content: 'a:\n  script: [x]\n  rules:\n    - if: $CI_COMMIT_BRANCH == "dev"\nb:\n  script: [y]\n', include_jobs: true },
    });
    assert.deepEqual(statically.json().jobs.map((j: { name: string }) => j.name), ['a', 'b']);
    const filtered = (
      await t.post(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, body: { content: 'workflow:\n  rules:\n    - when: never\na:\n  script: [x]\n', dry_run: true } })
    ).json();
    assert.deepEqual(filtered, { valid: false, errors: ['Pipeline filtered out by workflow rules.'], warnings: [], merged_yaml: null });
    assert.equal(await t.count('ci_pipelines'), pipelines);
    assert.equal(await t.count('ci_builds'), 0);
  });

  test("POST: given content in the project's context, local includes from the default branch", async () => {
    const res = await t.post(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, body: { content: 'include: .gitlab-ci.yml\nextra:\n  stage: test\n  script: [x]\n', include_jobs: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectLintEntity);
    assert.equal(res.json().valid, true);
    assert.deepEqual(res.json().jobs.map((j: { name: string }) => j.name), ['build', 'test', 'manual', 'extra']);
    const missing = (await t.post(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, body: { content: 'include: nope.yml\n' } })).json();
    assert.deepEqual(missing, { valid: false, errors: ['Local file `nope.yml` does not exist!'], warnings: [], merged_yaml: null });
    expectError(await t.post(`/api/v4/projects/${projectId}/ci/lint`, { token: owner.token, body: {} }), 400, { error: 'content is missing' });
  });
});

describe('who may lint a project (roles × visibility)', () => {
  test('GET /projects/:id/ci/lint: readers of the code (not guests of private projects)', async () => {
    const readers = expectation({ success: 200, auth: 'optional' });
    await runMatrix(world, {
      expect: (role, visibility) => (role === 'guest' && visibility === 'private' ? 403 : readers(role, visibility)),
      call: (c) => t.get(`/api/v4/projects/${c.project.id}/ci/lint`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), ProjectLintEntity),
      errors: refusals('Project'),
    });
  });

  test('POST /projects/:id/ci/lint: those who may create pipelines', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional', minLevel: ACCESS.DEVELOPER, denied: 403 }),
      call: (c) => t.post(`/api/v4/projects/${c.project.id}/ci/lint`, { token: c.caller.token, body: { content: CONFIG } }),
      verify: (res) => expectEntity(res.json(), ProjectLintEntity),
      errors: refusals('Project'),
    });
  });
});
