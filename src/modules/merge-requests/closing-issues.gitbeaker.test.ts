// A real client against a listening server: @gitbeaker/rest reads an issue's merge_requests_count
// and the issues a merge request closes (MergeRequests.allIssuesClosed).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { IssueEntity } from '../issues/issues.schemas.ts';

let t: TestApp;
let host: string;
let projectId: number;

before(async () => {
  ({ t, host } = await listeningTestApp());
  const project = await createProject(t, { visibility: 'public' });
  projectId = project.id;
  const { dir } = await giveRepository(t, project);
  await commitOn(dir, 'fix', { from: 'main' });
});
after(() => t.close());

test('@gitbeaker/rest: an issue counts the merge request that closes it; allIssuesClosed lists it', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const issue = await api.Issues.create(projectId, 'Broken');
  const mr = await api.MergeRequests.create(projectId, 'fix', 'main', 'Fix it', { description: `Closes #${issue.iid}` });
  const shown = await api.Issues.show(issue.iid, { projectId });
  expectEntity(shown, IssueEntity);
  assert.equal(shown.merge_requests_count, 1);
  const closed = await api.MergeRequests.allIssuesClosed(projectId, mr.iid);
  expectEntities(closed, IssueEntity);
  assert.deepEqual(closed.map((i) => i.iid), [issue.iid]);
});
