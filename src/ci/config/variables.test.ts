import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandVariables } from './variables.ts';
import { parseDuration } from './duration.ts';

const values = (list: Array<{ key: string; value: string }>) => Object.fromEntries(list.map((v) => [v.key, v.value]));

test('references are expanded in every syntax, in any order of definition', () => {
  const out = expandVariables([
    { key: 'URL', value: '$SCHEME://${HOST}:%PORT%/x' },
    { key: 'SCHEME', value: 'https' },
    { key: 'HOST', value: '$NAME.example.com' },
    { key: 'NAME', value: 'quarry' },
    { key: 'PORT', value: '443' },
  ]);
  assert.equal(values(out).URL, 'https://quarry.example.com:443/x');
  assert.deepEqual(out.map((v) => v.key), ['URL', 'SCHEME', 'HOST', 'NAME', 'PORT'], 'the order is kept');
});

test('unknown references stay as written; raw variables are not expanded', () => {
  const out = expandVariables([
    { key: 'A', value: '$MISSING and ${ALSO_MISSING}' },
    { key: 'B', value: '$A', raw: true },
    { key: 'C', value: '$A' },
  ]);
  assert.deepEqual(values(out), { A: '$MISSING and ${ALSO_MISSING}', B: '$A', C: '$MISSING and ${ALSO_MISSING}' });
});

test('the last definition of a key wins; a variable naming itself sees the one before', () => {
  const out = expandVariables([
    { key: 'PATH', value: '/bin' },
    { key: 'X', value: '$PATH' },
    { key: 'PATH', value: '$PATH:/usr/local/bin' },
  ]);
  assert.equal(out[2].value, '/bin:/usr/local/bin');
  assert.equal(out[1].value, '/bin:/usr/local/bin');
  assert.equal(expandVariables([{ key: 'A', value: 'x$A' }])[0].value, 'x$A');
});

test('a cycle leaves every value as written, without looping', () => {
  const list = [
    { key: 'A', value: '$B' },
    { key: 'B', value: '${A}' },
    { key: 'C', value: '$D' },
    { key: 'D', value: 'd' },
  ];
  assert.deepEqual(expandVariables(list), list);
});

test('a long chain expands without exhausting the stack', () => {
  const list = Array.from({ length: 20_000 }, (_, i) => ({ key: `V${i}`, value: i === 19_999 ? 'end' : `$V${i + 1}` }));
  assert.equal(expandVariables(list)[0].value, 'end');
});

test('durations as ChronicDuration reads them', () => {
  assert.equal(parseDuration('1 week'), 604_800);
  assert.equal(parseDuration('30 mins'), 1800);
  assert.equal(parseDuration('1h 30m'), 5400);
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('2 hours and 5 seconds'), 7205);
  assert.equal(parseDuration('1 day, 2 hours'), 93_600);
  assert.equal(parseDuration('1.5 hours'), 5400);
  assert.equal(parseDuration('3600'), 3600);
  assert.equal(parseDuration(120), 120);
  assert.equal(parseDuration('1:30'), 90);
  assert.equal(parseDuration('1:00:00'), 3600);
  assert.equal(parseDuration('1 month'), 2_592_000);
  assert.equal(parseDuration('2 weeks'), 1_209_600);
  assert.equal(parseDuration('one hour'), 3600);
  assert.equal(parseDuration('never'), 'never');
  assert.equal(parseDuration('Never'), 'never');
  for (const bad of ['', 'soon', '0', '5 parsecs', 'hours', null, {}, -5]) assert.equal(parseDuration(bad), null, String(bad));
});
