// Who may call the approval routes, on private, internal and public projects: Maintainers and up
// read and change a project's approval settings; readers of a merge request read its approvals
// (anonymous callers too, where the project is public; a guest of a private project gets the
// record-not-found 404); Developers and up approve and withdraw, readers below them get 403.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { ApprovalStateEntity, MergeRequestApprovalsEntity, ProjectApprovalSettingsEntity } from './merge-request-approvals.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const mrOf = new Map<number, number>();
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    await giveRepository(t, project);
    // Root opens the merge requests and is the administrator caller: authors may approve here.
    await t.post(`/api/v4/projects/${project.id}/approvals`, { token: ROOT_TOKEN, body: { merge_requests_author_approval: true } });
    mrOf.set(project.id, await fresh(project.id));
  }
});
after(() => t.close());

/** A merge request from a new branch, opened by root. */
async function fresh(projectId: number): Promise<number> {
  const project = Object.values(world.projects).find((p) => p.id === projectId)!;
  const source = `approvals-${++sequence}`;
  await commitOn(projectRepositoryPath(t.deps.config.repositoryStorages, project) as string, source, { from: 'main' });
  const res = await t.post(`/api/v4/projects/${projectId}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'A change', source_branch: source, target_branch: 'main' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().iid;
}

const mr = (c: MatrixCall, iid = mrOf.get(c.project.id)) => `/api/v4/projects/${c.project.id}/merge_requests/${iid}`;
/** Readers of merge requests: guests of a private project do not read them (the record-not-found 404). */
const mergeRequestReaders = (success: number, auth: 'optional' | 'required', minLevel?: number) => {
  const base = expectation({ auth, success, minLevel });
  return (role: Parameters<typeof base>[0], visibility: Parameters<typeof base>[1]) => (role === 'guest' && visibility === 'private' ? 404 : base(role, visibility));
};
const errors = refusals('Project', { 404: undefined });

test('project approval settings: Maintainers and up', async () => {
  const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(`/api/v4/projects/${c.project.id}/approvals`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), ProjectApprovalSettingsEntity) });
  await runMatrix(world, {
    expect: maintainers(201),
    errors: refusals('Project'),
    call: (c) => t.post(`/api/v4/projects/${c.project.id}/approvals`, { token: c.caller.token, body: { reset_approvals_on_push: true } }),
    verify: (res) => expectEntity(res.json(), ProjectApprovalSettingsEntity),
  });
});

test('a merge request approvals and approval state: its readers', async () => {
  await runMatrix(world, { expect: mergeRequestReaders(200, 'optional'), errors, call: (c) => t.get(`${mr(c)}/approvals`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), MergeRequestApprovalsEntity) });
  await runMatrix(world, { expect: mergeRequestReaders(200, 'optional'), errors, call: (c) => t.get(`${mr(c)}/approval_state`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), ApprovalStateEntity) });
});

test('approving and withdrawing: Developers and up', async () => {
  await runMatrix(world, {
    expect: mergeRequestReaders(201, 'required', ACCESS.DEVELOPER),
    errors,
    call: async (c) => t.post(`${mr(c, await fresh(c.project.id))}/approve`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), MergeRequestApprovalsEntity),
  });
  await runMatrix(world, {
    expect: mergeRequestReaders(201, 'required', ACCESS.DEVELOPER),
    errors,
    call: async (c) => {
      const iid = await fresh(c.project.id);
      // Root approves for callers it stands for; others withdraw an approval of their own.
      if (c.caller.token) await t.post(`${mr(c, iid)}/approve`, { token: c.caller.token });
      return t.post(`${mr(c, iid)}/unapprove`, { token: c.caller.token });
    },
    verify: (res) => expectEntity(res.json(), MergeRequestApprovalsEntity),
  });
});
