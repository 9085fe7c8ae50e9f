// A real client against a listening server: @gitbeaker/rest reverts and cherry-picks commits,
// keeps a project's issue boards and lists, and approves merge requests.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { MergeRequestApprovalsEntity, ProjectApprovalSettingsEntity } from '../merge-request-approvals/merge-request-approvals.schemas.ts';
import { BoardEntity, BoardListEntity } from './boards.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: Commits.revert and cherryPick', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-picks', initializeWithReadme: true });
  const added = await api.Commits.create(project.id, 'main', 'Add a', [{ action: 'create', filePath: 'a.txt', content: 'a' }]);
  const reverted = await api.Commits.revert(project.id, added.id, 'main');
  expectEntity(reverted, CommitEntity);
  assert.equal(reverted.title, 'Revert "Add a"');
  const refusal = await failureOf(api.Commits.revert(project.id, added.id, 'main'));
  assert.equal(refusal.status, 400);
  assert.match(String(refusal.body), /^Sorry, we cannot revert this commit automatically/);

  await api.Branches.create(project.id, 'side', 'main');
  const side = await api.Commits.create(project.id, 'side', 'Side', [{ action: 'create', filePath: 'side.txt', content: 's' }]);
  const dry = await api.Commits.cherryPick(project.id, side.id, 'main', { dryRun: true });
  assert.deepEqual(dry, { dry_run: 'success' });
  const picked = await api.Commits.cherryPick(project.id, side.id, 'main', { message: 'Picked by beaker' });
  expectEntity(picked, CommitEntity);
  assert.equal(picked.message, 'Picked by beaker');
});

test('@gitbeaker/rest: ProjectIssueBoards with lists', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-boards' });
  const label = await api.ProjectLabels.create(project.id, 'Doing', '#00FF00');
  const board = await api.ProjectIssueBoards.create(project.id, 'Beaker board');
  expectEntity(board, BoardEntity);
  const edited = await api.ProjectIssueBoards.edit(project.id, board.id, { name: 'Renamed', weight: 2 });
  assert.deepEqual([edited.name, edited.weight], ['Renamed', 2]);
  expectEntities(await api.ProjectIssueBoards.all(project.id), BoardEntity);
  const list = await api.ProjectIssueBoards.createList(project.id, board.id, { labelId: label.id as number });
  expectEntity(list, BoardListEntity);
  const other = await api.ProjectIssueBoards.createList(project.id, board.id, { labelId: (await api.ProjectLabels.create(project.id, 'Done', '#0000FF')).id as number });
  const moved = await api.ProjectIssueBoards.editList(project.id, board.id, other.id, 0);
  assert.equal(moved.position, 0);
  expectEntities(await api.ProjectIssueBoards.allLists(project.id, board.id), BoardListEntity);
  assert.equal((await api.ProjectIssueBoards.showList(project.id, board.id, list.id)).position, 1);
  await api.ProjectIssueBoards.removeList(project.id, board.id, list.id);
  assert.equal((await api.ProjectIssueBoards.show(project.id, board.id)).lists?.length, 1);
  await api.ProjectIssueBoards.remove(project.id, board.id);
});

test('@gitbeaker/rest: MergeRequestApprovals', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const author = await t.user({ username: 'beaker-author' });
  const project = await api.Projects.create({ name: 'beaker-approvals', initializeWithReadme: true });
  await api.ProjectMembers.add(project.id, 30, { userId: author.user.id });
  await api.Branches.create(project.id, 'feature', 'main');
  await api.Commits.create(project.id, 'feature', 'Feature', [{ action: 'create', filePath: 'f.txt', content: 'f' }]);
  const authorApi = new Gitlab({ host, token: author.token });
  const mr = await authorApi.MergeRequests.create(project.id, 'feature', 'main', 'Feature');

  const settings = await api.MergeRequestApprovals.editConfiguration(project.id, { resetApprovalsOnPush: false, requirePasswordToApprove: false });
  expectEntity(settings, ProjectApprovalSettingsEntity);
  assert.equal(settings.reset_approvals_on_push, false);
  expectEntity(await api.MergeRequestApprovals.showConfiguration(project.id), ProjectApprovalSettingsEntity);

  const approved = await api.MergeRequestApprovals.approve(project.id, mr.iid);
  assert.equal(approved.approved, true);
  const state = await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid });
  expectEntity(state, MergeRequestApprovalsEntity);
  assert.equal(state.approved_by?.length, 1);
  assert.equal((await failureOf(api.MergeRequestApprovals.approve(project.id, mr.iid))).status, 401);
  assert.deepEqual(await api.MergeRequestApprovals.showApprovalState(project.id, mr.iid), { approval_rules_overwritten: false, rules: [] });
  await api.MergeRequestApprovals.unapprove(project.id, mr.iid);
  assert.equal((await api.MergeRequestApprovals.showConfiguration(project.id, { mergerequestIId: mr.iid })).approved_by?.length, 0);
});
