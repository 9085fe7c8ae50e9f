// The payload rules on their own: text as Ruby writes values (which fingerprints digest), the
// fingerprint of explicit values and of whole payloads, times, truncation, hosts, severities,
// Alertmanager notifications, and the limits of what is read.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  PAYLOAD_MAX_BYTES,
  dig,
  fingerprintOf,
  genericAttributes,
  hostsOf,
  isPrometheusPayload,
  jsonNestingDepth,
  parseTime,
  prometheusAttributes,
  readPayload,
  rubyInspect,
  severityOf,
  truncate,
} from './alert-payload.ts';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const NOW = new Date('2021-11-20T10:00:00.000Z');

describe('values as Ruby writes them', () => {
  test('inspect of hashes, arrays, strings, numbers, nil and booleans', () => {
    assert.equal(rubyInspect({ title: 'Disk "full"', n: 1, f: 1.5, list: [true, null], nested: { 'a\nb': '#{x}' } }), '{"title"=>"Disk \\"full\\"", "n"=>1, "f"=>1.5, "list"=>[true, nil], "nested"=>{"a\\nb"=>"\\#{x}"}}');
    assert.equal(rubyInspect('tab\tback\\slash\u0001'), '"tab\\tback\\\\slash\\x01"');
    assert.equal(rubyInspect(1e20), '1.0e+20');
  });
});

describe('fingerprints', () => {
  test('text as it is; arrays flattened and joined; other values as text; blank is none', () => {
    assert.equal(fingerprintOf('cpu-1'), sha1('cpu-1'));
    assert.equal(fingerprintOf(['a', ['b', [1]]]), sha1('ab1'));
    assert.equal(fingerprintOf(42), sha1('42'));
    assert.equal(fingerprintOf({ a: 1 }), sha1('{"a"=>1}'));
    for (const blank of ['', '  ', [], {}, null, false]) assert.equal(fingerprintOf(blank), null);
  });

  test('without an explicit one, the payload less start_time, end_time and hosts; nothing left is none', () => {
    const a = genericAttributes({ title: 'x', start_time: '2021-01-01T00:00:00Z', hosts: ['a'], end_time: null }, {}, NOW);
    const b = genericAttributes({ title: 'x', start_time: '2021-02-01T00:00:00Z', hosts: 'b' }, {}, NOW);
    assert.equal(a.fingerprint, sha1('{"title"=>"x"}'));
    assert.equal(b.fingerprint, a.fingerprint);
    assert.equal(genericAttributes({ start_time: '2021-01-01T00:00:00Z', title: '' }, {}, NOW).fingerprint, null);
  });
});

describe('reading a generic payload', () => {
  test('times: ISO with or without an offset (UTC), other readable dates; numbers and words are no time', () => {
    assert.equal(parseTime('2021-11-20T10:00:00+02:00'), '2021-11-20T08:00:00.000Z');
    assert.equal(parseTime('2021-11-20T10:00:00'), '2021-11-20T10:00:00.000Z');
    assert.equal(parseTime('2021-11-20 10:00'), '2021-11-20T10:00:00.000Z');
    assert.equal(parseTime('2021-11-20'), '2021-11-20T00:00:00.000Z');
    assert.equal(parseTime('Sat, 20 Nov 2021 10:00:00 GMT'), '2021-11-20T10:00:00.000Z');
    for (const no of [1637402400, '1637402400', 'yesterday', '', null, {}, '2021-13-45T99:00:00Z']) assert.equal(parseTime(no), null, String(no));
  });

  test('truncation counts characters and ends with "..."', () => {
    assert.equal(truncate('abcdef', 5), 'ab...');
    assert.equal(truncate('🔥🔥🔥🔥🔥🔥', 5), '🔥🔥...');
    assert.equal(truncate('abc', 3), 'abc');
  });

  test('hosts: flattened, non-text as text, nulls dropped, at most 255 characters', () => {
    assert.deepEqual(hostsOf('a'), ['a']);
    assert.deepEqual(hostsOf(['a', [1, [null, 'b']]]), ['a', '1', 'b']);
    assert.deepEqual(hostsOf(['x'.repeat(250), 'yyyyyyyyyy', 'z']), ['x'.repeat(250), 'yyyyy']);
    assert.deepEqual(hostsOf(null), []);
  });

  test('severities, whatever their case; Prometheus words through their own table', () => {
    assert.equal(severityOf('MeDiUm'), 'medium');
    assert.equal(severityOf('unknown'), 'unknown');
    assert.equal(severityOf('warning'), 'critical');
    assert.equal(severityOf(['high']), 'critical');
    assert.equal(severityOf('warning', { warning: 'low' }), 'low');
  });

  test('dig follows keys into objects and indexes into arrays only', () => {
    const payload = { a: [{ b: 'x' }], '0': 'zero' };
    assert.equal(dig(payload, ['a', 0, 'b']), 'x');
    assert.equal(dig(payload, ['a', -1, 'b']), 'x');
    assert.equal(dig(payload, ['a', '0', 'b']), null);
    assert.equal(dig(payload, ['a', 0, 'b', 'c']), null);
    assert.equal(dig(payload, ['missing']), null);
  });
});

describe('Alertmanager notifications', () => {
  const notification = { version: '4', groupKey: 'k', status: 'firing', receiver: 'r', groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am', alerts: [] };

  test('recognised by all of the webhook keys at version 4', () => {
    assert.equal(isPrometheusPayload(notification), true);
    assert.equal(isPrometheusPayload({ ...notification, version: 4 }), false);
    const { receiver: _, ...partial } = notification;
    assert.equal(isPrometheusPayload(partial), false);
  });

  test('an alert: title from annotations or the alert name; fingerprint from start, title and query', () => {
    const alert = { status: 'firing', labels: { alertname: 'Up', severity: 'Warning' }, annotations: {}, startsAt: '2021-11-20T09:00:00Z', generatorURL: 'http://p/graph?g0.expr=up+%3D%3D+0' };
    const attrs = prometheusAttributes(alert, NOW);
    assert.deepEqual(attrs, {
      title: 'Up',
      description: null,
      service: null,
      monitoringTool: 'Prometheus',
      hosts: [],
      severity: 'low',
      startedAt: '2021-11-20T09:00:00.000Z',
      endedAt: null,
      fingerprint: sha1('2021-11-20T09:00:00Z/Up/up == 0'),
      resolved: false,
    });
    assert.equal(prometheusAttributes({ labels: {}, startsAt: 'x' }, NOW), null);
    assert.equal(prometheusAttributes({ labels: { alertname: 'a' } }, NOW), null);
    assert.equal(prometheusAttributes('text', NOW), null);
  });
});

describe('the limits of what is read', () => {
  test('nesting depth counts arrays and objects, not brackets inside strings', () => {
    assert.equal(jsonNestingDepth('{"a":[{"b":"[[[{{{"}]}'), 3);
    assert.equal(jsonNestingDepth('"\\"[["'), 0);
  });

  test('a JSON object within 1 MB and 100 levels; anything else is refused; empty is empty', () => {
    assert.deepEqual(readPayload(Buffer.from('{"a":1}')), { a: 1 });
    assert.deepEqual(readPayload(Buffer.from('  ')), {});
    assert.equal(readPayload(Buffer.from('[1]')), null);
    assert.equal(readPayload(Buffer.from('nope')), null);
    assert.equal(readPayload(Buffer.alloc(PAYLOAD_MAX_BYTES + 1, 0x20)), null);
    assert.equal(readPayload(Buffer.from(`${'['.repeat(50)}${'{"a":'.repeat(51)}1${'}'.repeat(51)}${']'.repeat(50)}`)), null);
    assert.deepEqual(readPayload(Buffer.from('{"__proto__": {"polluted": true}, "b": 2}')), { b: 2 });
  });
});
