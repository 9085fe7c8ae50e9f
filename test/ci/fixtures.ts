// A project with a repository and a runner registered to it, for CI tests: commit a configuration,
// run the background work, and take jobs the way a runner does.
import { type TestApp, type TestUser } from '../harness.ts';
import { expectStatus } from '../matchers.ts';

export interface CiProject {
  owner: TestUser;
  projectId: number;
  runnersToken: string;
  /** Commits `.gitlab-ci.yml` (created or updated) and runs the background work it causes. */
  commitConfig(content: string, message?: string): Promise<void>;
  /** Registers a runner with the project's token; returns its token. */
  registerRunner(body?: Record<string, unknown>): Promise<string>;
  /** A job request (with the runner's `info` when given): the job payload, or null when there is none. */
  takeJob(runnerToken: string, info?: Record<string, unknown>): Promise<{ id: number; token: string; job_info: { name: string }; [key: string]: unknown } | null>;
  /** The runner's final update of a job, then the background work. */
  finishJob(job: { id: number; token: string }, state: 'success' | 'failed', extra?: Record<string, unknown>): Promise<void>;
  /** The project's pipelines, newest first. */
  pipelines(): Promise<{ id: number; status: string }[]>;
  /** A pipeline's jobs, newest first, as [name, status] (retried ones too when asked). */
  jobStates(pipelineId: number, includeRetried?: boolean): Promise<[string, string][]>;
}

export async function ciProject(t: TestApp, visibility = 'private'): Promise<CiProject> {
  const owner = await t.user();
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: `ci-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, initialize_with_readme: true, visibility } });
  expectStatus(created, 201);
  const projectId = created.json().id as number;
  await t.runJobs();
  const runnersToken = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json().runners_token as string;
  let committed = false;
  return {
    owner,
    projectId,
    runnersToken,
    async commitConfig(content, message = 'CI') {
      const action = committed ? 'update' : 'create';
      committed = true;
      const res = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
        token: owner.token,
        body: { branch: 'main', commit_message: message, actions: [{ action, file_path: '.gitlab-ci.yml', content }] },
      });
      expectStatus(res, 201);
      await t.runJobs();
    },
    async registerRunner(body = {}) {
      const res = await t.post('/api/v4/runners', { body: { token: runnersToken, ...body } });
      expectStatus(res, 201);
      return res.json().token;
    },
    async takeJob(runnerToken, info) {
      const res = await t.post('/api/v4/jobs/request', { body: { token: runnerToken, ...(info ? { info } : {}) } });
      if (res.statusCode === 204) return null;
      expectStatus(res, 201);
      return res.json();
    },
    async finishJob(job, state, extra = {}) {
      expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state, ...extra } }), 200);
      await t.runJobs();
    },
    async pipelines() {
      return (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token })).json();
    },
    async jobStates(pipelineId, includeRetried = false) {
      const res = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipelineId}/jobs`, { token: owner.token, query: includeRetried ? { include_retried: 'true', per_page: '100' } : { per_page: '100' } });
      return res.json().map((j: { name: string; status: string }) => [j.name, j.status]);
    },
  };
}
