// Who may call each merge request route, on private, internal and public projects: the project's
// code readers read its merge requests (anonymous callers too, where the project is public);
// Developers and up open, edit, rebase and merge them (merging into an unprotected branch; others get the
// platform's 401); owners delete them. A guest of a private project may not read merge requests:
// the list is 403, one merge request the record-not-found 404 (checked on its own, below).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, VISIBILITIES, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { AUTHOR, commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { createCommit } from '../../git/commits.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { PipelineBasicEntity, PipelineEntity } from '../pipelines/pipelines.schemas.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { MergeRequestBasicEntity, MergeRequestEntity } from './merge-requests.schemas.ts';

/** A configuration with a merge request job, so that merge request pipelines can be made. */
const MR_JOB = 'test:\n  script: [make]\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n';

let t: TestApp;
let world: MatrixWorld;
const mrOf = new Map<number, number>();
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const { dir } = await giveRepository(t, project);
    await createCommit(dir, { branch: 'main', actions: [{ action: 'create', path: '.gitlab-ci.yml', content: MR_JOB }], message: 'CI', author: AUTHOR });
    mrOf.set(project.id, await fresh(project.id));
  }
});
after(() => t.close());

/** A new branch off main with a commit, and a merge request from it into main opened by root. */
async function fresh(projectId: number): Promise<number> {
  const source = await branch(projectId);
  const res = await t.post(`/api/v4/projects/${projectId}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'A change', source_branch: source, target_branch: 'main' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().iid;
}

async function branch(projectId: number): Promise<string> {
  const project = Object.values(world.projects).find((p) => p.id === projectId)!;
  const name = `matrix-${++sequence}`;
  await commitOn(projectRepositoryPath(t.deps.config.repositoryStorages, project) as string, name, { from: 'main' });
  return name;
}

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/merge_requests`;
const one = (c: MatrixCall) => `${base(c)}/${mrOf.get(c.project.id)}`;
/** Guests read merge requests of public and internal projects only. */
const readers = (role: Parameters<ReturnType<typeof expectation>>[0], visibility: Parameters<ReturnType<typeof expectation>>[1]) => {
  const status = expectation({ auth: 'optional', success: 200 })(role, visibility);
  return status === 200 && role === 'guest' && visibility === 'private' ? 403 : status;
};
const exceptGuest = { except: ['guest' as const] };

test('GET merge_requests', async () => {
  await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), MergeRequestBasicEntity) });
});

test('GET merge_requests/:iid, its commits, changes and notes', async () => {
  for (const suffix of ['', '/commits', '/changes']) {
    await runMatrix(world, { ...exceptGuest, expect: readers, errors: refusals('Project'), call: (c) => t.get(`${one(c)}${suffix}`, { token: c.caller.token }) });
  }
  await runMatrix(world, { ...exceptGuest, expect: readers, errors: refusals('Project'), call: (c) => t.get(one(c), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), MergeRequestEntity) });
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 200 }),
    errors: refusals('Project'),
    call: (c) => t.get(`${one(c)}/notes`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), NoteEntity),
  });
});

test('POST merge_requests', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.DEVELOPER }),
    errors: refusals('Project'),
    call: async (c) => t.post(base(c), { token: c.caller.token, body: { title: `by ${c.role}`, source_branch: await branch(c.project.id), target_branch: 'main' } }),
    verify: (res) => expectEntity(res.json(), MergeRequestEntity),
  });
});

test('PUT merge_requests/:iid (someone else’s) and POST its notes', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.DEVELOPER }),
    errors: refusals('Project'),
    call: (c) => t.put(one(c), { token: c.caller.token, body: { description: `edited by ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), MergeRequestEntity),
  });
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 201 }),
    errors: refusals('Project'),
    call: (c) => t.post(`${one(c)}/notes`, { token: c.caller.token, body: { body: `from ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), NoteEntity),
  });
});

test('PUT merge_requests/:iid/merge', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.DEVELOPER, denied: 401 }),
    errors: refusals('Project'),
    call: async (c) => t.put(`${base(c)}/${await fresh(c.project.id)}/merge`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), MergeRequestEntity),
  });
});

test('PUT merge_requests/:iid/rebase: whoever may push to the source branch', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 202, minLevel: ACCESS.DEVELOPER }),
    errors: refusals('Project', { 403: { message: '403 Forbidden - Cannot push to source branch' } }),
    call: async (c) => t.put(`${base(c)}/${await fresh(c.project.id)}/rebase`, { token: c.caller.token }),
    verify: (res) => assert.deepEqual(res.json(), { rebase_in_progress: true }),
  });
});

test('GET and POST merge_requests/:iid/pipelines: pipeline readers list; those who may run pipelines make one', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: readers,
    errors: refusals('Project'),
    call: (c) => t.get(`${one(c)}/pipelines`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), PipelineBasicEntity),
  });
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.DEVELOPER, denied: 400 }),
    errors: refusals('Project', { 400: { message: { base: ['Insufficient permissions to create a new pipeline'] } } }),
    call: (c) => t.post(`${one(c)}/pipelines`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), PipelineEntity),
  });
});

test('POST merge_requests/:iid/cancel_merge_when_pipeline_succeeds: whoever may merge it (or its author)', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.DEVELOPER, denied: 401 }),
    errors: refusals('Project'),
    call: (c) => t.post(`${one(c)}/cancel_merge_when_pipeline_succeeds`, { token: c.caller.token }),
    verify: (res) => assert.deepEqual(res.json(), { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 }),
  });
});

test('DELETE merge_requests/:iid', async () => {
  await runMatrix(world, {
    ...exceptGuest,
    expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.OWNER }),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${await fresh(c.project.id)}`, { token: c.caller.token }),
  });
});

test('a guest reads merge requests of public and internal projects; of a private one, none exists for them', async () => {
  const guest = world.callers.guest.token;
  for (const visibility of VISIBILITIES) {
    const p = world.projects[visibility];
    const url = `/api/v4/projects/${p.id}/merge_requests/${mrOf.get(p.id)}`;
    const calls = [t.get(url, { token: guest }), t.get(`${url}/notes`, { token: guest }), t.put(url, { token: guest, body: { title: 'x' } }), t.put(`${url}/merge`, { token: guest }), t.put(`${url}/rebase`, { token: guest })];
    const [read, notes, edit, merge, rebase] = await Promise.all(calls);
    if (visibility === 'private') {
      for (const res of [read, notes, edit, merge, rebase]) assert.deepEqual([res.statusCode, res.json()], [404, { message: '404 Not found' }]);
    } else {
      assert.equal(read.statusCode, 200);
      assert.equal(notes.statusCode, 200);
      assert.deepEqual([edit.statusCode, edit.json()], [403, { message: '403 Forbidden' }]);
      assert.deepEqual([merge.statusCode, merge.json()], [401, { message: '401 Unauthorized' }]);
      assert.deepEqual([rebase.statusCode, rebase.json()], [403, { message: '403 Forbidden - Cannot push to source branch' }]);
    }
  }
});
