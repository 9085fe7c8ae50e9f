import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileConfig } from './compile.ts';
import { listTemplates } from './templates.ts';
import { compile, errorOf, fakeResolver } from './test-support.ts';
import type { IncludeRef } from './types.ts';

test('local, project, remote and template includes merge under the including file', async () => {
  const calls: IncludeRef[] = [];
  const config = await compileConfig({
    content: `
include:
  - local: /ci/build.yml
  - project: group/shared
    ref: v1
    file: [lint.yml, /deploy.yml]
  - remote: https://example.com/ci/remote.yml
  - template: Workflows/Branch-Pipelines.gitlab-ci.yml
variables: {WHO: main}
build: {script: [main wins]}
`,
    resolveInclude: fakeResolver(
      {
        files: { 'ci/build.yml': 'variables: {WHO: included, OTHER: o}\nbuild: {stage: build, script: [included]}' },
        projects: { 'group/shared': { 'lint.yml': 'lint: {script: lint}', 'deploy.yml': 'deploy: {stage: deploy, script: ship}' } },
        remote: { 'https://example.com/ci/remote.yml': 'remote_job: {script: r}' },
      },
      calls,
    ),
  });
  assert.deepEqual(config.jobs.map((j) => j.name), ['build', 'lint', 'deploy', 'remote_job']);
  const build = config.jobs[0];
  assert.deepEqual([build.stage, build.script], ['build', ['main wins']]);
  assert.deepEqual(config.variables, [{ key: 'WHO', value: 'main' }, { key: 'OTHER', value: 'o' }]);
  assert.deepEqual(config.workflowRules, [{ if: '$CI_COMMIT_TAG' }, { if: '$CI_COMMIT_BRANCH' }]);
  assert.deepEqual(calls, [
    { type: 'local', path: 'ci/build.yml', location: '/ci/build.yml' },
    { type: 'project', project: 'group/shared', file: 'lint.yml', ref: 'v1' },
    { type: 'project', project: 'group/shared', file: 'deploy.yml', ref: 'v1' },
    { type: 'remote', url: 'https://example.com/ci/remote.yml' },
  ]);
  assert.doesNotMatch(config.mergedYaml, /include/);
});

test('include as a string: a local path or a URL', async () => {
  const calls: IncludeRef[] = [];
  await compileConfig({
    content: 'include: [ci/a.yml, "https://example.com/b.yml"]\nj: {script: x}',
    resolveInclude: fakeResolver({ files: { 'ci/a.yml': 'a: {script: a}' }, remote: { 'https://example.com/b.yml': 'b: {script: b}' } }, calls),
  });
  assert.deepEqual(calls.map((c) => c.type), ['local', 'remote']);
  const single = await compile('include: ci/a.yml\nj: {script: x}', { files: { 'ci/a.yml': 'a: {script: a}' } });
  assert.deepEqual(single.jobs.map((j) => j.name), ['a', 'j']);
});

test('nested includes: local paths from the repository root; inside another project, from that project', async () => {
  const calls: IncludeRef[] = [];
  const config = await compileConfig({
    content: 'include: [{local: ci/one.yml}, {project: group/lib, file: entry.yml}]\nj: {script: x}',
    resolveInclude: fakeResolver(
      {
        files: { 'ci/one.yml': 'include: ci/two.yml\none: {script: x}', 'ci/two.yml': 'two: {script: x}' },
        projects: { 'group/lib': { 'entry.yml': 'include: {local: lib/inner.yml}\nentry: {script: x}', 'lib/inner.yml': 'inner: {script: x}' } },
      },
      calls,
    ),
  });
  assert.deepEqual(config.jobs.map((j) => j.name).sort(), ['entry', 'inner', 'j', 'one', 'two']);
  assert.deepEqual(calls.at(-1), { type: 'local', path: 'lib/inner.yml', location: 'lib/inner.yml', project: 'group/lib', ref: null });
});

test('include locations expand variables; include:rules keep or drop an include', async () => {
  const calls: IncludeRef[] = [];
  const config = await compileConfig({
    content: `
include:
  - local: ci/$ENVIRONMENT.yml
  - local: ci/never.yml
    rules: [{if: $ENVIRONMENT == "other"}]
  - local: ci/kept.yml
    rules: [{if: $ENVIRONMENT == "prod"}]
j: {script: x}
`,
    variables: { ENVIRONMENT: 'prod' },
    resolveInclude: fakeResolver({ files: { 'ci/prod.yml': 'p: {script: x}', 'ci/kept.yml': 'k: {script: x}' } }, calls),
  });
  assert.deepEqual(config.jobs.map((j) => j.name), ['p', 'k', 'j']);
  assert.deepEqual(calls.map((c) => (c.type === 'local' ? c.path : '')), ['ci/prod.yml', 'ci/kept.yml']);
});

test('shipped templates compile', async () => {
  const listed = listTemplates();
  assert.ok(listed.includes('Bash.gitlab-ci.yml'), listed.join(', '));
  for (const name of [...listed, 'Workflows/Branch-Pipelines.gitlab-ci.yml', 'Workflows/MergeRequest-Pipelines.gitlab-ci.yml']) {
    const config = await compile(`include: {template: ${name}}\nextra: {script: x}`);
    assert.ok(config.jobs.length >= 1, name);
  }
  const bash = await compile('include: {template: Bash.gitlab-ci.yml}\nextra: {script: x}');
  assert.deepEqual(bash.jobs[0].beforeScript, ['echo "Before script section"']);
});

const errorCases: Array<[string, Parameters<typeof compile>[1], string]> = [
  ['include: missing.yml\nj: {script: x}', {}, 'Local file `missing.yml` does not exist!'],
  ['include: {local: /ci/missing.yml}\nj: {script: x}', {}, 'Local file `/ci/missing.yml` does not exist!'],
  ['include: bad.yml\nj: {script: x}', { files: { 'bad.yml': 'a: [' } }, 'Included file `bad.yml` does not have valid YAML syntax!'],
  ['include: list.yml\nj: {script: x}', { files: { 'list.yml': '- a\n- b' } }, 'Included file `list.yml` does not have valid YAML syntax!'],
  ['include: empty.yml\nj: {script: x}', { files: { 'empty.yml': '  \n' } }, 'Local file `empty.yml` is empty!'],
  ['include: notes.txt\nj: {script: x}', {}, 'Included file `notes.txt` does not have YAML extension!'],
  ['include: {template: Nope.gitlab-ci.yml}\nj: {script: x}', {}, 'Included file `Nope.gitlab-ci.yml` is empty or does not exist!'],
  ['include: {template: ../../../etc/passwd.gitlab-ci.yml}\nj: {script: x}', {}, 'Included file `../../../etc/passwd.gitlab-ci.yml` is empty or does not exist!'],
  ['include: {template: Bash.yml}\nj: {script: x}', {}, 'Template file `Bash.yml` is not a valid location!'],
  ['include: {project: nope/nope, file: a.yml}\nj: {script: x}', {}, 'Project `nope/nope` not found or access denied!'],
  ['include: {project: g/p, file: a.yml}\nj: {script: x}', { projects: { 'g/p': {} } }, 'Project `g/p` file `a.yml` does not exist!'],
  ['include: "https://example.com/x.yml"\nj: {script: x}', {}, 'Remote file `https://example.com/x.yml` could not be fetched because of HTTP code `404` error!'],
  ['include: {local: a.yml, remote: "https://x/a.yml"}\nj: {script: x}', {}, 'Include `{"local":"a.yml","remote":"https://x/a.yml"}` needs to match exactly one accessor!'],
  ['include: {file: a.yml}\nj: {script: x}', {}, 'Include `{"file":"a.yml"}` needs to match exactly one accessor!'],
  ['include: [a.yml, a.yml]\nj: {script: x}', { files: { 'a.yml': 'a: {script: x}' } }, 'Include `{"local":"a.yml"}` was already included!'],
  ['include: a.yml\nj: {script: x}', { files: { 'a.yml': 'include: b.yml\na: {script: x}', 'b.yml': 'include: a.yml\nb: {script: x}' } }, 'Include `{"local":"a.yml"}` was already included!'],
  ['include: [5]\nj: {script: x}', {}, 'Each include must be a hash or a string'],
];

test('include errors carry the platform\'s messages', async (t) => {
  for (const [content, repository, message] of errorCases) {
    await t.test(message, async () => assert.equal(await errorOf(compile(content, repository)), message));
  }
});

test('more includes than the limit, nested ones counted, is an error', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`f${i}.yml`] = `include: f${i + 1}.yml\nj${i}: {script: x}`;
  files['f120.yml'] = 'last: {script: x}';
  assert.equal(await errorOf(compile('include: f0.yml\nj: {script: x}', { files })), 'Maximum of 100 nested includes are allowed!');
  const flat = Array.from({ length: 101 }, (_, i) => `- g${i}.yml`).join('\n');
  const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`g${i}.yml`, `g${i}: {script: x}`]));
  assert.equal(await errorOf(compile(`include:\n${flat}\nj: {script: x}`, { files: many })), 'Maximum of 100 nested includes are allowed!');
  const hundred = Array.from({ length: 100 }, (_, i) => `- g${i}.yml`).join('\n');
  assert.equal((await compile(`include:\n${hundred}\nj: {script: x}`, { files: many })).jobs.length, 101);
});

test('a resolver failure that is no configuration error reads as a missing file', async () => {
  const message = await errorOf(
    compileConfig({ content: 'include: a.yml\nj: {script: x}', resolveInclude: async () => { throw new Error('disk on fire'); } }),
  );
  assert.equal(message, 'Included file `a.yml` is empty or does not exist!');
});

test('anchors do not cross files, !reference does', async () => {
  const config = await compile('include: t.yml\nj: {script: !reference [.setup, script]}', {
    files: { 't.yml': '.setup: {script: [echo setup]}' },
  });
  assert.deepEqual(config.jobs[0].script, ['echo setup']);
  assert.match(await errorOf(compile('include: t.yml\nj: {script: *a}', { files: { 't.yml': '.x: &a [y]' } })), /^\(<unknown>\): /);
});
