// What the CI tests share: a project with a repository and a configuration, a registered runner,
// asking for a job the way a runner asks, and uploading artifacts the way a runner uploads them.
import yazl from 'yazl';
import { type TestApp, type TestUser } from '../harness.ts';
import { expectStatus } from '../matchers.ts';

/** Creates a project with a README on `main` (protected by default), as `owner`. */
export async function projectWithRepository(t: TestApp, owner: TestUser, body: Record<string, unknown> = {}): Promise<{ id: number; runnersToken: string }> {
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: `ci-${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, visibility: 'private', ...body } });
  expectStatus(created, 201);
  await t.runJobs();
  const project = (await t.get(`/api/v4/projects/${created.json().id}`, { token: owner.token })).json();
  return { id: project.id, runnersToken: project.runners_token };
}

/** Commits `.gitlab-ci.yml` (created or updated) on a branch. */
export async function commitConfig(t: TestApp, owner: TestUser, projectId: number, content: string, options: { branch?: string; message?: string; startBranch?: string } = {}) {
  const exists = await t.get(`/api/v4/projects/${projectId}/repository/files/.gitlab-ci.yml`, { token: owner.token, query: { ref: options.startBranch ?? options.branch ?? 'main' } });
  const res = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: {
      branch: options.branch ?? 'main',
      ...(options.startBranch ? { start_branch: options.startBranch } : {}),
      commit_message: options.message ?? 'CI',
      actions: [{ action: exists.statusCode === 200 ? 'update' : 'create', file_path: '.gitlab-ci.yml', content }],
    },
  });
  expectStatus(res, 201);
  await t.runJobs();
}

export async function registerRunner(t: TestApp, registrationToken: string): Promise<string> {
  const res = await t.post('/api/v4/runners', { body: { token: registrationToken, description: 'test runner', run_untagged: true } });
  expectStatus(res, 201);
  return res.json().token;
}

export async function requestJob(t: TestApp, runnerToken: string) {
  return t.post('/api/v4/jobs/request', { body: { token: runnerToken, info: { name: 'gitlab-runner', version: '16.0.0', features: { refspecs: true } } } });
}

/** The variables of a job payload as [key, value] pairs, in order, keeping only the given keys. */
export function variablePairs(payload: { variables: { key: string; value: string }[] }, keys: readonly string[]): [string, string][] {
  return payload.variables.filter((v) => keys.includes(v.key)).map((v) => [v.key, v.value]);
}

/** The features a current runner advertises in its job requests' `info`. */
export const RUNNER_FEATURES = {
  variables: true, image: true, services: true, artifacts: true, cache: true, shared: true, upload_multiple_artifacts: true, upload_raw_artifacts: true,
  session: true, terminal: true, refspecs: true, masking: true, proxy: false, raw_variables: true, artifacts_exclude: true, multi_build_steps: true,
  trace_reset: true, trace_checksum: true, trace_size: true, vault_secrets: true, cancelable: true, return_exit_code: true, service_variables: true,
};

export async function zip(files: Record<string, string>): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) archive.addBuffer(Buffer.from(content), name);
  archive.end();
  return Buffer.concat(await Array.fromAsync(archive.outputStream as AsyncIterable<Buffer>));
}

export interface ArtifactFile {
  /** The form field's name (`file` unless said). */
  name?: string;
  filename: string;
  content: Buffer;
}

/** A multipart body: fields first (as older runners may send them), the `file` part last unless said. */
export function multipart(file: ArtifactFile | null, fields: Record<string, string> = {}) {
  const boundary = `----quarry${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(file.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A runner's artifact upload: the job token in JOB-TOKEN (unless null), type, format and expiry in the query or the fields. */
export function uploadArtifact(t: TestApp, jobId: number, token: string | null, file: ArtifactFile | null, query: Record<string, string> = {}, fields: Record<string, string> = {}) {
  const { body, contentType } = multipart(file, fields);
  const headers: Record<string, string> = { 'content-type': contentType };
  if (token) headers['job-token'] = token;
  return t.post(`/api/v4/jobs/${jobId}/artifacts`, { headers, query, body });
}
