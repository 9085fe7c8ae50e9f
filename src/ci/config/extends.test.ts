import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, errorOf } from './test-support.ts';

test('extends deep-merges mappings, replaces lists and scalars, over several levels and bases', async () => {
  const config = await compile(`
.base:
  image: ruby:2
  variables: {A: base, B: base}
  script: [base]
  tags: [base]
  artifacts: {paths: [a], expire_in: 1 day}
.middle:
  extends: .base
  variables: {B: middle, C: middle}
  tags: [middle]
.other:
  artifacts: {when: always}
  retry: 1
job:
  extends: [.middle, .other]
  variables: {C: job}
  script: [job]
`);
  const job = config.jobs[0];
  assert.deepEqual(job.variables, [{ key: 'A', value: 'base' }, { key: 'B', value: 'middle' }, { key: 'C', value: 'job' }]);
  assert.deepEqual(job.script, ['job']);
  assert.deepEqual(job.tags, ['middle']);
  assert.deepEqual(job.image, { name: 'ruby:2' });
  assert.deepEqual(job.artifacts, { paths: ['a'], expire_in: '1 day', when: 'always' });
  assert.deepEqual(job.retry, { max: 1, when: ['always'] });
});

test('a visible job may extend another visible job; later bases win', async () => {
  const config = await compile('a: {script: a, stage: build}\nb: {extends: a, script: b}\nc: {extends: [a, b], stage: deploy}');
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.deepEqual([by.b.stage, by.b.script], ['build', ['b']]);
  assert.deepEqual([by.c.stage, by.c.script], ['deploy', ['b']]);
});

test('extends errors: unknown, not a mapping, too deep, circular', async () => {
  assert.equal(await errorOf(compile('j: {extends: [.a, .b], script: x}\n.a: {}')), 'j: unknown keys in `extends` (.b)');
  assert.equal(await errorOf(compile('j: {extends: .a, script: x}\n.a: [1]')), 'j: invalid base hashes in `extends` (.a)');
  assert.equal(await errorOf(compile('a: {extends: b, script: x}\nb: {extends: a, script: y}')), 'a: circular dependency detected in `extends`');
  assert.equal(await errorOf(compile('a: {extends: a, script: x}')), 'a: circular dependency detected in `extends`');
  const chain = (n: number) =>
    Array.from({ length: n }, (_, i) => `.l${i}: {extends: .l${i + 1}}`).join('\n') + `\n.l${n}: {script: x}\nj: {extends: .l0}`;
  assert.equal((await compile(chain(8))).jobs[0].script?.[0], 'x');
  assert.equal(await errorOf(compile(chain(12))), '.l10: nesting too deep in `extends`');
});

test('!reference picks scripts, lists and mappings; references inside references resolve', async () => {
  const config = await compile(`
.setup:
  script: [echo setup, echo more]
  vars: {A: "1"}
.rules:
  rules: [{if: $CI_COMMIT_TAG, when: never}]
.indirect:
  script: [!reference [.setup, script], echo indirect]
job:
  script:
    - !reference [.indirect, script]
    - echo job
  variables: !reference [.setup, vars]
  rules:
    - !reference [.rules, rules]
    - when: on_success
`);
  const job = config.jobs[0];
  assert.deepEqual(job.script, ['echo setup', 'echo more', 'echo indirect', 'echo job']);
  assert.deepEqual(job.variables, [{ key: 'A', value: '1' }]);
  assert.deepEqual(job.rules, [{ if: '$CI_COMMIT_TAG', when: 'never' }, { when: 'on_success' }]);
  assert.doesNotMatch(config.mergedYaml, /reference/);
});

test('!reference sees what extends merged', async () => {
  const config = await compile('.a: {script: [a]}\n.b: {extends: .a}\nj: {script: !reference [.b, script]}');
  assert.deepEqual(config.jobs[0].script, ['a']);
});

test('!reference errors', async () => {
  assert.equal(await errorOf(compile('j: {script: !reference [.nope, script]}')), '!reference [".nope", "script"] could not be found');
  assert.equal(await errorOf(compile('.a: {x: 1}\nj: {script: !reference [.a, x, y]}')), '!reference [".a", "x", "y"] could not be found');
  assert.equal(await errorOf(compile('.a: {i: false}\nj: {script: x, interruptible: !reference [.a, i]}')), '!reference [".a", "i"] could not be found');
  assert.equal(await errorOf(compile('j: {script: !reference [.a, 1]}')), '!reference [".a", 1] is not valid');
  assert.equal(await errorOf(compile('j: {script: !reference []}')), '!reference [] is not valid');
  assert.equal(await errorOf(compile('j: {script: !reference .a}')), '!reference ".a" is not valid');
  assert.equal(
    await errorOf(compile('.a: {s: !reference [.b, s]}\n.b: {s: !reference [.a, s]}\nj: {script: !reference [.a, s]}')),
    '!reference [".b", "s"] is part of a circular chain',
  );
  const chain = Array.from({ length: 15 }, (_, i) => `.r${i}: {s: !reference [.r${i + 1}, s]}`).join('\n') + '\n.r15: {s: [x]}\nj: {script: !reference [.r0, s]}';
  assert.match(await errorOf(compile(chain)), /nested too deeply/);
});

test('default: applies to every job unless the job sets the key or inherit says otherwise', async () => {
  const config = await compile(`
default:
  image: ruby:3
  before_script: [setup]
  after_script: [teardown]
  tags: [shared]
  retry: 2
  timeout: 10m
  interruptible: true
  cache: {paths: [vendor]}
  artifacts: {paths: [out]}
  services: [postgres]
variables: {G1: a, G2: b}
plain: {script: x}
own: {script: x, image: alpine, tags: [own]}
none: {script: x, inherit: {default: false, variables: false}}
some: {script: x, inherit: {default: [image, tags], variables: [G2]}}
bridge: {trigger: a/b}
`);
  const by = Object.fromEntries(config.jobs.map((j) => [j.name, j]));
  assert.deepEqual(by.plain.image, { name: 'ruby:3' });
  assert.deepEqual([by.plain.beforeScript, by.plain.afterScript, by.plain.tags], [['setup'], ['teardown'], ['shared']]);
  assert.deepEqual([by.plain.retry, by.plain.timeout, by.plain.interruptible], [{ max: 2, when: ['always'] }, 600, true]);
  assert.deepEqual(by.plain.cache, [{ key: 'default', paths: ['vendor'], policy: 'pull-push', when: 'on_success' }]);
  assert.deepEqual([by.plain.artifacts, by.plain.services], [{ paths: ['out'] }, [{ name: 'postgres' }]]);
  assert.deepEqual([by.own.image, by.own.tags, by.own.beforeScript], [{ name: 'alpine' }, ['own'], ['setup']]);
  assert.deepEqual([by.none.image, by.none.beforeScript, by.none.tags, by.none.inheritVariables], [null, null, null, false]);
  assert.deepEqual([by.some.image, by.some.tags, by.some.beforeScript, by.some.inheritVariables], [{ name: 'ruby:3' }, ['shared'], null, ['G2']]);
  assert.deepEqual([by.bridge.image, by.bridge.tags], [null, null]);
});

test('legacy top-level keys act as default:', async () => {
  const config = await compile('image: node\nbefore_script: [npm ci]\ncache: {key: k, paths: [node_modules]}\nj: {script: x}');
  assert.deepEqual(config.jobs[0].image, { name: 'node' });
  assert.deepEqual(config.jobs[0].beforeScript, ['npm ci']);
  assert.deepEqual(config.jobs[0].cache, [{ key: 'k', paths: ['node_modules'], policy: 'pull-push', when: 'on_success' }]);
});

test('inherit errors', async () => {
  assert.equal(await errorOf(compile('j: {script: x, inherit: {defaults: false}}')), 'jobs:j:inherit config contains unknown keys: defaults');
  assert.equal(await errorOf(compile('j: {script: x, inherit: {default: [stage]}}')), 'jobs:j:inherit:default config contains unknown values: stage');
});
