// Who may read and change pipelines and jobs (the platform's 14.x CI policy): everyone who reads
// the project reads them while its jobs are public (the default); developers cancel, retry and
// play; owners delete pipelines; anonymous callers must sign in to change anything.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../src/core/access/levels.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { PipelineBasicEntity, PipelineEntity } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity } from '../matchers.ts';

let t: TestApp;
let world: MatrixWorld;
const pipelines = new Map<number, number>();
const jobs = new Map<number, number>();
let iid = 1000;

/** A finished pipeline with one successful job, written straight into each project of the world. */
async function finishedPipeline(projectId: number): Promise<{ pipelineId: number; jobId: number }> {
  const at = new Date().toISOString();
  const pipeline = await t.deps.db
    .insertInto('ci_pipelines')
    .values({ project_id: projectId, iid: iid++, ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), tag: false, protected: false, source: 'push', status: 'success', created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  const job = await t.deps.db
    .insertInto('ci_builds')
    .values({
      pipeline_id: pipeline.id, project_id: projectId, type: 'build', name: 'build', stage: 'build', stage_idx: 0, status: 'success', ref: 'main', tag: false, protected: false,
      allow_failure: false, interruptible: false, retried: false, when: 'on_success', scheduling_type: 'stage', options: '{}', yaml_variables: '[]', tag_list: '[]', created_at: at, updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { pipelineId: pipeline.id, jobId: job.id };
}

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t, 'pipelines');
  for (const project of Object.values(world.projects)) {
    const { pipelineId, jobId } = await finishedPipeline(project.id);
    pipelines.set(project.id, pipelineId);
    jobs.set(project.id, jobId);
  }
});
after(() => t.close());

describe('reading', () => {
  test('GET /projects/:id/pipelines and one pipeline: every reader of the project', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/pipelines`, { token: caller.token }),
      verify: (res) => expectEntities(res.json(), PipelineBasicEntity),
      errors: refusals('Project'),
    });
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/pipelines/${pipelines.get(project.id)}`, { token: caller.token }),
      verify: (res) => expectEntity(res.json(), PipelineEntity),
      errors: refusals('Project'),
    });
  });

  test('GET /projects/:id/jobs and one job: every reader of the project', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/jobs`, { token: caller.token }),
      verify: (res) => expectEntities(res.json(), JobEntity),
      errors: refusals('Project'),
    });
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/jobs/${jobs.get(project.id)}`, { token: caller.token }),
      verify: (res) => expectEntity(res.json(), JobEntity),
      errors: refusals('Project'),
    });
  });

  test('without public jobs, only members from Reporter read pipelines and jobs', async () => {
    const project = world.projects.public;
    await t.deps.db.updateTable('project_ci_cd_settings').set({ public_builds: false }).where('project_id', '=', project.id).execute();
    await t.deps.db.updateTable('projects').set({ settings_revision: `r${Date.now()}` }).where('id', '=', project.id).execute();
    try {
      for (const [role, status] of [['anonymous', 403], ['non_member', 403], ['guest', 403], ['reporter', 200], ['admin', 200]] as const) {
        const res = await t.get(`/api/v4/projects/${project.id}/jobs`, { token: world.callers[role].token });
        assert.equal(res.statusCode, status, role);
      }
    } finally {
      await t.deps.db.updateTable('project_ci_cd_settings').set({ public_builds: true }).where('project_id', '=', project.id).execute();
      await t.deps.db.updateTable('projects').set({ settings_revision: `s${Date.now()}` }).where('id', '=', project.id).execute();
    }
  });
});

describe('changing', () => {
  test('POST /projects/:id/pipelines/:id/cancel and retry: developers and up', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/pipelines/${pipelines.get(project.id)}/cancel`, { token: caller.token }),
      verify: (res) => expectEntity(res.json(), PipelineEntity),
      errors: refusals('Project'),
    });
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/pipelines/${pipelines.get(project.id)}/retry`, { token: caller.token }),
      errors: refusals('Project'),
    });
  });

  test('POST /projects/:id/jobs/:job_id/retry and cancel: developers and up', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/jobs/${jobs.get(project.id)}/retry`, { token: caller.token }),
      verify: (res) => expectEntity(res.json(), JobEntity),
      errors: refusals('Project'),
    });
    await runMatrix(world, {
      expect: expectation({ success: 400, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      call: ({ caller, project }) => t.post(`/api/v4/projects/${project.id}/jobs/${jobs.get(project.id)}/play`, { token: caller.token }),
      errors: refusals('Project', { 400: { message: '400 Bad request - Unplayable Job' } }),
    });
  });

  test('DELETE /projects/:id/pipelines/:id: owners (and administrators) only', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 204, auth: 'required', minLevel: ACCESS.OWNER }),
      call: async ({ caller, project }) => {
        const { pipelineId } = await finishedPipeline(project.id);
        return t.del(`/api/v4/projects/${project.id}/pipelines/${pipelineId}`, { token: caller.token });
      },
      errors: refusals('Project'),
    });
  });
});
