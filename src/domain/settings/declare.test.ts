// One declaration gives the parameters, the entity fields, the defaults, the row reader and the presenter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import { bool, boolOrNull, coded, declareSettings, int, list, oneOf, strOrNull } from './declare.ts';

const EXAMPLE = declareSettings('examples', {
  enabled: bool(true),
  public_builds: bool(false, { field: 'public_jobs' }),
  depth: int(50, { minimum: 0, maximum: 1000, column: 'git_depth' }),
  note: strOrNull(null, { when: 'admin' }),
  mode: oneOf(['fast', 'slow'], 'fast', { only: 'update' }),
  wish: bool(false, { field: null, only: 'create' }),
  level: coded({ off: 0, on: 20 }, 'on'),
  tags: list(['a'], { values: ['a', 'b'] }),
  maybe: boolOrNull(null, { param: null }),
  key: strOrNull(null, { secret: true }),
  plugin_enabled: bool(false, { requires: ['depth'] }),
});

describe('declareSettings', () => {
  test('defaults, and a missing row reads as them', () => {
    const defaults = { enabled: true, public_builds: false, depth: 50, note: null, mode: 'fast', wish: false, level: 'on', tags: ['a'], maybe: null, key: null, plugin_enabled: false };
    assert.deepEqual(EXAMPLE.defaults, defaults);
    assert.deepEqual(EXAMPLE.read(undefined), defaults);
    const { depth: _depth, ...rest } = defaults;
    assert.deepEqual(EXAMPLE.defaultColumns(), { ...rest, git_depth: 50, level: 20, tags: '["a"]' });
  });

  test('a row (SQLite 0/1 booleans, integer codes, JSON lists) reads as typed values', () => {
    const row = { enabled: 0, public_builds: 1, git_depth: 3, note: 'n', mode: 'slow', wish: 1, level: 0, tags: '["b"]', maybe: 1, key: 'k', plugin_enabled: 0 };
    assert.deepEqual(EXAMPLE.read(row), { enabled: false, public_builds: true, depth: 3, note: 'n', mode: 'slow', wish: true, level: 'off', tags: ['b'], maybe: true, key: 'k', plugin_enabled: false });
    assert.deepEqual(EXAMPLE.columns({ level: 'off', tags: ['a', 'b'], depth: 9 }), { git_depth: 9, level: 0, tags: '["a","b"]' });
  });

  test('parameters per route: renamed, route-only, unsettable left out', () => {
    assert.deepEqual(Object.keys(EXAMPLE.params('create')), ['enabled', 'public_builds', 'depth', 'note', 'wish', 'level', 'tags', 'key', 'plugin_enabled']);
    assert.deepEqual(Object.keys(EXAMPLE.params('update')), ['enabled', 'public_builds', 'depth', 'note', 'mode', 'level', 'tags', 'key', 'plugin_enabled']);
    assert.deepEqual(EXAMPLE.fromParams({ public_builds: true, mode: 'slow', wish: true, maybe: true, other: 1 }, 'update'), { public_builds: true, mode: 'slow' });
  });

  test('the presenter: renamed fields, audience-only fields, no hidden ones or secrets', () => {
    const values = { ...EXAMPLE.defaults, note: 'for admins', key: 'secret' };
    const shown = { enabled: true, public_jobs: false, depth: 50, mode: 'fast', level: 'on', tags: ['a'], maybe: null, plugin_enabled: false };
    assert.deepEqual(EXAMPLE.present(values, { admin: true }), { ...shown, note: 'for admins' });
    assert.deepEqual(JSON.parse(JSON.stringify(EXAMPLE.present(values))), shown);
    const entity = Type.Object(EXAMPLE.entity, { additionalProperties: false });
    assert.ok(Value.Check(entity, EXAMPLE.present(values, { admin: true })));
    assert.ok(Value.Check(entity, JSON.parse(JSON.stringify(EXAMPLE.present(values)))));
  });

  test('bounds as model validation, and parameters another one requires', () => {
    assert.deepEqual(EXAMPLE.validate({ depth: -1 }), { depth: ['must be greater than or equal to 0'] });
    assert.deepEqual(EXAMPLE.validate({ depth: 1001 }), { depth: ['must be less than or equal to 1000'] });
    assert.deepEqual(EXAMPLE.validate({ depth: 10 }), {});
    assert.equal(EXAMPLE.missingRequired({ plugin_enabled: true }, 'update'), 'depth');
    assert.equal(EXAMPLE.missingRequired({ plugin_enabled: true, depth: 1 }, 'update'), null);
    assert.equal(EXAMPLE.missingRequired({ plugin_enabled: false }, 'update'), null);
  });
});
