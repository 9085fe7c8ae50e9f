// Hostile configurations end in a configuration error within bounded time, never a hang or crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seedPipeline } from './seed.ts';
import { compile, errorOf, pushContext } from './test-support.ts';

const quick = async (promise: Promise<unknown>): Promise<string> => {
  const started = Date.now();
  const message = await errorOf(promise);
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  return message;
};

test('a file over 1 MB is too big', async () => {
  const big = `j: {script: x}\n# ${'x'.repeat(1024 * 1024)}\n`;
  assert.equal(await quick(compile(big)), 'The parsed YAML is too big');
  assert.equal(await quick(compile('include: big.yml\nj: {script: x}', { files: { 'big.yml': big } })), 'Included file `big.yml` does not have valid YAML syntax!');
});

test('a "billion laughs" file is too big', async () => {
  const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  assert.equal(await quick(compile(`${levels.join('\n')}\nj: {script: x}\n`)), 'The parsed YAML is too big');
});

test('many uses of one anchor are fine', async () => {
  const jobs = Array.from({ length: 300 }, (_, i) => `j${i}: {<<: *t, stage: test}`).join('\n');
  const config = await compile(`.t: &t {script: [echo], image: ruby}\n${jobs}`);
  assert.equal(config.jobs.length, 300);
});

test('nesting deeper than 100 levels is too big, however deep', async () => {
  for (const depth of [101, 1000, 100_000]) {
    const text = `j: {script: x}\nk: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
    assert.equal(await quick(compile(text)), 'The parsed YAML is too big', String(depth));
  }
  const block = `j: {script: x}\n${Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} 1\n`;
  assert.equal(await quick(compile(block)), 'The parsed YAML is too big');
});

test('!reference fan-out is bounded', async () => {
  const lines = ['.r0: {s: [x, x, x, x, x, x, x, x, x, x]}'];
  for (let i = 1; i <= 9; i++) lines.push(`.r${i}: {s: [${Array(10).fill(`!reference [.r${i - 1}, s]`).join(', ')}]}`);
  lines.push('j: {script: !reference [.r9, s]}');
  assert.equal(await quick(compile(lines.join('\n'))), 'The parsed YAML is too big');
});

test('include loops and too many includes end', async () => {
  assert.equal(
    await quick(compile('include: a.yml\nj: {script: x}', { files: { 'a.yml': 'include: a.yml\na: {script: x}' } })),
    'Include `{"local":"a.yml"}` was already included!',
  );
});

test('extends loops and depth end', async () => {
  assert.equal(await quick(compile('a: {extends: b, script: x}\nb: {extends: c}\nc: {extends: a}')), 'a: circular dependency detected in `extends`');
});

test('needs cycles end', async () => {
  const ring = Array.from({ length: 500 }, (_, i) => `j${i}: {script: x, needs: [j${(i + 1) % 500}]}`).join('\n');
  assert.equal(await quick(compile(ring)), 'The pipeline has circular dependencies');
});

test('more jobs than the limit are refused with a clear message', async () => {
  const jobs = (n: number) => Array.from({ length: n }, (_, i) => `j${i}: {script: x}`).join('\n');
  assert.equal(await quick(compile(jobs(2500))), 'Pipeline has too many jobs! Requested 2500, but the limit is 2000.');
  // 10,000 jobs already exceed the parsed size, as on the platform
  assert.match(await quick(compile(jobs(10_000))), /^(The parsed YAML is too big|Pipeline has too many jobs!.*)$/);
});

test('parallel expansion beyond the job limit is refused while seeding', async () => {
  const jobs = Array.from({ length: 20 }, (_, i) => `j${i}: {script: x, parallel: 200}`).join('\n');
  const config = await compile(jobs);
  assert.match(await quick(seedPipeline(config, pushContext())), /^Pipeline has too many jobs! Requested \d+, but the limit is 2000\.$/);
});

test('catastrophic regular expressions in rules, only and changes run in linear time', async () => {
  const evil = 'a'.repeat(30_000);
  const config = await compile(`
r: {script: x, rules: [{if: '$EVIL =~ /^(a+)+$/'}]}
o: {script: x, only: ['/^(a|aa)+b$/']}
c: {script: x, rules: [{changes: ['**/*a*a*a*a*a*a*a*a*b']}]}
fallback: {script: x}
`);
  const started = Date.now();
  const result = await seedPipeline(config, pushContext({ ref: evil, variables: { EVIL: `${evil}!` }, changedPaths: [`${evil}.txt`] }));
  assert.ok(!result.filteredOut);
  assert.deepEqual(result.jobs.map((j) => j.name), ['fallback']);
  assert.ok(Date.now() - started < 5000);
});

test('an expression with too many tokens is a syntax error, not a hang', async () => {
  const expression = Array.from({ length: 1000 }, () => '$A').join(' || ');
  assert.equal(await quick(compile(`j: {script: x, rules: [{if: '${expression}'}]}`)), 'jobs:j:rules:rule if invalid expression syntax');
});
