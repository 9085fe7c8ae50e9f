// JUnit parsing and the test report JSON: suite levels, case statuses, duplicates, suite errors,
// sort order, job group names, hostile XML, gzip members, and the summary from report results.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import {
  buildReportResult,
  buildTestSuite,
  collectTestReports,
  gunzipMembers,
  newTestSuite,
  parseJunit,
  readGzipMembers,
  rubyToFloat,
  testCaseKey,
  testReportJson,
  testReportSummaryJson,
  testSuiteJson,
} from './junit.ts';

function parse(xml: string, limits = {}) {
  const suite = newTestSuite('rspec');
  parseJunit(suite, xml, limits);
  return suite;
}
const casesOf = (xml: string) => testSuiteJson(parse(xml)).test_cases?.map((c) => [c.status, c.name]);

describe('suite levels', () => {
  const cases: [string, string, [string, unknown][]][] = [
    ['a single testsuite', '<testsuite><testcase name="a"/></testsuite>', [['success', 'a']]],
    ['testsuites then testsuite', '<testsuites><testsuite><testcase name="a"/><testcase name="b"/></testsuite></testsuites>', [['success', 'a'], ['success', 'b']]],
    ['cases directly under testsuites count', '<testsuites><testcase name="a"/></testsuites>', [['success', 'a']]],
    ['nested suites at any depth', '<testsuites><testsuite><testsuite><testsuite><testcase name="deep"/></testsuite></testsuite><testcase name="top"/></testsuite></testsuites>', [['success', 'top'], ['success', 'deep']]],
    ['several suites', '<testsuites><testsuite name="x"><testcase name="a"/></testsuite><testsuite name="y"><testcase name="b"/></testsuite></testsuites>', [['success', 'a'], ['success', 'b']]],
    ['a top-level testcase is not a case', '<testcase name="alone"/>', []],
    ['nested testsuites below the top are not descended', '<testsuites><testsuites><testsuite><testcase name="a"/></testsuite></testsuites></testsuites>', []],
    ['an unknown root has no cases', '<report><testsuite><testcase name="a"/></testsuite></report>', []],
    ['an empty testcase element is dropped', '<testsuite><testcase/><testcase name="a"/></testsuite>', [['success', 'a']]],
    ['hyphenated names: testcase inside test-suite is not seen', '<test-suite><testcase name="a"/></test-suite>', []],
  ];
  for (const [name, xml, expected] of cases) test(name, () => assert.deepEqual(casesOf(xml), expected));
});

describe('case status and output', () => {
  const one = (inner: string, attrs = 'name="t"') => testSuiteJson(parse(`<testsuite><testcase ${attrs}>${inner}</testcase></testsuite>`)).test_cases?.[0];
  const cases: [string, string, string, unknown][] = [
    ['failure with text', '<failure message="m">trace</failure>', 'failed', 'trace'],
    ['failure with attributes only', '<failure message="m" type="T"/>', 'failed', { message: 'm', type: 'T' }],
    ['empty failure', '<failure/>', 'failed', null],
    ['failure wins over error', '<error>e</error><failure>f</failure>', 'failed', 'f'],
    ['error', '<error message="boom">stack</error>', 'error', 'stack'],
    ['error wins over skipped', '<skipped/><error>e</error>', 'error', 'e'],
    ['skipped', '<skipped message="later"/>', 'skipped', { message: 'later' }],
    ['skipped empty', '<skipped/>', 'skipped', null],
    ['success', '<system-out>hello</system-out>', 'success', null],
    ['CDATA and entities', '<failure><![CDATA[a < b &amp;]]> &amp; &#65;&#x42;</failure>', 'failed', 'a < b &amp; & AB'],
    ['blank text with attributes keeps both', '<failure message="m">\n</failure>', 'failed', { __content__: '\n', message: 'm' }],
    ['type="string" empty', '<failure type="string"/>', 'failed', ''],
    ['repeated failures become a list', '<failure>one</failure><failure>two</failure>', 'failed', ['one', 'two']],
  ];
  for (const [name, inner, status, output] of cases) {
    test(name, () => {
      const c = one(inner);
      assert.equal(c?.status, status);
      assert.deepEqual(c?.system_output, output);
      assert.equal(c?.stack_trace, null);
    });
  }
  test('case JSON keys and values', () => {
    assert.deepEqual(one('', 'classname="Calc" name="adds" time="0.5"'), {
      status: 'success', name: 'adds', classname: 'Calc', execution_time: 0.5, system_output: null, stack_trace: null,
    });
    assert.deepEqual(one('', 'time=""'), { status: 'success', name: null, classname: null, execution_time: 0, system_output: null, stack_trace: null });
    assert.equal(one('', ''), undefined, 'a testcase without attributes or content is nothing, and dropped');
  });
  test('an attribute wins over a child element of the same name', () => {
    assert.equal(one('<name>child</name>', 'name="attr"')?.name, 'attr');
  });
});

test('time is read as Ruby to_f reads it', () => {
  const cases: [string | null, number][] = [['1.5', 1.5], ['2', 2], [' 3.25s', 3.25], ['abc', 0], ['', 0], [null, 0], ['1e2', 100], ['1_000.5', 1000.5], ['-1', -1], ['.5', 0.5], ['1,5', 1]];
  for (const [input, value] of cases) assert.equal(rubyToFloat(input), value, String(input));
});

describe('duplicates and sums', () => {
  test('a duplicate key replaces the case but its time is still added', () => {
    const suite = parse('<testsuite name="S"><testcase classname="C" name="t" time="1"/><testcase classname="C" name="t" time="2"/></testsuite>');
    const json = testSuiteJson(suite);
    assert.equal(json.total_count, 1);
    assert.equal(json.total_time, 3);
    assert.equal(json.test_cases?.[0].execution_time, 2);
  });
  test('the same key with another status is a second case', () => {
    const json = testSuiteJson(parse('<testsuite><testcase name="t"/><testcase name="t"><failure/></testcase></testsuite>'));
    assert.equal(json.total_count, 2);
  });
  test('the key is the SHA-256 of suite, class and name; suites of other names differ', () => {
    assert.equal(testCaseKey('S', 'C', 'n'), createHash('sha256').update('S_C_n').digest('hex'));
    assert.match(testCaseKey('S', null, 'n'), /^[0-9a-f]{64}$/);
    assert.notEqual(testCaseKey('S', null, 'n'), testCaseKey('T', null, 'n'));
    const json = testSuiteJson(parse('<testsuites><testsuite name="A"><testcase name="t"/></testsuite><testsuite name="B"><testcase name="t"/></testsuite></testsuites>'));
    assert.equal(json.total_count, 2);
  });
  test('an unnamed testsuite uses the job suite name in the key', () => {
    const json = testSuiteJson(parse('<testsuites><testsuite><testcase name="t"/></testsuite><testsuite name="rspec"><testcase name="t"/></testsuite></testsuites>'));
    assert.equal(json.total_count, 1);
  });
});

test('output order: error, failed, success, skipped, slowest first, ties in file order', () => {
  const xml = `<testsuite>
    <testcase name="s1" time="1"/><testcase name="k1"><skipped/></testcase><testcase name="f1" time="1"><failure/></testcase>
    <testcase name="s2" time="3"/><testcase name="e1" time="0.1"><error/></testcase><testcase name="f2" time="5"><failure/></testcase>
    <testcase name="s3" time="1"/><testcase name="e2" time="0.2"><error/></testcase>
  </testsuite>`;
  assert.deepEqual(casesOf(xml)?.map(([, name]) => name), ['e2', 'e1', 'f2', 'f1', 's2', 's1', 's3', 'k1']);
});

describe('suite errors', () => {
  const cases: [string, string, RegExp][] = [
    ['malformed XML', '<testsuite><testcase></testsuite>', /^JUnit XML parsing failed: 1:\d+: FATAL: /],
    ['not XML', 'this is not xml', /^JUnit XML parsing failed: /],
    ['blank document', '   ', /^JUnit XML parsing failed: /],
    ['two roots', '<testsuite/><testsuite/>', /^JUnit XML parsing failed: .*Extra content/],
    ['an undefined entity', '<testsuite><testcase name="&nbsp;"/></testsuite>', /^JUnit XML parsing failed: .*Entity 'nbsp' not defined/],
    ['a text-only testcase', '<testsuite><testcase>text</testcase></testsuite>', /^JUnit data parsing failed: string not matched$/],
    ['a disallowed type', '<testsuite><testcase name="a" type="yaml">x: 1</testcase></testsuite>', /^JUnit data parsing failed: Disallowed type attribute: "yaml"$/],
    ['a structured time', '<testsuite><testcase name="a"><time>1</time><time>2</time></testcase></testsuite>', /^JUnit data parsing failed: undefined method `to_f'/],
  ];
  for (const [name, xml, message] of cases) {
    test(name, () => {
      const json = testSuiteJson(parse(xml));
      assert.match(String(json.suite_error), message);
      assert.equal(json.total_count, 0);
      assert.deepEqual(json.test_cases, []);
    });
  }
  test('an empty document has no cases and no error', () => {
    assert.deepEqual(testSuiteJson(parse('')), {
      name: 'rspec', total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, suite_error: null, test_cases: [],
    });
  });
  test('an error in one file hides the whole suite, counts become 0', () => {
    const suite = buildTestSuite({ name: 'rspec', isMatrix: false, files: ['<testsuite><testcase name="a"/></testsuite>', '<broken'] });
    const json = testSuiteJson(suite);
    assert.equal(json.success_count, 0);
    assert.match(String(json.suite_error), /^JUnit XML parsing failed/);
  });
});

describe('hostile XML', () => {
  test('a billion laughs is refused before any expansion', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><testsuite><testcase name="&lol2;"/></testsuite>`;
    const json = testSuiteJson(parse(bomb));
    assert.match(String(json.suite_error), /entity declarations are not allowed/);
  });
  test('external entities are refused', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&xxe;"/></testsuite>`;
    assert.match(String(testSuiteJson(parse(xxe)).suite_error), /entity declarations are not allowed/);
  });
  test('deep nesting is bounded', () => {
    const deep = `${'<testsuite>'.repeat(5000)}${'</testsuite>'.repeat(5000)}`;
    assert.match(String(testSuiteJson(parse(deep)).suite_error), /^JUnit XML parsing failed: /);
    const fine = `${'<testsuite>'.repeat(20)}<testcase name="ok"/>${'</testsuite>'.repeat(20)}`;
    assert.equal(testSuiteJson(parse(fine)).total_count, 1);
  });
  test('size is bounded', () => {
    const json = testSuiteJson(parse(`<testsuite><testcase name="${'x'.repeat(2000)}"/></testsuite>`, { maxBytes: 1000 }));
    assert.match(String(json.suite_error), /larger than 1000 bytes/);
  });
  test('a DOCTYPE without entities is fine', () => {
    assert.equal(testSuiteJson(parse('<?xml version="1.0"?><!DOCTYPE testsuite><testsuite><testcase name="a"/></testsuite>')).total_count, 1);
  });
  test('a byte order mark and buffers are accepted', () => {
    const suite = newTestSuite('rspec');
    parseJunit(suite, Buffer.from('\uFEFF<testsuite><testcase name="é"/></testsuite>'));
    assert.equal(testSuiteJson(suite).test_cases?.[0].name, 'é');
  });
});

describe('pipeline test report', () => {
  const xml = (names: string[], failed = false) =>
    `<testsuite>${names.map((n) => `<testcase classname="C" name="${n}" time="1">${failed ? '<failure/>' : ''}</testcase>`).join('')}</testsuite>`;

  test('one suite per job group: parallel jobs merge, matrix jobs stay apart, sums over suites', () => {
    const reports = collectTestReports([
      { name: 'rspec 1/2', isMatrix: false, files: [xml(['a', 'b'])] },
      { name: 'rspec 2/2', isMatrix: false, files: [xml(['c']), xml(['b'])] },
      { name: 'test: [ruby, 3.0]', isMatrix: true, files: [xml(['x'], true)] },
      { name: 'test: [ruby, 2.7]', isMatrix: true, files: [xml(['x'])] },
    ]);
    const json = testReportJson(reports);
    assert.deepEqual(json.test_suites.map((s) => [s.name, s.total_count, s.total_time]), [
      ['rspec', 3, 4],
      ['test: [ruby, 3.0]', 1, 1],
      ['test: [ruby, 2.7]', 1, 1],
    ]);
    assert.deepEqual(
      { ...json, test_suites: undefined },
      { total_time: 6, total_count: 5, success_count: 4, failed_count: 1, skipped_count: 0, error_count: 0, test_suites: undefined },
    );
    assert.deepEqual(Object.keys(json), ['total_time', 'total_count', 'success_count', 'failed_count', 'skipped_count', 'error_count', 'test_suites']);
    assert.deepEqual(Object.keys(json.test_suites[0]), [
      'name', 'total_time', 'total_count', 'success_count', 'failed_count', 'skipped_count', 'error_count', 'suite_error', 'test_cases',
    ]);
    assert.deepEqual(Object.keys(testReportJson(reports, { details: false }).test_suites[0]).length, 7);
  });

  test('an empty pipeline report', () => {
    assert.deepEqual(testReportJson(collectTestReports([])), {
      total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, test_suites: [],
    });
  });
});

describe('test report summary', () => {
  test('per-build results grouped by suite name', () => {
    const first = buildReportResult(buildTestSuite({ name: 'rspec 1/2', isMatrix: false, files: ['<testsuite><testcase name="a" time="1.5"/><testcase name="b"><failure/></testcase></testsuite>'] }));
    assert.deepEqual(first, { tests: { name: 'rspec', duration: 1.5, failed: 1, errored: 0, skipped: 0, success: 1, suite_error: null } });
    const second = buildReportResult(buildTestSuite({ name: 'rspec 2/2', isMatrix: false, files: ['<testsuite><testcase name="c"><skipped/></testcase><testcase name="d"><error/></testcase></testsuite>'] }));
    const broken = buildReportResult(buildTestSuite({ name: 'jest', isMatrix: false, files: ['<oops'] }));
    const summary = testReportSummaryJson([
      { buildId: 11, data: first },
      { buildId: 12, data: second },
      { buildId: 13, data: broken },
    ]);
    assert.deepEqual(summary.total, { time: 1.5, count: 4, success: 1, failed: 1, skipped: 1, error: 1, suite_error: broken.tests.suite_error });
    assert.match(String(summary.total.suite_error), /^JUnit XML parsing failed/);
    assert.deepEqual(summary.test_suites, [
      { name: 'rspec', total_time: 1.5, total_count: 4, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 1, build_ids: [11, 12], suite_error: null },
      { name: 'jest', total_time: 0, total_count: 0, success_count: 0, failed_count: 0, skipped_count: 0, error_count: 0, build_ids: [13], suite_error: broken.tests.suite_error },
    ]);
  });
  test('no results', () => {
    assert.deepEqual(testReportSummaryJson([]), {
      total: { time: 0, count: 0, success: 0, failed: 0, skipped: 0, error: 0, suite_error: null },
      test_suites: [],
    });
  });
});

describe('gzip members', () => {
  const member = (text: string) => gzipSync(Buffer.from(text));
  test('one buffer per concatenated member, with names when present', () => {
    const files = gunzipMembers(Buffer.concat([member('<a/>'), member(''), member('third')]));
    assert.deepEqual(files.map((f) => f.toString()), ['<a/>', '', 'third']);
    assert.deepEqual(gunzipMembers(Buffer.alloc(0)), []);
    // A member with FNAME set, as the runner writes it.
    const plain = member('named');
    const named = Buffer.concat([plain.subarray(0, 3), Buffer.from([0x08]), plain.subarray(4, 10), Buffer.from('junit.xml\0'), plain.subarray(10)]);
    assert.deepEqual(readGzipMembers(named).map((m) => [m.name, m.data.toString()]), [['junit.xml', 'named']]);
  });
  test('corrupt, truncated or oversized input is refused', () => {
    const good = member('hello world');
    assert.throws(() => gunzipMembers(Buffer.from('not gzip at all, no')), /not a gzip member/);
    assert.throws(() => gunzipMembers(good.subarray(0, good.length - 4)), /gzip/);
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 8] ^= 0xff;
    assert.throws(() => gunzipMembers(badCrc), /checksum/);
    assert.equal(gunzipMembers(gzipSync(Buffer.alloc(10 * 1024 * 1024)))[0].length, 10 * 1024 * 1024, 'the default bound is large enough');
  });
  test('a gzip bomb stops at the byte bound; member count is bounded', () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    assert.throws(() => gunzipMembers(bomb, { maxBytes: 1024 * 1024 }), /too large/);
    assert.throws(() => gunzipMembers(Buffer.concat([member('a'), member('b'), member('c')]), { maxMembers: 2 }), /more than 2 members/);
  });
  test('gzip artifacts feed the parser', () => {
    const files = gunzipMembers(Buffer.concat([member('<testsuite><testcase name="a"/></testsuite>'), member('<testsuite><testcase name="b"/></testsuite>')]));
    assert.equal(testSuiteJson(buildTestSuite({ name: 'rspec', isMatrix: false, files })).total_count, 2);
  });
});
