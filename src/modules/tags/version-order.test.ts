// The version order of tag names, against the examples of the version_sorter gem.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { versionSort } from './version-order.ts';

const sort = (names: string[]) => versionSort(names, (n) => n);

test('numbers by value, a word before a number, a shorter version before a longer one that continues with a number', () => {
  assert.deepEqual(sort(['1.0.9', '1.0.10', '2.0', '3.1.4.2', '1.0.9a']), ['1.0.9a', '1.0.9', '1.0.10', '2.0', '3.1.4.2']);
  assert.deepEqual(sort(['10.0', '1.0', '2.0']), ['1.0', '2.0', '10.0']);
  assert.deepEqual(sort(['v1.10.0', 'v1.9.0', 'v1.9.0-rc1', 'v1.2']), ['v1.2', 'v1.9.0-rc1', 'v1.9.0', 'v1.10.0']);
  assert.deepEqual(sort(['2.0', '2.0-rc1', '2.0rc2', '1.0.9.b']), ['1.0.9.b', '2.0-rc1', '2.0rc2', '2.0']);
});

test('names that are no versions: words first, then names without parts; numbers past 32 bits are words', () => {
  assert.deepEqual(sort(['', '<--------->', 'ćevapčići', 'The Quick Brown Fox', '-', 'a12a8a4a22122d01541b62193e9bdad7f5eda552', '1.'.repeat(65)]), [
    '<--------->',
    '-',
    'The Quick Brown Fox',
    'a12a8a4a22122d01541b62193e9bdad7f5eda552',
    'ćevapčići',
    '',
    '1.'.repeat(65),
  ]);
  const big = [2 ** 32, 2 ** 32 + 1, 2 ** 32 + 2, 2 ** 32 - 2, 2 ** 32 - 1].map(String);
  assert.deepEqual(sort([...big].reverse()), big);
});

test('equal versions fall back to byte order, so the order is total', () => {
  assert.deepEqual(sort(['v1.0', '1.0', 'v1_0']), ['v1.0', 'v1_0', '1.0']);
  assert.deepEqual(sort(['b', 'a', 'B']), ['B', 'a', 'b']);
});
