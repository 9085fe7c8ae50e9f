// JUnit artifacts → test suites: each job's gzip artifact (one member per report file) parsed into
// the suite named after the job's group, or its full name for a `parallel:matrix` job.
import { testSuiteName } from '../../ci/slug.ts';
import { buildTestSuite, collectTestReports, getSuite, gunzipMembers, setSuiteError, type JunitBuild, type TestReports, type TestSuite } from '../../ci/reports/junit.ts';
import type { FileStorage } from '../../storage/file-storage.ts';

/** The platform's matrix_build?: a matrix instance is named `name: [a, b]` (parallel: N gives `name 1/3`). */
function isMatrixJob(name: string, options: string): boolean {
  const parsed = JSON.parse(options) as { parallel?: unknown };
  return parsed.parallel !== undefined && /: \[.*\]$/.test(name);
}

export interface JunitFile {
  name: string;
  options: string;
  file_path: string;
}

/** The job's report files; a gzip that cannot be read counts as a file that cannot be parsed. */
async function junitBuild(storage: FileStorage, job: JunitFile): Promise<JunitBuild & { error: string | null }> {
  const base = { name: job.name, isMatrix: isMatrixJob(job.name, job.options) };
  try {
    return { ...base, files: gunzipMembers(await storage.readAll(job.file_path)), error: null };
  } catch (error) {
    return { ...base, files: [], error: `JUnit data parsing failed: ${(error as Error).message}` };
  }
}

/** One job's suite alone, for the results stored per job (test report summary). */
export async function jobTestSuite(storage: FileStorage, job: JunitFile): Promise<TestSuite> {
  const build = await junitBuild(storage, job);
  const suite = buildTestSuite(build);
  if (build.error) setSuiteError(suite, build.error);
  return suite;
}

/** The pipeline's test reports from its jobs' JUnit artifacts. */
export async function pipelineTestReports(storage: FileStorage, jobs: readonly JunitFile[]): Promise<TestReports> {
  const builds = await Promise.all(jobs.map((job) => junitBuild(storage, job)));
  const reports = collectTestReports(builds);
  for (const build of builds) if (build.error) setSuiteError(getSuite(reports, testSuiteName(build.name, build.isMatrix)), build.error);
  return reports;
}
