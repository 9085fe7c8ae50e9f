// Ref slugs, job group names, environment slugs and tiers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { environmentSlug, environmentTier, jobGroupName, slugify, testSuiteName } from './slug.ts';

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

describe('environmentSlug', () => {
  // The platform's own table (spec/lib/gitlab/slug/environment_spec.rb), whose suffix `q517sa` is
  // the one of a hash of 64 `a`s: here each name's own SHA-256 gives it.
  const suffix = (name: string) => BigInt(`0x${createHash('sha256').update(name).digest('hex')}`).toString(36).slice(-6);
  test('the suffix is the last six base-36 digits of the hash, as Ruby writes them', () => {
    assert.equal(BigInt(`0x${'a'.repeat(64)}`).toString(36).slice(-6), 'q517sa');
  });
  const cases: [string, string][] = [
    ['staging-12345678901234567', 'staging-123456789-*'],
    ['9-staging-123456789012345', 'env-9-staging-123-*'],
    ['staging-1234567890123456', 'staging-1234567890123456'],
    ['staging-1234567890123456-', 'staging-123456789-*'],
    ['production', 'production'],
    ['PRODUCTION', 'production-*'],
    ['review/1-foo', 'review-1-foo-*'],
    ['1-foo', 'env-1-foo-*'],
    ['1/foo', 'env-1-foo-*'],
    ['foo-', 'foo'],
    ['foo--bar', 'foo-bar-*'],
    ['foo**bar', 'foo-bar-*'],
    ['*-foo', 'env-foo-*'],
    ['staging-12345678-', 'staging-12345678'],
    ['staging-12345678-01234567', 'staging-12345678-*'],
    ['', 'env-*'],
  ];
  for (const [name, slug] of cases) test(JSON.stringify(name), () => assert.equal(environmentSlug(name), slug.replace('*', suffix(name))));
});

test('environmentTier: the declared tier, else the one the name suggests', () => {
  const cases: [string, string | null, string][] = [
    ['review/feature', null, 'development'],
    ['dev', null, 'development'],
    ['qc-lab', null, 'testing'],
    ['test', null, 'testing'],
    ['staging', null, 'staging'],
    ['preview', null, 'development'],
    ['pre-production', null, 'staging'],
    ['production', null, 'production'],
    ['live', null, 'production'],
    ['somewhere', null, 'other'],
    ['production', 'staging', 'staging'],
  ];
  for (const [name, declared, tier] of cases) assert.equal(environmentTier(name, declared), tier, name);
});
