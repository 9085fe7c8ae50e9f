// A real client against a listening server: @gitbeaker/rest opens, lists (following every page),
// edits and merges merge requests, and reads the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { MergeRequestBasicEntity, MergeRequestEntity } from './merge-requests.schemas.ts';

let t: TestApp;
let host: string;
let projectId: number;

before(async () => {
  ({ t, host } = await listeningTestApp());
  const project = await createProject(t, { visibility: 'public' });
  projectId = project.id;
  const { dir } = await giveRepository(t, project);
  for (const name of ['one', 'two', 'three']) await commitOn(dir, name, { from: 'main' });
});
after(() => t.close());

test('@gitbeaker/rest: MergeRequests create, all (every page), edit, merge; a duplicate is 409', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  for (const name of ['one', 'two', 'three']) expectEntity(await api.MergeRequests.create(projectId, name, 'main', `From ${name}`), MergeRequestEntity);
  const all = await api.MergeRequests.all({ projectId, perPage: 2 });
  expectEntities(all, MergeRequestBasicEntity);
  assert.deepEqual(all.map((m) => m.iid), [3, 2, 1]);
  const edited = await api.MergeRequests.edit(projectId, 1, { title: 'Draft: from one', labels: 'x' });
  assert.equal(edited.draft, true);
  assert.deepEqual(edited.labels, ['x']);
  const merged = await api.MergeRequests.merge(projectId, 2);
  assert.equal(merged.state, 'merged');
  assert.deepEqual(await failureOf(api.MergeRequests.create(projectId, 'three', 'main', 'again')), { status: 409, body: '["Another open merge request already exists for this source branch: !3"]' });
  assert.deepEqual(await failureOf(api.MergeRequests.merge(projectId, 1)), { status: 405, body: '405 Method Not Allowed' });
});

test('@gitbeaker/rest: MergeRequests rebase, then show with includeRebaseInProgress', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  // !3 is behind main since !2 was merged.
  assert.deepEqual(await api.MergeRequests.rebase(projectId, 3, { skipCI: true }), { rebase_in_progress: true });
  assert.deepEqual(await failureOf(api.MergeRequests.rebase(projectId, 3)), { status: 409, body: '409 Conflict: Resource lock' });
  await t.runJobs();
  const shown = await api.MergeRequests.show(projectId, 3, { includeRebaseInProgress: true });
  expectEntity(shown, MergeRequestEntity);
  assert.equal(shown.rebase_in_progress, false);
  assert.equal(shown.merge_error, null);
  assert.equal(shown.diff_refs.base_sha, (await api.Branches.show(projectId, 'main')).commit.id);
});
