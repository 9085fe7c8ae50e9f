import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, errorOf } from './test-support.ts';

const job = async (content: string, name?: string) => {
  const config = await compile(content);
  return name ? config.jobs.find((j) => j.name === name)! : config.jobs[0];
};

test('stages default to build, test, deploy between .pre and .post; a job defaults to test', async () => {
  const config = await compile('rspec:\n  script: rake\n');
  assert.deepEqual(config.stages, ['.pre', 'build', 'test', 'deploy', '.post']);
  assert.equal(config.jobs[0].stage, 'test');
  assert.equal(config.jobs[0].stageIdx, 2);
  assert.equal(config.jobs[0].when, 'on_success');
});

test('written stages get .pre and .post unless placed elsewhere; types is the old spelling', async () => {
  assert.deepEqual((await compile('stages: [a, b]\nj: {stage: a, script: x}')).stages, ['.pre', 'a', 'b', '.post']);
  assert.deepEqual((await compile('stages: [a, .pre, b]\nj: {stage: a, script: x}')).stages, ['a', '.pre', 'b', '.post']);
  const typed = await compile('types: [one]\nj: {type: one, script: x}');
  assert.deepEqual(typed.stages, ['.pre', 'one', '.post']);
  assert.equal(typed.jobs[0].stage, 'one');
  assert.match(typed.warnings[0], /types/);
});

test('scripts are flattened; hidden jobs are templates only', async () => {
  const config = await compile(`
.hidden: {script: nope}
j:
  before_script: echo before
  script: [a, [b, [c]], d]
  after_script: [[z]]
`);
  assert.deepEqual(config.jobs.map((j) => j.name), ['j']);
  assert.deepEqual(config.jobs[0].script, ['a', 'b', 'c', 'd']);
  assert.deepEqual(config.jobs[0].beforeScript, ['echo before']);
  assert.deepEqual(config.jobs[0].afterScript, ['z']);
});

test('image and services are normalized to objects', async () => {
  const j = await job(`
j:
  script: x
  image: {name: ruby:3, entrypoint: [""]}
  services: [postgres:14, {name: redis:7, alias: cache, command: [redis-server]}]
`);
  assert.deepEqual(j.image, { name: 'ruby:3', entrypoint: [''] });
  assert.deepEqual(j.services, [{ name: 'postgres:14' }, { name: 'redis:7', alias: 'cache', command: ['redis-server'] }]);
  assert.deepEqual((await job('j: {script: x, image: alpine}')).image, { name: 'alpine' });
});

test('variables: global with descriptions, job ones in order, integers as strings', async () => {
  const config = await compile(`
variables:
  A: "1"
  B: {value: two, description: The second}
  C: 3
j:
  script: x
  variables: {D: d, A: override}
`);
  assert.deepEqual(config.variables, [
    { key: 'A', value: '1' },
    { key: 'B', value: 'two', description: 'The second' },
    { key: 'C', value: '3' },
  ]);
  assert.deepEqual(config.jobs[0].variables, [{ key: 'D', value: 'd' }, { key: 'A', value: 'override' }]);
});

test('when, start_in, allow_failure and its exit codes', async () => {
  const config = await compile(`
manual: {script: x, when: manual}
manual_blocking: {script: x, when: manual, allow_failure: false}
delayed: {script: x, when: delayed, start_in: 30 minutes}
codes: {script: x, allow_failure: {exit_codes: [137, 255]}}
one_code: {script: x, allow_failure: {exit_codes: 1}}
always: {script: x, when: always, allow_failure: true}
`);
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.equal(by.manual.allowFailure, true, 'job-level manual is optional');
  assert.equal(by.manual_blocking.allowFailure, false);
  assert.equal(by.delayed.when, 'delayed');
  assert.equal(by.delayed.startIn, '30 minutes');
  assert.deepEqual([by.codes.allowFailure, by.codes.allowFailureExitCodes], [false, [137, 255]]);
  assert.deepEqual(by.one_code.allowFailureExitCodes, [1]);
  assert.deepEqual([by.always.when, by.always.allowFailure], ['always', true]);
});

test('needs, dependencies and the DAG', async () => {
  const config = await compile(`
build: {stage: build, script: x}
lint: {stage: build, script: x}
test: {script: x, needs: [build, {job: lint, artifacts: false}, {job: maybe, optional: true}], dependencies: [build]}
maybe: {stage: build, script: x}
now: {script: x, needs: []}
plain: {script: x, dependencies: []}
cross: {script: x, needs: [{project: group/other, job: build, ref: main, artifacts: true}]}
`);
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.deepEqual(by.test.needs, [
    { name: 'build', artifacts: true, optional: false },
    { name: 'lint', artifacts: false, optional: false },
    { name: 'maybe', artifacts: true, optional: true },
  ]);
  assert.deepEqual(by.test.dependencies, ['build']);
  assert.deepEqual(by.now.needs, []);
  assert.equal(by.plain.needs, null);
  assert.deepEqual(by.plain.dependencies, []);
  assert.deepEqual(by.cross.needs, []);
  assert.deepEqual(by.cross.crossNeeds, [{ project: 'group/other', job: 'build', ref: 'main', artifacts: true }]);
});

test('artifacts with reports, caches as a list', async () => {
  const j = await job(`
j:
  script: x
  artifacts:
    name: "$CI_JOB_NAME"
    paths: [dist/]
    exclude: [dist/*.map]
    untracked: false
    when: always
    expire_in: 1 week
    expose_as: Build output
    reports:
      junit: report.xml
      dotenv: [build.env]
      cobertura: coverage.xml
  cache:
    key: {files: [Gemfile.lock]}
    paths: [vendor/]
    policy: pull
`);
  assert.deepEqual(j.artifacts, {
    name: '$CI_JOB_NAME', untracked: false, paths: ['dist/'], exclude: ['dist/*.map'], when: 'always',
    expire_in: '1 week', expose_as: 'Build output',
    reports: { junit: ['report.xml'], dotenv: ['build.env'], cobertura: ['coverage.xml'] },
  });
  assert.deepEqual(j.cache, [{ key: { files: ['Gemfile.lock'] }, paths: ['vendor/'], policy: 'pull', when: 'on_success' }]);
  const two = await job('j: {script: x, cache: [{key: a, paths: [a]}, {paths: [b], when: on_failure}]}');
  assert.deepEqual(two.cache, [
    { key: 'a', paths: ['a'], policy: 'pull-push', when: 'on_success' },
    { key: 'default', paths: ['b'], policy: 'pull-push', when: 'on_failure' },
  ]);
});

test('tags, retry, timeout, coverage, interruptible, resource_group, environment', async () => {
  const j = await job(`
j:
  script: x
  tags: [docker, linux]
  retry: {max: 2, when: [runner_system_failure, stuck_or_timeout_failure]}
  timeout: 1h 30m
  coverage: '/Coverage: \\d+\\.\\d+%/'
  interruptible: true
  resource_group: production
  environment: {name: review/$CI_COMMIT_REF_SLUG, url: https://example.com, on_stop: stop}
stop:
  script: x
  when: manual
  environment: {name: review/$CI_COMMIT_REF_SLUG, action: stop}
`);
  assert.deepEqual(j.tags, ['docker', 'linux']);
  assert.deepEqual(j.retry, { max: 2, when: ['runner_system_failure', 'stuck_or_timeout_failure'] });
  assert.equal(j.timeout, 5400);
  assert.equal(j.coverage, 'Coverage: \\d+\\.\\d+%');
  assert.equal(j.interruptible, true);
  assert.equal(j.resourceGroup, 'production');
  assert.deepEqual(j.environment, { name: 'review/$CI_COMMIT_REF_SLUG', url: 'https://example.com', on_stop: 'stop', action: 'start' });
  assert.deepEqual((await job('j: {script: x, retry: 1}')).retry, { max: 1, when: ['always'] });
  assert.deepEqual((await job('j: {script: x, environment: production}')).environment, { name: 'production', action: 'start' });
});

test('parallel as a number or a matrix', async () => {
  assert.equal((await job('j: {script: x, parallel: 3}')).parallel, 3);
  assert.deepEqual((await job('j: {script: x, parallel: {matrix: [{A: [x, y], B: z}]}}')).parallel, { matrix: [{ A: ['x', 'y'], B: ['z'] }] });
});

test('trigger jobs (bridges): multi-project and child pipelines', async () => {
  const config = await compile(`
up: {trigger: group/downstream}
multi: {trigger: {project: group/other, branch: stable, strategy: depend}}
child: {trigger: {include: [{local: child.yml}, {template: Bash.gitlab-ci.yml}], strategy: depend}}
short: {trigger: {include: child.yml}}
`);
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.equal(by.up.bridge, true);
  assert.equal(by.up.script, null);
  assert.deepEqual(by.up.trigger, { project: 'group/downstream' });
  assert.deepEqual(by.multi.trigger, { project: 'group/other', branch: 'stable', strategy: 'depend' });
  assert.deepEqual(by.child.trigger, { include: [{ local: 'child.yml' }, { template: 'Bash.gitlab-ci.yml' }], strategy: 'depend' });
  assert.deepEqual(by.short.trigger, { include: [{ local: 'child.yml' }] });
});

test('only/except: the default only without rules or workflow:rules, none otherwise', async () => {
  const config = await compile(`
a: {script: x}
b: {script: x, only: [main, /^release-/]}
c: {script: x, except: {refs: [tags], variables: [$SKIP]}}
d: {script: x, rules: [{if: $X}]}
`);
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.deepEqual(by.a.only, { refs: ['branches', 'tags'] });
  assert.deepEqual(by.b.only, { refs: ['main', '/^release-/'] });
  assert.deepEqual([by.c.only, by.c.except], [{ refs: ['branches', 'tags'] }, { refs: ['tags'], variables: ['$SKIP'] }]);
  assert.deepEqual([by.d.only, by.d.rules], [null, [{ if: '$X' }]]);
  const withWorkflow = await compile('workflow: {rules: [{when: always}]}\na: {script: x}');
  assert.equal(withWorkflow.jobs[0].only, null);
  assert.deepEqual(withWorkflow.workflowRules, [{ when: 'always' }]);
});

test('rules: every clause kept; nested lists (anchors) flattened', async () => {
  const j = await job(`
.common: &common
  - if: $CI_MERGE_REQUEST_IID
    when: never
d:
  script: x
  rules:
    - *common
    - if: $CI_COMMIT_BRANCH == "main"
      changes: [src/**/*]
      exists: [Dockerfile]
      when: delayed
      start_in: 5 min
      allow_failure: true
      variables: {DEPLOY: "1"}
    - when: manual
`);
  assert.deepEqual(j.rules, [
    { if: '$CI_MERGE_REQUEST_IID', when: 'never' },
    { if: '$CI_COMMIT_BRANCH == "main"', changes: ['src/**/*'], exists: ['Dockerfile'], when: 'delayed', start_in: '5 min', allow_failure: true, variables: { DEPLOY: '1' } },
    { when: 'manual' },
  ]);
});

test('a last rule with only `when` warns without workflow:rules', async () => {
  const config = await compile('j: {script: x, rules: [{if: $A}, {when: on_success}]}');
  assert.deepEqual(config.warnings, [
    'jobs:j may allow multiple pipelines to run for a single action due to `rules:when` clause with no `workflow:rules` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings',
  ]);
  assert.deepEqual((await compile('workflow: {rules: [{if: $A}]}\nj: {script: x, rules: [{when: always}]}')).warnings, []);
  assert.deepEqual((await compile('j: {script: x, rules: [{when: never}]}')).warnings, []);
});

test('YAML: anchors, aliases, merge keys and YAML 1.1 booleans as Psych reads them', async () => {
  const config = await compile(`
.defaults: &defaults
  image: ruby:3
  tags: [docker]
j:
  <<: *defaults
  script: x
  interruptible: yes
  variables: {FLAG: y}
`);
  assert.deepEqual(config.jobs[0].image, { name: 'ruby:3' });
  assert.deepEqual(config.jobs[0].tags, ['docker']);
  assert.equal(config.jobs[0].interruptible, true);
  assert.deepEqual(config.jobs[0].variables, [{ key: 'FLAG', value: 'y' }]);
});

test('mergedYaml is the expanded configuration', async () => {
  const config = await compile('.t: {script: [a]}\nj: {extends: .t, stage: build}\n');
  assert.equal(config.mergedYaml, '.t:\n  script:\n    - a\nj:\n  script:\n    - a\n  extends: .t\n  stage: build\n');
});

// Errors, each with the platform's first message.
const errors: Array<[string, string]> = [
  ['', 'Please provide content of .gitlab-ci.yml'],
  ['   \n\n', 'Please provide content of .gitlab-ci.yml'],
  ['just a string', 'Invalid configuration format'],
  ['- a\n- b', 'Invalid configuration format'],
  ['# only a comment', 'Invalid configuration format'],
  ['.hidden: {script: x}', 'jobs config should contain at least one visible job'],
  ['stages: [a]', 'jobs config should contain at least one visible job'],
  ['build: {script: x, foo: 1}', 'jobs:build config contains unknown keys: foo'],
  ['build: {script: x, foo: 1, bar: 2}', 'jobs:build config contains unknown keys: foo, bar'],
  ['build: {image: x}', 'jobs build config should implement a script: or a trigger: keyword'],
  ['unit_tests: {stage: test}', 'jobs unit tests config should implement a script: or a trigger: keyword'],
  ['build: 5', 'jobs build config should be a hash'],
  ['test: {script: x, stage: nope}', 'test job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post'],
  ['stages: build\nj: {script: x}', 'stages config should be an array of strings'],
  ['j: {script: x, when: later}', 'jobs:j when should be one of: on_success, on_failure, always, manual, delayed'],
  ['j: {script: x, only: [main], rules: [{if: $A}]}', 'jobs:j config key may not be used with `rules`: only'],
  ['j: {script: x, except: [main], rules: [{if: $A}]}', 'jobs:j config key may not be used with `rules`: except'],
  ['j: {script: x, script_x: 1}', 'jobs:j config contains unknown keys: script_x'],
  ['j: {script: x, rules: [{if: "$A =="}]}', 'jobs:j:rules:rule if invalid expression syntax'],
  ['j: {script: x, rules: [{iff: $A}]}', 'jobs:j:rules:rule config contains unknown keys: iff'],
  ['j: {script: x, rules: [{when: sometimes}]}', 'jobs:j:rules:rule when unknown value: sometimes'],
  ['j: {script: x, needs: [nope]}', 'j job: undefined need: nope'],
  ['j: {script: x, dependencies: [nope]}', 'j job: undefined dependency: nope'],
  ['a: {stage: deploy, script: x}\nb: {stage: build, script: x, needs: [a]}', 'b job: need a is not defined in current or prior stages'],
  ['a: {stage: deploy, script: x}\nb: {stage: build, script: x, dependencies: [a]}', 'b job: dependency a is not defined in current or prior stages'],
  ['a: {script: x, needs: [b]}\nb: {script: x, needs: [a]}', 'The pipeline has circular dependencies'],
  ['a: {script: x, needs: [a]}', 'The pipeline has circular dependencies'],
  ['j: {script: x, when: delayed}', 'jobs:j start in should be a duration'],
  ['j: {script: x, when: delayed, start_in: 2 weeks}', 'jobs:j start in should not exceed the limit'],
  ['j: {script: x, start_in: 1 hour}', 'jobs:j start in must be blank'],
  ['j: {script: x, variables: [A]}', 'jobs:j:variables config should be a hash of key value pairs'],
  ['variables: {A: [1]}\nj: {script: x}', 'variables config should be a hash of key value pairs, value can be a hash'],
  ['variables: {V: 2.7}\nj: {script: x}', 'variables config should be a hash of key value pairs, value can be a hash'],
  ['j: {script: x, allow_failure: maybe}', 'jobs:j allow failure should be a hash or a boolean value'],
  ['j: {script: x, parallel: 1}', 'jobs:j:parallel config must be greater than or equal to 2'],
  ['j: {script: x, parallel: 201}', 'jobs:j:parallel config must be less than or equal to 200'],
  ['j: {script: x, parallel: {matrix: [{A: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {B: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {C: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {D: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {E: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {F: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {G: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {H: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {I: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {J: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {K: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {L: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {M: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}, {N: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o]}]}}', 'jobs:j:parallel:matrix config generates too many jobs (maximum is 200)'],
  ['j: {script: x, retry: 3}', 'jobs:j:retry config must be less than or equal to 2'],
  ['j: {script: x, retry: {max: 1, when: [bad_luck]}}', 'jobs:j:retry when contains unknown values: bad_luck'],
  ['j: {script: x, timeout: forever}', 'jobs:j timeout should be a duration'],
  ['j: {script: x, timeout: 2 months}', 'jobs:j timeout should not exceed the limit'],
  ['j: {script: x, coverage: "Coverage"}', 'jobs:j:coverage config must be a regular expression'],
  ['j: {script: x, tags: docker}', 'jobs:j:tags config should be an array of strings'],
  ['j: {script: [x, 1]}', 'jobs:j:script config should be a string or a nested array of strings up to 10 levels deep'],
  ['j: {script: []}', "jobs:j script can't be blank"],
  ['j: {script: x, artifacts: {when: never}}', 'jobs:j:artifacts when should be on_success, on_failure or always'],
  ['j: {script: x, artifacts: {reports: {xunit: a.xml}}}', 'jobs:j:artifacts:reports config contains unknown keys: xunit'],
  ['j: {script: x, artifacts: {expire_in: eventually}}', 'jobs:j:artifacts expire in should be a duration'],
  ['j: {script: x, cache: {policy: sometimes}}', 'jobs:j:cache policy should be pull-push, push, or pull'],
  ['j: {script: x, cache: {key: a/b}}', 'jobs:j:cache:key config cannot contain the "/" character'],
  ['j: {script: x, interruptible: sometimes}', 'jobs:j:interruptible config should be a boolean value'],
  ['j: {script: x, image: {entrypoint: [a]}}', "jobs:j:image name can't be blank"],
  ['j: {script: x, needs: [a], dependencies: [b]}\na: {stage: build, script: x}\nb: {stage: build, script: x}', 'jobs:j dependencies the b should be part of needs'],
  ['j: {trigger: a/b, script: x}', 'jobs:j config contains unknown keys: trigger'],
  ['j: {trigger: a/b, image: x}', 'jobs:j config contains unknown keys: image'],
  ['j: {trigger: {project: a/b, strategy: wait}}', 'jobs:j:trigger strategy should be depend'],
  ['workflow: {rules: [{when: manual}]}\nj: {script: x}', 'workflow:rules:rule when unknown value: manual'],
  ['workflow: {when: always}\nj: {script: x}', 'workflow config contains unknown keys: when'],
  ['default: {stage: build}\nj: {script: x}', 'default config contains unknown keys: stage'],
  ['image: a\ndefault: {image: b}\nj: {script: x}', 'image is defined in top-level and `default:` entry'],
  ['j: {script: x, only: main}', 'jobs:j:only has to be either an array of conditions or a hash'],
  ['j: {script: x, only: {variables: ["$A =="]}}', 'jobs:j:only:variables config should be an array of valid expressions'],
  ['j: {script: x, environment: {name: a, on_stop: stop}}', 'j job: on_stop job stop is not defined'],
  ['j: {script: x, environment: {name: a, on_stop: stop}}\nstop: {script: x, environment: {name: a}}', 'j job: on_stop job stop needs to have action stop defined'],
  ['a: {script: x\n', '(<unknown>): Flow map in block collection must be sufficiently indented and end with a }'],
  ['a: 2021-01-01\nj: {script: x}', 'Tried to load unspecified class: Date'],
  ['j: {script: x, extends: .nope}', 'j: unknown keys in `extends` (.nope)'],
];

test('configuration errors carry the platform\'s first message', async (t) => {
  for (const [content, message] of errors) {
    await t.test(message, async () => assert.equal(await errorOf(compile(content)), message, content));
  }
});

test('a parallel job is named by its first instance in stage errors', async () => {
  assert.equal(
    await errorOf(compile('rspec: {script: x, stage: nope, parallel: 3}')),
    'rspec 1/3 job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post',
  );
});

test('needs may name a parallel job or one of its instances', async () => {
  const config = await compile('a: {stage: build, script: x, parallel: 2}\nb: {script: x, needs: [a, "a 1/2"]}');
  assert.equal(config.jobs.length, 2);
  assert.equal(await errorOf(compile('a: {stage: build, script: x, parallel: 2}\nb: {script: x, needs: ["a 3/2"]}')), 'b job: undefined need: a 3/2');
});
