// JUnit XML → test cases (`Gitlab::Ci::Parsers::Test::Junit`, 14.x). A single top-level
// <testsuites> is descended, <testsuite> elements at any depth; cases count only below a suite
// level. All JUnit files of a job go into one suite named after the job's group name, and parallel
// jobs of a group share it. Malformed XML and unusable data set the suite's error instead of throwing.
import { testSuiteName } from '../slug.ts';
import {
  type TestCase,
  type TestCaseStatus,
  type TestReports,
  type TestSuite,
  addTestCase,
  getSuite,
  newTestReports,
  newTestSuite,
  setSuiteError,
  testCaseKey,
} from './test-report.ts';
import { type XmlLimits, type XmlValue, XmlSyntaxError, isPresent, xmlToHash } from './xml-hash.ts';

export { gunzipMembers, readGzipMembers } from './gzip.ts';
export * from './test-report.ts';
export { type XmlLimits, DEFAULT_XML_LIMITS } from './xml-hash.ts';

type XmlHash = { [key: string]: XmlValue };
const isHash = (value: XmlValue | undefined): value is XmlHash =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);

/** Ruby's `[value].flatten.compact`. */
function flattenCompact(value: XmlValue | undefined): XmlValue[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value.flatMap(flattenCompact) : [value];
}

/** Ruby's String#to_f: the leading number, or 0. */
export function rubyToFloat(value: XmlValue | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value !== 'string') throw new Error(`undefined method \`to_f' for ${JSON.stringify(value)}`);
  const match = /^\s*([+-]?(?:\d(?:_?\d)*)?(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d+)?)/.exec(value);
  const number = Number.parseFloat((match?.[1] ?? '').replaceAll('_', ''));
  return Number.isFinite(number) ? number : 0;
}

const ATTACHMENT = /\[\[ATTACHMENT\|(.+?)\]\]/;

function createTestCase(data: XmlHash, suite: TestSuite): TestCase {
  let status: TestCaseStatus = 'success';
  let systemOutput: XmlValue = null;
  let attachment: string | null = null;
  if ('failure' in data) {
    status = 'failed';
    systemOutput = data.failure;
    const out = data.system_out;
    if (out !== undefined && out !== null) {
      if (typeof out !== 'string') throw new Error("undefined method `match'");
      attachment = ATTACHMENT.exec(out)?.[1] ?? null;
    }
  } else if ('error' in data) {
    status = 'error';
    systemOutput = data.error;
  } else if ('skipped' in data) {
    status = 'skipped';
    systemOutput = data.skipped;
  }
  const suiteName = data.suite_name === null || data.suite_name === undefined ? suite.name : data.suite_name;
  const name = data.name ?? null;
  const classname = data.classname ?? null;
  return {
    status,
    suiteName,
    name,
    classname,
    executionTime: rubyToFloat(data.time),
    systemOutput,
    stackTrace: null,
    attachment,
    key: testCaseKey(suiteName, classname, name),
  };
}

function eachCase(testcases: XmlValue | undefined, suiteName: XmlValue | undefined, suite: TestSuite): void {
  if (!isPresent(testcases)) return;
  for (const data of flattenCompact(testcases)) {
    if (typeof data === 'string') throw new Error('string not matched'); // Ruby: String#[]= on text
    if (!isHash(data)) continue;
    data.suite_name = suiteName ?? null;
    addTestCase(suite, createTestCase(data, suite));
  }
}

function allCases(root: XmlValue | undefined, atTop: boolean, suite: TestSuite): void {
  if (!isPresent(root)) return;
  for (const node of flattenCompact(root)) {
    if (!isHash(node)) continue;
    if (atTop) allCases(node.testsuites, false, suite); // one top-level <testsuites>
    else eachCase(node.testcase, node.name, suite); // cases need a suite level above them
    allCases(node.testsuite, false, suite); // nested <testsuite> at any depth (PHPUnit)
  }
}

/** Parses one JUnit document into `suite`; errors become the suite's error (cases added so far stay). */
export function parseJunit(suite: TestSuite, xml: string | Uint8Array, limits: XmlLimits = {}): void {
  try {
    allCases(xmlToHash(xml, limits), true, suite);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    setSuiteError(suite, error instanceof XmlSyntaxError ? `JUnit XML parsing failed: ${message}` : `JUnit data parsing failed: ${message}`);
  }
}

/** A job's JUnit artifact: the job name, whether it is a `parallel:matrix` job, and its files. */
export interface JunitBuild {
  name: string;
  isMatrix: boolean;
  /** The files' contents (gzip artifacts: pass them through gunzipMembers first). */
  files: readonly (string | Uint8Array)[];
}

/** One build's suite alone, as stored for the test report summary (`buildReportResult`). */
export function buildTestSuite(build: JunitBuild, limits: XmlLimits = {}): TestSuite {
  const suite = newTestSuite(testSuiteName(build.name, build.isMatrix));
  for (const file of build.files) parseJunit(suite, file, limits);
  return suite;
}

/** The pipeline's test reports from its latest builds with JUnit artifacts, in build order. */
export function collectTestReports(builds: readonly JunitBuild[], limits: XmlLimits = {}): TestReports {
  const reports = newTestReports();
  for (const build of builds) {
    const suite = getSuite(reports, testSuiteName(build.name, build.isMatrix));
    for (const file of build.files) parseJunit(suite, file, limits);
  }
  return reports;
}
