// Running a project's pipelines to completion in the test process with the built-in runner's own
// code: a test app listening on a socket (test/listening.ts) is asked for jobs through the runner
// protocol, each job is run by the runner's shell executor (sources fetched over git HTTP, script,
// artifacts and reports uploaded, outcome reported), and the background work it causes (pipeline
// processing and what follows it) is run between jobs, as the server's workers would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runJob } from '../../src/runner/job-run.ts';
import { RunnerApi } from '../../src/runner/runner-api.ts';
import type { TestApp } from '../harness.ts';

export interface InProcessRunner {
  /** Runs every job the server hands out until none is left; how many ran. */
  drain(): Promise<number>;
  close(): void;
}

/** A runner registered with `registrationToken` against the listening app at `host`. */
export async function inProcessRunner(t: TestApp, host: string, registrationToken: string): Promise<InProcessRunner> {
  const api = new RunnerApi(host);
  const { token } = await api.register(registrationToken, { description: 'in-process runner', tags: [], runUntagged: true });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-inprocess-runner-'));
  const abort = new AbortController();
  return {
    async drain() {
      let ran = 0;
      for (;;) {
        await t.runJobs();
        const { job } = await api.requestJob(token, null, abort.signal);
        if (!job) return ran;
        await runJob(job, { api, runnerToken: token, description: 'in-process runner', buildsDir: path.join(workDir, 'builds'), cacheDir: path.join(workDir, 'cache'), slot: 0, sandbox: 'none', abort: abort.signal });
        ran++;
      }
    },
    close() {
      abort.abort();
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}
