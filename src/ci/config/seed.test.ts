import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seedPipeline } from './seed.ts';
import { compile, errorOf, pushContext, seed, seededWhens } from './test-support.ts';

test('default only (branches, tags) per source: no merge request pipelines', async () => {
  const content = 'j: {script: x}';
  for (const source of ['push', 'web', 'api', 'trigger', 'schedule', 'pipeline', 'parent_pipeline', 'chat', 'webide', 'external']) {
    assert.deepEqual(await seededWhens(content, { source }), { j: 'on_success' }, source);
  }
  assert.deepEqual(await seededWhens(content, { refType: 'tag', ref: 'v1' }), { j: 'on_success' });
  assert.deepEqual(await seed(content, { source: 'merge_request_event' }), { filteredOut: true, message: 'No stages / jobs for this pipeline.' });
});

test('only/except refs: keywords, names, regular expressions, sources, project paths', async () => {
  const content = `
main_only: {script: x, only: [main]}
release: {script: x, only: ['/^release-\\d+$/']}
tags: {script: x, only: [tags]}
branches: {script: x, only: [branches]}
schedules: {script: x, only: [schedules]}
web: {script: x, only: [web]}
mr: {script: x, only: [merge_requests]}
api_or_triggers: {script: x, only: [api, triggers]}
pushes: {script: x, only: [pushes]}
not_main: {script: x, except: [main]}
not_tags: {script: x, except: [tags]}
here: {script: x, only: [main@group/project]}
elsewhere: {script: x, only: [main@other/project]}
fallback: {script: x}
`;
  assert.deepEqual(Object.keys(await seededWhens(content)), ['main_only', 'branches', 'pushes', 'not_tags', 'here', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { ref: 'release-12' })), ['release', 'branches', 'pushes', 'not_main', 'not_tags', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { refType: 'tag', ref: 'v1' })), ['tags', 'pushes', 'not_main', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { source: 'schedule' })), ['main_only', 'branches', 'schedules', 'not_tags', 'here', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { source: 'web', ref: 'dev' })), ['branches', 'web', 'not_main', 'not_tags', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { source: 'trigger', ref: 'dev' })), ['branches', 'api_or_triggers', 'not_main', 'not_tags', 'fallback']);
  assert.deepEqual(Object.keys(await seededWhens(content, { source: 'merge_request_event', ref: 'feature' })), ['mr'], 'the default only keeps the others out');
});

test('only/except variables and changes', async () => {
  const content = `
deploy: {script: x, only: {refs: [main], variables: [$DEPLOY == "yes", $FORCE]}}
docs: {script: x, only: {changes: ['docs/**/*']}}
skip: {script: x, except: {variables: [$SKIP]}}
`;
  assert.deepEqual(Object.keys(await seededWhens(content, { variables: { DEPLOY: 'yes' }, changedPaths: ['src/a.ts'] })), ['deploy', 'skip']);
  assert.deepEqual(Object.keys(await seededWhens(content, { variables: { FORCE: '1', SKIP: '1' }, changedPaths: ['docs/a/b.md'] })), ['deploy', 'docs']);
  assert.deepEqual(Object.keys(await seededWhens(content, { ref: 'dev', variables: { DEPLOY: 'yes' } })), ['docs', 'skip'], 'no diff: changes hold');
});

test('rules: first match decides when, allow_failure, start_in and variables; no match drops the job', async () => {
  const content = `
variables: {G: global}
j:
  script: x
  variables: {J: job, G: job-level}
  rules:
    - if: $CI_COMMIT_TAG
      when: never
    - if: $CI_COMMIT_BRANCH == "main"
      when: manual
      variables: {J: rule, R: rule}
    - if: $CI_COMMIT_BRANCH =~ /^feature/
      when: delayed
      start_in: 2 hours
      allow_failure: true
    - if: $G == "job-level"
`;
  const main = await seed(content);
  assert.ok(!main.filteredOut);
  const job = main.jobs[0];
  assert.deepEqual([job.when, job.allowFailure, job.startIn], ['manual', false, null], 'manual from rules blocks');
  assert.deepEqual(job.yamlVariables, [
    { key: 'G', value: 'job-level', public: true },
    { key: 'J', value: 'rule', public: true },
    { key: 'R', value: 'rule', public: true },
  ]);
  const feature = await seed(content, { ref: 'feature/x' });
  assert.ok(!feature.filteredOut);
  assert.deepEqual([feature.jobs[0].when, feature.jobs[0].allowFailure, feature.jobs[0].startIn], ['delayed', true, 7200]);
  assert.equal(feature.jobs[0].options.start_in, '2 hours');
  assert.deepEqual(await seededWhens(content, { ref: 'other' }), { j: 'on_success' }, 'job variables are visible to rules');
  assert.deepEqual(await seed(content, { refType: 'tag', ref: 'v1' }), { filteredOut: true, message: 'No stages / jobs for this pipeline.' });
});

test('rules: job-level when is the default; manual keeps its optional default', async () => {
  const content = `
a: {script: x, when: manual, rules: [{if: $CI_COMMIT_BRANCH}]}
b: {script: x, rules: [{if: $CI_COMMIT_BRANCH, when: manual}]}
c: {script: x, rules: [{if: $CI_COMMIT_BRANCH, when: manual, allow_failure: true}]}
d: {script: x, allow_failure: true, rules: [{if: $CI_COMMIT_BRANCH, when: manual}]}
e: {script: x, when: always, rules: [{when: on_failure}]}
`;
  const result = await seed(content);
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.jobs.map((j) => [j.name, j.when, j.allowFailure]), [
    ['a', 'manual', true], ['b', 'manual', false], ['c', 'manual', true], ['d', 'manual', true], ['e', 'on_failure', false],
  ]);
});

test('rules: changes and exists', async () => {
  const content = `
src: {script: x, rules: [{changes: ['src/**/*.ts', '{docs,site}/*.md']}]}
docker: {script: x, rules: [{exists: [Dockerfile]}]}
deep: {script: x, rules: [{exists: ['**/package.json']}]}
dot: {script: x, rules: [{exists: ['*.yml']}]}
`;
  const listPaths = async () => ['.gitlab-ci.yml', 'README.md', 'app/package.json', 'src/a/b.ts'];
  assert.deepEqual(Object.keys(await seededWhens(content, { changedPaths: ['src/a/b.ts'], listPaths })), ['src', 'deep', 'dot']);
  assert.deepEqual(Object.keys(await seededWhens(content, { changedPaths: ['site/x.md'], listPaths: async () => ['Dockerfile'] })), ['src', 'docker']);
  assert.deepEqual(Object.keys(await seededWhens(content, { changedPaths: ['src/a.js'], listPaths: async () => ['package.json'] })), ['deep']);
});

test('workflow:rules filter the pipeline and set variables for every job', async () => {
  const content = `
variables: {ENV: dev, KEEP: k}
workflow:
  rules:
    - if: $CI_COMMIT_TAG
      variables: {ENV: prod}
    - if: $CI_PIPELINE_SOURCE == "schedule"
      when: never
    - if: $CI_COMMIT_BRANCH
j: {script: x, variables: {OWN: o}}
`;
  assert.deepEqual(await seed(content, { source: 'schedule' }), { filteredOut: true, message: 'Pipeline filtered out by workflow rules.' });
  const tag = await seed(content, { refType: 'tag', ref: 'v1' });
  assert.ok(!tag.filteredOut);
  assert.deepEqual(tag.workflowVariables, [{ key: 'ENV', value: 'prod', public: true }]);
  assert.deepEqual(tag.jobs[0].yamlVariables.map((v) => `${v.key}=${v.value}`), ['ENV=prod', 'KEEP=k', 'OWN=o']);
  const mr = await seed(content, { source: 'merge_request_event', variables: { CI_COMMIT_BRANCH: '' } });
  assert.ok(mr.filteredOut);
  const branch = await seed(content);
  assert.ok(!branch.filteredOut);
  assert.equal(branch.jobs[0].when, 'on_success', 'workflow:rules drop the default only');
});

test('parallel and matrix jobs: the platform\'s names, CI_NODE_* and matrix variables', async () => {
  const result = await seed(`
rspec: {script: x, parallel: 3}
test:
  script: x
  variables: {RUBY: default, OTHER: o}
  parallel:
    matrix:
      - RUBY: ['2.7', '3.0']
        DB: [pg, mysql]
      - RUBY: jruby
`);
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.jobs.map((j) => j.name), [
    'rspec 1/3', 'rspec 2/3', 'rspec 3/3',
    'test: [2.7, pg]', 'test: [2.7, mysql]', 'test: [3.0, pg]', 'test: [3.0, mysql]', 'test: [jruby]',
  ]);
  const second = result.jobs[1];
  assert.deepEqual(second.parallelVariables, [
    { key: 'CI_NODE_INDEX', value: '2', public: true },
    { key: 'CI_NODE_TOTAL', value: '3', public: true },
  ]);
  assert.deepEqual([second.options.instance, second.options.parallel, second.baseName], [2, { total: 3 }, 'rspec']);
  const matrixJob = result.jobs[4];
  assert.deepEqual(matrixJob.yamlVariables.map((v) => `${v.key}=${v.value}`), ['RUBY=2.7', 'OTHER=o', 'DB=mysql']);
  assert.deepEqual(matrixJob.parallelVariables.map((v) => v.value), ['2', '5']);
});

test('needs: parallel names expand; optional needs drop; missing ones are errors', async () => {
  const content = `
build: {stage: build, script: x, parallel: 2}
lint: {stage: build, script: x, rules: [{if: $LINT}]}
test:
  script: x
  needs: [build, {job: lint, optional: true}]
  dependencies: [build]
strict: {script: x, needs: [lint]}
`;
  const ok = await seed(content.replace(/^strict.*$/m, ''));
  assert.ok(!ok.filteredOut);
  const test1 = ok.jobs.find((j) => j.name === 'test')!;
  assert.deepEqual(test1.needs, [
    { name: 'build 1/2', artifacts: true, optional: false },
    { name: 'build 2/2', artifacts: true, optional: false },
  ]);
  assert.deepEqual(test1.dependencies, ['build 1/2', 'build 2/2']);
  assert.equal(test1.schedulingType, 'dag');
  assert.equal(ok.jobs[0].schedulingType, 'stage');
  assert.equal(await errorOf(seed(content)), "'strict' job needs 'lint' job, but 'lint' is not in any previous stage");
  const withLint = await seed(content, { variables: { LINT: '1' } });
  assert.ok(!withLint.filteredOut);
  assert.equal(withLint.jobs.find((j) => j.name === 'test')!.needs!.length, 3);
});

test('more needs than the limit is an error', async () => {
  const producers = Array.from({ length: 51 }, (_, i) => `p${i}: {stage: build, script: x}`).join('\n');
  const needs = Array.from({ length: 51 }, (_, i) => `p${i}`).join(', ');
  assert.equal(
    await errorOf(seed(`${producers}\nc: {script: x, needs: [${needs}]}`)),
    'c: one job can only need 50 others, but you have listed 51. See needs keyword documentation for more details',
  );
});

test('stages: only those with jobs, in order, with their index; jobs sorted by stage', async () => {
  const result = await seed(`
stages: [build, test, deploy, cleanup]
d: {stage: deploy, script: x}
b: {stage: build, script: x}
p: {stage: .pre, script: x}
`);
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.stages, [{ name: '.pre', index: 0 }, { name: 'build', index: 1 }, { name: 'deploy', index: 3 }]);
  assert.deepEqual(result.jobs.map((j) => [j.name, j.stageIdx]), [['p', 0], ['b', 1], ['d', 3]]);
});

test('only .pre/.post jobs make no pipeline', async () => {
  assert.deepEqual(await seed('p: {stage: .pre, script: x}\nq: {stage: .post, script: x}'), { filteredOut: true, message: 'No stages / jobs for this pipeline.' });
});

test('a seeded job carries the options the runner needs', async () => {
  const result = await seed(`
default: {image: ruby:3, before_script: [setup]}
j:
  script: [run]
  after_script: [done]
  services: [postgres]
  tags: [docker]
  artifacts: {paths: [out], reports: {junit: rspec.xml}}
  cache: {key: k, paths: [vendor]}
  retry: {max: 2, when: script_failure}
  timeout: 30m
  coverage: '/(\\d+)%/'
  interruptible: true
  resource_group: deploy-$CI_COMMIT_REF_NAME
  environment: {name: review/$CI_COMMIT_REF_NAME, url: https://x}
  allow_failure: {exit_codes: [3]}
  dependencies: []
`);
  assert.ok(!result.filteredOut);
  const job = result.jobs[0];
  assert.deepEqual(job.options, {
    image: { name: 'ruby:3' },
    services: [{ name: 'postgres' }],
    allow_failure_criteria: { exit_codes: [3] },
    artifacts: { paths: ['out'], reports: { junit: ['rspec.xml'] } },
    cache: [{ key: 'k', paths: ['vendor'], policy: 'pull-push', when: 'on_success' }],
    dependencies: [],
    job_timeout: 1800,
    before_script: ['setup'],
    script: ['run'],
    after_script: ['done'],
    environment: { name: 'review/$CI_COMMIT_REF_NAME', url: 'https://x', action: 'start' },
    resource_group_key: 'deploy-$CI_COMMIT_REF_NAME',
    retry: { max: 2, when: ['script_failure'] },
    coverage: '(\\d+)%',
    interruptible: true,
  });
  assert.deepEqual([job.tags, job.environment, job.resourceGroup, job.coverageRegex, job.interruptible], [
    ['docker'], 'review/main', 'deploy-main', '(\\d+)%', true,
  ]);
  assert.deepEqual([job.allowFailure, job.allowFailureExitCodes], [false, [3]]);
});

test('bridges carry their trigger', async () => {
  const result = await seed('child: {trigger: {include: c.yml, strategy: depend}}\nj: {script: x}');
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.jobs[0].trigger, { include: [{ local: 'c.yml' }], strategy: 'depend' });
  assert.equal(result.jobs[1].trigger, null);
});

test('global variables follow inherit:variables', async () => {
  const config = await compile('variables: {A: a, B: b}\nnone: {script: x, inherit: {variables: false}}\nsome: {script: x, inherit: {variables: [B]}}');
  const result = await seedPipeline(config, pushContext());
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.jobs.map((j) => j.yamlVariables.map((v) => v.key)), [[], ['B']]);
});
