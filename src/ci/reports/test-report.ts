// Test reports (`Gitlab::Ci::Reports::TestReports`, `TestSuite`, `TestCase`) and their JSON
// (`TestReportEntity`, `TestSuiteEntity`, `TestCaseEntity`), plus the per-build report results the
// test report summary is built from (`Ci::BuildReportResultService`, `TestReportSummary`).
import { createHash } from 'node:crypto';
import { type XmlValue } from './xml-hash.ts';

export const TEST_CASE_STATUSES = ['error', 'failed', 'success', 'skipped'] as const;
export type TestCaseStatus = (typeof TEST_CASE_STATUSES)[number];

export interface TestCase {
  status: TestCaseStatus;
  suiteName: XmlValue;
  name: XmlValue;
  classname: XmlValue;
  executionTime: number;
  systemOutput: XmlValue;
  stackTrace: null;
  /** Path of a `[[ATTACHMENT|path]]` in a failed case's system-out (screenshots). */
  attachment: string | null;
  key: string;
}

export interface TestSuite {
  name: string;
  /** Cases by status, each keyed by the case key; insertion ordered. */
  cases: Map<TestCaseStatus, Map<string, TestCase>>;
  totalTime: number;
  suiteError: string | null;
}

/** All test suites of a pipeline, one per job group name, in the order they were first met. */
export interface TestReports {
  suites: Map<string, TestSuite>;
}

export function newTestSuite(name: string): TestSuite {
  return { name, cases: new Map(), totalTime: 0, suiteError: null };
}

export function newTestReports(): TestReports {
  return { suites: new Map() };
}

export function getSuite(reports: TestReports, name: string): TestSuite {
  let suite = reports.suites.get(name);
  if (!suite) reports.suites.set(name, (suite = newTestSuite(name)));
  return suite;
}

/** Ruby's string interpolation of a value, for the case key. */
function interpolate(value: XmlValue): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function testCaseKey(suiteName: XmlValue, classname: XmlValue, name: XmlValue): string {
  return createHash('sha256').update(`${interpolate(suiteName)}_${interpolate(classname)}_${interpolate(name)}`).digest('hex');
}

/** A case with the same key and status replaces the earlier one, but its time still adds up. */
export function addTestCase(suite: TestSuite, testCase: TestCase): void {
  let bucket = suite.cases.get(testCase.status);
  if (!bucket) suite.cases.set(testCase.status, (bucket = new Map()));
  bucket.set(testCase.key, testCase);
  suite.totalTime += testCase.executionTime;
}

export function setSuiteError(suite: TestSuite, message: string): void {
  suite.suiteError = message;
}

export function countOf(suite: TestSuite, status: TestCaseStatus): number {
  return suite.suiteError !== null ? 0 : (suite.cases.get(status)?.size ?? 0);
}

export function totalCount(suite: TestSuite): number {
  return TEST_CASE_STATUSES.reduce((sum, status) => sum + countOf(suite, status), 0);
}

/** Cases for output: by status (error, failed, success, skipped), slowest first within each. */
export function sortedTestCases(suite: TestSuite): TestCase[] {
  return TEST_CASE_STATUSES.flatMap((status) =>
    [...(suite.cases.get(status)?.values() ?? [])].sort((a, b) => b.executionTime - a.executionTime),
  );
}

export interface TestCaseJson {
  status: TestCaseStatus;
  name: XmlValue;
  classname: XmlValue;
  execution_time: number;
  system_output: XmlValue;
  stack_trace: null;
}

export interface TestSuiteJson {
  name: string;
  total_time: number;
  total_count: number;
  success_count: number;
  failed_count: number;
  skipped_count: number;
  error_count: number;
  /** Present in details mode only, as `test_cases`. */
  suite_error?: string | null;
  test_cases?: TestCaseJson[];
}

export interface TestReportJson {
  total_time: number;
  total_count: number;
  success_count: number;
  failed_count: number;
  skipped_count: number;
  error_count: number;
  test_suites: TestSuiteJson[];
}

export function testCaseJson(testCase: TestCase): TestCaseJson {
  return {
    status: testCase.status,
    name: testCase.name,
    classname: testCase.classname,
    execution_time: testCase.executionTime,
    system_output: testCase.systemOutput,
    stack_trace: testCase.stackTrace,
  };
}

/** A suite's JSON; `details` (as the API's test report asks) adds suite_error and the cases. */
export function testSuiteJson(suite: TestSuite, options: { details?: boolean } = {}): TestSuiteJson {
  const summary: TestSuiteJson = {
    name: suite.name,
    total_time: suite.totalTime,
    total_count: totalCount(suite),
    success_count: countOf(suite, 'success'),
    failed_count: countOf(suite, 'failed'),
    skipped_count: countOf(suite, 'skipped'),
    error_count: countOf(suite, 'error'),
  };
  if (options.details === false) return summary;
  return {
    ...summary,
    suite_error: suite.suiteError,
    test_cases: suite.suiteError !== null ? [] : sortedTestCases(suite).map(testCaseJson),
  };
}

const sumOver = (reports: TestReports, pick: (suite: TestSuite) => number) =>
  [...reports.suites.values()].reduce((sum, suite) => sum + pick(suite), 0);

/** `GET /projects/:id/pipelines/:pipeline_id/test_report`. */
export function testReportJson(reports: TestReports, options: { details?: boolean } = { details: true }): TestReportJson {
  return {
    total_time: sumOver(reports, (suite) => suite.totalTime),
    total_count: sumOver(reports, totalCount),
    success_count: sumOver(reports, (suite) => countOf(suite, 'success')),
    failed_count: sumOver(reports, (suite) => countOf(suite, 'failed')),
    skipped_count: sumOver(reports, (suite) => countOf(suite, 'skipped')),
    error_count: sumOver(reports, (suite) => countOf(suite, 'error')),
    test_suites: [...reports.suites.values()].map((suite) => testSuiteJson(suite, options)),
  };
}

/** What is stored for a build when it finishes (`ci_build_report_results.data`). */
export interface BuildReportResult {
  tests: {
    name: string;
    duration: number;
    failed: number;
    errored: number;
    skipped: number;
    success: number;
    suite_error: string | null;
  };
}

/** The stored result of one build's suite (its JUnit files parsed into a suite of its own). */
export function buildReportResult(suite: TestSuite): BuildReportResult {
  return {
    tests: {
      name: suite.name,
      duration: suite.totalTime,
      failed: countOf(suite, 'failed'),
      errored: countOf(suite, 'error'),
      skipped: countOf(suite, 'skipped'),
      success: countOf(suite, 'success'),
      suite_error: suite.suiteError,
    },
  };
}

export interface StoredReportResult {
  buildId: number;
  data: BuildReportResult;
}

function summaryOf(results: readonly StoredReportResult[]) {
  const sum = (pick: (tests: BuildReportResult['tests']) => number) => results.reduce((total, r) => total + pick(r.data.tests), 0);
  const success = sum((t) => t.success);
  const failed = sum((t) => t.failed);
  const skipped = sum((t) => t.skipped);
  const error = sum((t) => t.errored);
  const suiteError = results.map((r) => r.data.tests.suite_error).find((e) => e !== null && e !== undefined) ?? null;
  return { time: sum((t) => t.duration), count: success + failed + skipped + error, success, failed, skipped, error, suiteError };
}

/** `GET /projects/:id/pipelines/:pipeline_id/test_report_summary`, from the latest builds' results. */
export function testReportSummaryJson(results: readonly StoredReportResult[]) {
  const total = summaryOf(results);
  const groups = new Map<string, StoredReportResult[]>();
  for (const result of results) {
    const group = groups.get(result.data.tests.name);
    if (group) group.push(result);
    else groups.set(result.data.tests.name, [result]);
  }
  return {
    total: {
      time: total.time,
      count: total.count,
      success: total.success,
      failed: total.failed,
      skipped: total.skipped,
      error: total.error,
      suite_error: total.suiteError,
    },
    test_suites: [...groups].map(([name, group]) => {
      const s = summaryOf(group);
      return {
        name,
        total_time: s.time,
        total_count: s.count,
        success_count: s.success,
        failed_count: s.failed,
        skipped_count: s.skipped,
        error_count: s.error,
        build_ids: group.map((r) => r.buildId),
        suite_error: s.suiteError,
      };
    }),
  };
}
