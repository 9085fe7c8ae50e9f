// One job from start to end, as the real runner's shell executor runs it: sources, cache,
// dependencies' artifacts, `before_script` + `script` in one shell, `after_script` in another, the
// cache saved, artifacts uploaded, and the outcome reported with its exit code and failure reason.
// A cancellation (the server answering 403) or the job's time limit ends its processes at once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { restoreCaches, saveCaches } from './cache.ts';
import { selectFiles, unpackZip, writeZip } from './archives.ts';
import { GitSourceError, getSources } from './git-source.ts';
import { JobLog } from './job-log.ts';
import { type PayloadVariable, jobEnvironment, shellScript } from './job-script.ts';
import { type Started, startProcess } from './processes.ts';
import { type ArtifactSpec, type JobPayload, RUNNER_NAME, type RunnerApi } from './runner-api.ts';
import { sandboxed } from './sandbox.ts';
import { PRODUCT_REVISION, PRODUCT_VERSION } from '../version.ts';

/** The real runner's limit for `after_script`. */
const AFTER_SCRIPT_TIMEOUT_SECONDS = 5 * 60;
const gzip = promisify(zlib.gzip);

export interface JobRunOptions {
  api: RunnerApi;
  /** This runner's token (its first 8 characters name it in logs and directories). */
  runnerToken: string;
  description: string;
  buildsDir: string;
  cacheDir: string;
  /** Which of the runner's concurrent slots runs the job. */
  slot: number;
  sandbox: 'none' | 'bwrap';
  /** Aborted when the runner stops and will not wait for the job. */
  abort: AbortSignal;
}

type Outcome = { state: 'success' } | { state: 'failed'; reason: string; exitCode?: number; message: string } | { state: 'stopped'; jobStatus: string };

class JobFailure extends Error {
  readonly reason: string;
  readonly exitCode: number | undefined;

  constructor(reason: string, message: string, exitCode?: number) {
    super(message);
    this.reason = reason;
    this.exitCode = exitCode;
  }
}

export async function runJob(job: JobPayload, options: JobRunOptions): Promise<void> {
  const vars = new Map(job.variables.map((v) => [v.key, v.value]));
  const projectPath = (vars.get('CI_PROJECT_PATH') ?? `project-${job.job_info.project_id}`).replace(/[^A-Za-z0-9_./-]/g, '_');
  const slotDir = path.resolve(options.buildsDir, options.runnerToken.slice(0, 8), String(options.slot));
  const projectDir = path.join(slotDir, projectPath);
  const tmpDir = `${projectDir}.tmp`;
  await fs.rm(tmpDir, { recursive: true, force: true });
  await fs.mkdir(tmpDir, { recursive: true, mode: 0o700 });

  // The process running now (git, or a shell) and the transfers: ended at once when the server
  // stops the job, when its time is up, or when the runner stops without waiting.
  let current: Started | null = null;
  let stoppedBy: string | null = null;
  let deadlinePassed = false;
  const halt = new AbortController();
  const stop = () => {
    current?.kill();
    halt.abort();
  };
  const secrets = [job.token, ...job.variables.filter((v) => v.masked).map((v) => v.value)];
  const log = new JobLog(options.api, job, path.join(tmpDir, 'job.log'), secrets, (jobStatus) => {
    stoppedBy = jobStatus;
    stop();
  });
  options.abort.addEventListener('abort', stop);
  const timeoutSeconds = job.runner_info.timeout || 3600;
  const deadline = Date.now() + timeoutSeconds * 1000;
  const deadlineTimer = setTimeout(() => {
    deadlinePassed = true;
    stop();
  }, timeoutSeconds * 1000);

  const runnerVariables: PayloadVariable[] = [
    { key: 'CI_PROJECT_DIR', value: projectDir },
    { key: 'CI_BUILDS_DIR', value: slotDir },
    { key: 'CI_CONCURRENT_ID', value: String(options.slot) },
    { key: 'CI_CONCURRENT_PROJECT_ID', value: String(options.slot) },
    { key: 'CI_SERVER', value: 'yes' },
    { key: 'CI_RUNNER_SHORT_TOKEN', value: options.runnerToken.slice(0, 8) },
    { key: 'CI_RUNNER_VERSION', value: PRODUCT_VERSION },
    { key: 'CI_RUNNER_REVISION', value: PRODUCT_REVISION },
    { key: 'CI_RUNNER_EXECUTABLE_ARCH', value: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}` },
    { key: 'CI_DISPOSABLE_ENVIRONMENT', value: 'false' },
  ];
  const env = await jobEnvironment(job.variables, runnerVariables, tmpDir);
  const variable = (key: string) => (key in env ? env[key] : undefined);
  const write = (chunk: Buffer) => log.write(chunk);
  const run = async (command: string, args: string[], runEnv: Record<string, string>) => {
    current = startProcess(command, args, { cwd: projectDir, env: runEnv, output: write });
    const code = await current.exited;
    current = null;
    return code;
  };

  /** Runs commands in one shell, within `seconds`; its exit code, or a failure when that time ran out. */
  const shell = async (commands: readonly string[], seconds: number, extraEnv: Record<string, string> = {}, name = 'script'): Promise<number> => {
    const file = path.join(tmpDir, `${name}.sh`);
    await fs.writeFile(file, shellScript(commands, projectDir), { mode: 0o700 });
    const [command, args] = sandboxed(options.sandbox, ['bash', '--noprofile', '--norc', file], [projectDir, tmpDir]);
    const end = Date.now() + seconds * 1000;
    const timer = setTimeout(() => current?.kill(), Math.max(0, end - Date.now()));
    const code = await run(command, args, { ...env, ...extraEnv });
    clearTimeout(timer);
    if (stoppedBy !== null || options.abort.aborted) return code;
    if (Date.now() >= end) throw new JobFailure('job_execution_timeout', `execution took longer than ${Math.round(seconds)} seconds`);
    return code;
  };

  const outcome = await (async (): Promise<Outcome> => {
    log.start();
    log.line(`\x1b[0KRunning with ${RUNNER_NAME} ${PRODUCT_VERSION} (${PRODUCT_REVISION})`);
    log.line(`\x1b[0K  on ${options.description} ${options.runnerToken.slice(0, 8)}`);
    let end = log.section('prepare_executor', 'Preparing the "shell" executor');
    log.line(`Using Shell executor${options.sandbox === 'bwrap' ? ' in a bubblewrap sandbox' : ''}...`);
    end();
    end = log.section('prepare_script', 'Preparing environment');
    log.line(`Running on ${os.hostname()}...`);
    end();
    try {
      end = log.section('get_sources', 'Getting source from Git repository');
      await getSources(job, { projectDir, variable, env, line: (t) => log.line(t), run });
      end();
      await restoreCaches(job.cache ?? [], { projectDir, cacheDir: options.cacheDir, projectPath, variable, log });
      await downloadDependencies(job, options.api, projectDir, tmpDir, log, halt.signal);
      const script = job.steps.find((s) => s.name === 'script');
      end = log.section('step_script', 'Executing "step_script" stage of the job script');
      const code = script ? await shell(script.script, (deadline - Date.now()) / 1000) : 0;
      end();
      const scriptOk = code === 0;
      if (stoppedBy !== null) return { state: 'stopped', jobStatus: stoppedBy };
      if (options.abort.aborted) throw new JobFailure('runner_system_failure', 'the runner stopped');
      const failure = scriptOk ? null : new JobFailure('script_failure', `exit code ${code}`, code);
      await afterScript(scriptOk ? 'success' : 'failed');
      if (stoppedBy !== null) return { state: 'stopped', jobStatus: stoppedBy };
      await saveCaches(job.cache ?? [], scriptOk, { projectDir, cacheDir: options.cacheDir, projectPath, variable, log });
      await uploadArtifacts(job, options.api, scriptOk, projectDir, tmpDir, log);
      if (failure) throw failure;
      return { state: 'success' };
    } catch (error) {
      if (stoppedBy !== null) return { state: 'stopped', jobStatus: stoppedBy };
      const failure = options.abort.aborted
        ? new JobFailure('runner_system_failure', 'the runner stopped')
        : deadlinePassed
          ? new JobFailure('job_execution_timeout', `execution took longer than ${timeoutSeconds} seconds`)
          : error instanceof JobFailure
          ? error
          : new JobFailure(error instanceof GitSourceError ? 'unknown_failure' : 'runner_system_failure', (error as Error).message);
      // A job out of time is a failed job still: after_script, then the artifacts kept for failures.
      if (failure.reason === 'job_execution_timeout') {
        await afterScript('failed');
        await uploadArtifacts(job, options.api, false, projectDir, tmpDir, log).catch(() => {});
      }
      return { state: 'failed', reason: failure.reason, exitCode: failure.exitCode, message: failure.message };
    }

    async function afterScript(status: string) {
      const after = job.steps.find((s) => s.name === 'after_script');
      if (!after || after.script.length === 0) return;
      const endAfter = log.section('after_script', 'Running after_script');
      log.line('Running after script...');
      const code = await shell(after.script, AFTER_SCRIPT_TIMEOUT_SECONDS, { CI_JOB_STATUS: status }, 'after_script').catch((error: Error) => {
        log.line(`\x1b[0;33mWARNING: after_script failed: ${error.message}\x1b[0;m`);
        return 0;
      });
      if (code !== 0) log.line(`\x1b[0;33mWARNING: after_script failed with exit code ${code}\x1b[0;m`);
      endAfter();
    }
  })();

  options.abort.removeEventListener('abort', stop);
  clearTimeout(deadlineTimer);
  if (outcome.state === 'success') log.line('\x1b[32;1mJob succeeded\x1b[0;m');
  else if (outcome.state === 'failed') log.line(`\x1b[31;1mERROR: Job failed: ${outcome.message}\x1b[0;m`);
  const trace = await log.finish();
  await fs.rm(tmpDir, { recursive: true, force: true });
  // A job the server stopped (canceled, or failed itself) has no outcome to report.
  if (outcome.state === 'stopped') return;
  const body: Record<string, unknown> = { state: outcome.state, checksum: trace.checksum, output: trace };
  if (outcome.state === 'failed') {
    body.failure_reason = outcome.reason;
    if (outcome.exitCode !== undefined) body.exit_code = outcome.exitCode;
  } else body.exit_code = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    const answer = await options.api.updateJob(job, body).catch(() => null);
    if (answer && answer.status !== 202 && answer.status < 500) return;
    await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
  }
}

async function downloadDependencies(job: JobPayload, api: RunnerApi, projectDir: string, tmpDir: string, log: JobLog, signal: AbortSignal): Promise<void> {
  const withArtifacts = job.dependencies.filter((d) => d.artifacts_file);
  if (withArtifacts.length === 0) return;
  const end = log.section('download_artifacts', 'Downloading artifacts');
  for (const dep of withArtifacts) {
    log.line(`Downloading artifacts for ${dep.name} (${dep.id})...`);
    const file = path.join(tmpDir, `dependency-${dep.id}.zip`);
    await api.downloadArtifacts(dep.id, dep.token, file, signal);
    await unpackZip(file, projectDir, (m) => log.line(`\x1b[0;33mWARNING: ${m}\x1b[0;m`));
    await fs.rm(file, { force: true });
  }
  end();
}

const wanted = (spec: { when?: string }, succeeded: boolean) => {
  const when = spec.when ?? 'on_success';
  return when === 'always' || (when === 'on_success') === succeeded;
};

/** Uploads each artifact the job declares for its outcome: the archive as a zip, reports gzip or raw. */
async function uploadArtifacts(job: JobPayload, api: RunnerApi, succeeded: boolean, projectDir: string, tmpDir: string, log: JobLog): Promise<void> {
  const specs = (job.artifacts ?? []).filter((a) => wanted(a, succeeded));
  if (specs.length === 0) return;
  const end = log.section(`upload_artifacts_on_${succeeded ? 'success' : 'failure'}`, 'Uploading artifacts for ' + (succeeded ? 'successful' : 'failed') + ' job');
  const warn = (m: string) => log.line(`\x1b[0;33mWARNING: ${m}\x1b[0;m`);
  for (const spec of specs) {
    const files = await selectFiles(projectDir, spec, warn);
    if (files.length === 0) {
      warn(`no files to upload for ${spec.artifact_type}`);
      continue;
    }
    const { file, name } = await packArtifact(spec, files, projectDir, tmpDir);
    log.line(`Uploading artifacts... (${spec.artifact_type}: ${files.length} file${files.length === 1 ? '' : 's'})`);
    await api.uploadArtifact(job, file, name, spec);
    await fs.rm(file, { force: true });
  }
  end();
}

async function packArtifact(spec: ArtifactSpec, files: string[], projectDir: string, tmpDir: string): Promise<{ file: string; name: string }> {
  const file = path.join(tmpDir, `upload-${spec.artifact_type}`);
  if (spec.artifact_format === 'zip') {
    await writeZip(projectDir, files, file);
    return { file, name: `${path.basename(spec.name || 'artifacts')}.zip` };
  }
  if (spec.artifact_format === 'gzip') {
    // One gzip member per file, concatenated, as the real runner uploads reports.
    const members = await Promise.all(files.map(async (rel) => gzip(await fs.readFile(path.join(projectDir, rel)))));
    await fs.writeFile(file, Buffer.concat(members));
    return { file, name: `${path.basename(files[0] as string)}.gz` };
  }
  await fs.copyFile(path.join(projectDir, files[0] as string), file);
  return { file, name: path.basename(files[0] as string) };
}
