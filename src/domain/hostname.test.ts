// Host names in the words of the platform's hostname validation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostnameErrors } from './hostname.ts';

test('valid host names, numeric labels included', () => {
  for (const name of ['example.com', 'APPS.Example.com', '10.0.0.1', 'a', `${'a'.repeat(63)}.com`]) assert.deepEqual(hostnameErrors(name), [], name);
});

test('each failure once, in the validator’s order', () => {
  assert.deepEqual(hostnameErrors(''), ['must be between 1 and 255 characters long']);
  assert.deepEqual(hostnameErrors(`${'a'.repeat(64)}.com`), ['must be between 1 and 63 characters long']);
  assert.deepEqual(hostnameErrors('a_b.c_d'), ['contains invalid characters (valid characters: [a-z0-9\\-])']);
  assert.deepEqual(hostnameErrors('-a.b-'), ['begins or ends with hyphen']);
  assert.deepEqual(hostnameErrors('a..b'), ['must be between 1 and 63 characters long', 'contains invalid characters (valid characters: [a-z0-9\\-])', 'must not contain consecutive dots']);
  // Ruby's split drops the empty label after a final dot.
  assert.deepEqual(hostnameErrors('example.com.'), ['must not end with a dot']);
});
