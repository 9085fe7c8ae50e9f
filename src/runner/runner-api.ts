// The runner protocol as a client speaks it (notes gitlab-ci.md §1): registration, asking for jobs
// with long polling, job updates, log appends, artifact uploads and downloads. Nothing else of the
// server is used, so the runner works against any node that speaks this protocol.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRODUCT_REVISION, PRODUCT_VERSION } from '../version.ts';

export const RUNNER_NAME = 'quarry-runner';

/** How long a call may wait for its answer; a job request, held by the server, up to the real runner's 10 minutes. */
const CALL_TIMEOUT_MS = 60_000;
const JOB_REQUEST_TIMEOUT_MS = 10 * 60_000;

/** What this runner can do, as the real runner advertises it; the server refuses jobs needing more. */
export const FEATURES = {
  variables: true,
  image: false,
  services: false,
  artifacts: true,
  cache: true,
  shared: true,
  upload_multiple_artifacts: true,
  upload_raw_artifacts: true,
  session: false,
  terminal: false,
  refspecs: true,
  masking: true,
  proxy: false,
  raw_variables: true,
  artifacts_exclude: true,
  multi_build_steps: true,
  trace_reset: true,
  trace_checksum: true,
  trace_size: true,
  vault_secrets: false,
  cancelable: true,
  return_exit_code: true,
  service_variables: false,
};

const runnerInfo = () => ({
  name: RUNNER_NAME,
  version: PRODUCT_VERSION,
  revision: PRODUCT_REVISION,
  platform: process.platform,
  architecture: process.arch === 'x64' ? 'amd64' : process.arch,
  executor: 'shell',
  shell: 'bash',
  features: FEATURES,
});

export interface JobPayload {
  id: number;
  token: string;
  allow_git_fetch: boolean;
  job_info: { id: number; name: string; stage: string; project_id: number; project_name: string };
  git_info: { repo_url: string; ref: string; sha: string; before_sha: string; ref_type: string; refspecs: string[]; depth: number };
  runner_info: { timeout: number };
  variables: { key: string; value: string; public: boolean; masked: boolean; file?: boolean; raw?: boolean }[];
  steps: { name: string; script: string[]; timeout: number; when: string; allow_failure: boolean }[];
  artifacts: ArtifactSpec[] | null;
  cache: CacheSpec[] | null;
  dependencies: { id: number; name: string; token: string; artifacts_file?: { filename: string; size: number } }[];
}

export interface ArtifactSpec {
  name?: string | null;
  untracked?: boolean;
  paths?: string[];
  exclude?: string[];
  when?: string;
  artifact_type: string;
  artifact_format: string;
  expire_in?: string | null;
}

export interface CacheSpec {
  key: string;
  untracked: boolean;
  paths: string[];
  policy: string;
  when: string;
  fallback_keys?: string[];
}

export class RunnerApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** An answer to a job call: the job's status when the server says it no longer runs. */
export interface JobCallAnswer {
  status: number;
  jobStatus: string | null;
  range: string | null;
  updateInterval: number | null;
}

export class RunnerApi {
  readonly base: string;

  constructor(url: string) {
    this.base = `${url.replace(/\/+$/, '')}/api/v4`;
  }

  /**
   * One call. A call that gets no answer within `timeoutMs` (a minute unless said; null: no limit,
   * for transfers whose length depends on their size) fails, so that nothing waits forever.
   */
  private async call(method: string, path: string, init: { json?: unknown; headers?: Record<string, string>; body?: RequestInit['body']; signal?: AbortSignal; timeoutMs?: number | null } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': `${RUNNER_NAME} ${PRODUCT_VERSION}`, ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const timeoutMs = init.timeoutMs === undefined ? CALL_TIMEOUT_MS : init.timeoutMs;
    const signals = [init.signal, timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs)].filter((s): s is AbortSignal => s !== undefined);
    return fetch(`${this.base}${path}`, { method, headers, body, signal: signals.length ? AbortSignal.any(signals) : undefined });
  }

  /** POST /runners: a new runner's token, from a registration token. */
  async register(registrationToken: string, options: { description: string; tags: string[]; runUntagged: boolean }): Promise<{ id: number; token: string }> {
    const res = await this.call('POST', '/runners', {
      json: { token: registrationToken, description: options.description, info: runnerInfo(), tag_list: options.tags.join(','), run_untagged: options.runUntagged, locked: false, active: true },
    });
    if (res.status !== 201) throw new RunnerApiError(res.status, `registration refused (${res.status}): ${await res.text()}`);
    return (await res.json()) as { id: number; token: string };
  }

  /** POST /runners/verify: whether the runner token is still known. */
  async verify(token: string): Promise<boolean> {
    const res = await this.call('POST', '/runners/verify', { json: { token } });
    await res.body?.cancel();
    if (res.status === 200) return true;
    if (res.status === 403) return false;
    throw new RunnerApiError(res.status, `verification failed (${res.status})`);
  }

  /** POST /jobs/request: a job (201), or none (204) with the queue's version to wait on next time. */
  async requestJob(token: string, lastUpdate: string | null, signal: AbortSignal): Promise<{ job: JobPayload | null; lastUpdate: string | null }> {
    const res = await this.call('POST', '/jobs/request', { json: { token, info: runnerInfo(), ...(lastUpdate !== null ? { last_update: lastUpdate } : {}) }, signal, timeoutMs: JOB_REQUEST_TIMEOUT_MS });
    if (res.status === 201) return { job: (await res.json()) as JobPayload, lastUpdate };
    await res.body?.cancel();
    if (res.status === 204) return { job: null, lastUpdate: res.headers.get('x-gitlab-last-update') ?? lastUpdate };
    // 409: another request of this runner changed it meanwhile; ask again.
    if (res.status === 409) return { job: null, lastUpdate };
    throw new RunnerApiError(res.status, `job request failed (${res.status})`);
  }

  /** PUT /jobs/:id: the job's state (running as a keep-alive, or its outcome). */
  async updateJob(job: JobPayload, body: Record<string, unknown>): Promise<JobCallAnswer> {
    const res = await this.call('PUT', `/jobs/${job.id}`, { json: { token: job.token, info: runnerInfo(), ...body } });
    await res.body?.cancel();
    return answer(res);
  }

  /** PATCH /jobs/:id/trace: appends log bytes at `offset`. */
  async patchTrace(job: JobPayload, offset: number, bytes: Buffer): Promise<JobCallAnswer> {
    const res = await this.call('PATCH', `/jobs/${job.id}/trace`, {
      headers: { 'job-token': job.token, 'content-type': 'text/plain', 'content-range': `${offset}-${offset + bytes.length - 1}` },
      body: new Uint8Array(bytes),
    });
    await res.body?.cancel();
    return answer(res);
  }

  /** POST /jobs/:id/artifacts: one file, multipart as the real runner sends it. */
  async uploadArtifact(job: JobPayload, file: string, fileName: string, query: { artifact_type: string; artifact_format: string; expire_in?: string | null }): Promise<void> {
    const form = new FormData();
    form.append('file', await fs.openAsBlob(file), fileName);
    const params = new URLSearchParams({ artifact_type: query.artifact_type, artifact_format: query.artifact_format });
    if (query.expire_in) params.set('expire_in', query.expire_in);
    const res = await this.call('POST', `/jobs/${job.id}/artifacts?${params}`, { headers: { 'job-token': job.token }, body: form, timeoutMs: null });
    const text = await res.text();
    if (res.status !== 201) throw new RunnerApiError(res.status, `uploading ${query.artifact_type} failed (${res.status}): ${text}`);
  }

  /** GET /jobs/:id/artifacts: a dependency's archive, written to `file`. */
  async downloadArtifacts(jobId: number, token: string, file: string, signal: AbortSignal): Promise<void> {
    const res = await this.call('GET', `/jobs/${jobId}/artifacts`, { headers: { 'job-token': token }, signal, timeoutMs: null });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw new RunnerApiError(res.status, `downloading the artifacts of job ${jobId} failed (${res.status})`);
    }
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(file));
  }
}

function answer(res: Response): JobCallAnswer {
  const interval = Number(res.headers.get('x-gitlab-trace-update-interval'));
  return { status: res.status, jobStatus: res.headers.get('job-status'), range: res.headers.get('range'), updateInterval: Number.isFinite(interval) && interval > 0 ? interval : null };
}
