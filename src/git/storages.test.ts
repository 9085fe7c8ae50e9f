// QUARRY_REPOSITORY_STORAGES: parsing, defaults and refusals, through the configuration.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config.ts';
import { parseRepositoryStorages, storageDirectory } from './storages.ts';

test('default: one storage, default, under the data dir', () => {
  assert.deepEqual(parseRepositoryStorages(undefined, '/data'), { default: '/data/repositories' });
  assert.deepEqual(parseRepositoryStorages('', '/data'), { default: '/data/repositories' });
  assert.deepEqual(loadConfig({ QUARRY_DATA_DIR: '/srv/quarry' }).repositoryStorages, { default: '/srv/quarry/repositories' });
});

test('a JSON object of names to directories; relative directories are under the data dir', () => {
  const storages = parseRepositoryStorages('{"default":"/srv/repos","fast":"ssd/repos"}', '/data');
  assert.deepEqual(storages, { default: '/srv/repos', fast: '/data/ssd/repos' });
  assert.ok(Object.isFrozen(storages));
  assert.equal(storageDirectory(storages, 'fast'), '/data/ssd/repos');
  assert.equal(storageDirectory(storages, 'slow'), null);
  assert.equal(storageDirectory(storages, 'constructor'), null);
  const config = loadConfig({ QUARRY_DATA_DIR: '/d', QUARRY_REPOSITORY_STORAGES: '{"default":"r"}' });
  assert.deepEqual(config.repositoryStorages, { default: path.join('/d', 'r') });
});

test('or a comma-separated list of name=directory', () => {
  assert.deepEqual(parseRepositoryStorages('default=/srv/repos, fast=ssd/repos', '/data'), { default: '/srv/repos', fast: '/data/ssd/repos' });
  assert.throws(() => parseRepositoryStorages('default=/a,default=/b', '/data'), /names the storage "default" twice/);
  assert.throws(() => parseRepositoryStorages('default=/a,fast', '/data'), /name=directory/);
  assert.throws(() => parseRepositoryStorages('fast=/a', '/data'), /must name a storage "default"/);
});

test('bad values stop the configuration with a one-line reason', () => {
  const bad = [
    'not json',
    '["default"]',
    '"default"',
    'null',
    '{}',
    '{"fast":"/x"}',
    '{"default":""}',
    '{"default":3}',
    '{"default":"/x","bad name":"/y"}',
    '{"default":"/x","-dash":"/y"}',
    '{"default":"/x","other":"/x/"}',
    'default=/x,=/y',
    'default=',
  ];
  for (const raw of bad) {
    assert.throws(
      () => loadConfig({ QUARRY_REPOSITORY_STORAGES: raw }),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith('QUARRY_REPOSITORY_STORAGES') && !e.message.includes('\n'),
      raw,
    );
  }
});
