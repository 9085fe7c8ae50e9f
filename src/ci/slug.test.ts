// Ref slugs and job group names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobGroupName, slugify, testSuiteName } from './slug.ts';

describe('slugify', () => {
  const cases: [string, string][] = [
    ['main', 'main'],
    ['feature/Add-Login', 'feature-add-login'],
    ['v1.2.3', 'v1-2-3'],
    ['--weird--', 'weird'],
    ['a__b', 'a--b'],
    ['Ünïcode', 'n-code'],
    ['emoji😀x', 'emoji-x'],
    ['', ''],
    ['---', ''],
    ['a'.repeat(70), 'a'.repeat(63)],
    [`${'a'.repeat(62)}/b`, 'a'.repeat(62)],
    [`${'b'.repeat(10)}${'-'.repeat(60)}`, 'b'.repeat(10)],
    ['İstanbul', 'i-stanbul'],
  ];
  for (const [ref, slug] of cases) test(JSON.stringify(ref), () => assert.equal(slugify(ref), slug));
});

describe('jobGroupName', () => {
  const cases: [string, string][] = [
    ['rspec 1/3', 'rspec'],
    ['rspec 10/10', 'rspec'],
    ['rspec:1/3', 'rspec'],
    ['rspec 1:3', 'rspec'],
    ['rspec 1\\3', 'rspec'],
    ['test 1/2 3/4', 'test'],
    ['test: [ruby, 2.7]', 'test'],
    ['test: [ruby, 2.7] 1/2', 'test'],
    ['build', 'build'],
    ['build1/3', 'build1/3'],
    ['rspec 1/3 extra', 'rspec 1/3 extra'],
    ['  spaced job 2/4  ', 'spaced job'],
    ['version 1.2', 'version 1.2'],
  ];
  for (const [name, group] of cases) test(JSON.stringify(name), () => assert.equal(jobGroupName(name), group));
});

test('testSuiteName keeps matrix job names', () => {
  assert.equal(testSuiteName('rspec 1/3', false), 'rspec');
  assert.equal(testSuiteName('test: [ruby, 2.7]', true), 'test: [ruby, 2.7]');
});
