import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogMasker, MASK } from './masking.ts';

/** Feeds the text in pieces of `size` characters and returns the whole masked output. */
function feed(masker: LogMasker, text: string, size: number): string {
  let out = '';
  for (let i = 0; i < text.length; i += size) out += masker.push(text.slice(i, i + size));
  return out + masker.end();
}

test('secrets are masked whatever the pieces the log arrives in', () => {
  const text = 'token=s3cr3t-value and again s3cr3t-value; s3cr3t is not it\n';
  for (const size of [1, 2, 3, 5, 7, 100]) {
    assert.equal(feed(new LogMasker(['s3cr3t-value']), text, size), `token=${MASK} and again ${MASK}; s3cr3t is not it\n`, `pieces of ${size}`);
  }
});

test('a secret containing another is masked whole; empty secrets are ignored', () => {
  assert.equal(feed(new LogMasker(['abcdefgh', 'abcdefgh-longer', '']), 'x abcdefgh-longer y abcdefgh z', 4), `x ${MASK} y ${MASK} z`);
});

test('regular-expression characters in secrets are taken literally', () => {
  assert.equal(feed(new LogMasker(['a.b*c+d?e(f)']), 'a.b*c+d?e(f) axbbbcdde(f)', 3), `${MASK} axbbbcdde(f)`);
});

test('credential URL parameters are masked, in any case, split anywhere', () => {
  const text = 'GET https://x.test/api?private_token=glpat-123&per_page=2 and ?X-Amz-Signature=abc#frag\n';
  const expected = `GET https://x.test/api?private_token=${MASK}&per_page=2 and ?X-Amz-Signature=${MASK}#frag\n`;
  for (const size of [1, 4, 9, 1000]) assert.equal(feed(new LogMasker([]), text, size), expected, `pieces of ${size}`);
});

test('text that cannot start a secret is passed on at once', () => {
  const masker = new LogMasker(['topsecret']);
  assert.equal(masker.push('hello world\n'), 'hello world\n');
  assert.equal(masker.push('tops'), '');
  assert.equal(masker.push('ail'), 'topsail');
  assert.equal(masker.end(), '');
});

test('a secret whose end could begin it again is never cut in two', () => {
  for (const size of [1, 2, 3, 4, 5]) assert.equal(feed(new LogMasker(['abab']), 'xababab abab', size), `x${MASK}ab ${MASK}`, `pieces of ${size}`);
});
