// A real client against a listening server: @gitbeaker/rest drives issue and merge request
// discussions (threads, replies, edits, resolving, removal) and reads resource label, state and
// milestone events.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ResourceLabelEventEntity, ResourceMilestoneEventEntity, ResourceStateEventEntity } from '../resource-events/resource-events.schemas.ts';
import { DiscussionEntity, NoteEntity } from './notes.schemas.ts';

let t: TestApp;
let host: string;
let projectId: number;

before(async () => {
  ({ t, host } = await listeningTestApp());
  const project = await createProject(t, { visibility: 'public' });
  projectId = project.id;
  const { dir } = await giveRepository(t, project);
  await commitOn(dir, 'topic', { from: 'main' });
});
after(() => t.close());

test('@gitbeaker/rest: IssueDiscussions and the issue resource events', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const milestone = await api.ProjectMilestones.create(projectId, 'v1');
  const issue = await api.Issues.create(projectId, 'Talk', { labels: 'bug', milestoneId: milestone.id });
  const thread = await api.IssueDiscussions.create(projectId, issue.iid, 'first');
  expectEntity(thread, DiscussionEntity);
  const reply = await api.IssueDiscussions.addNote(projectId, issue.iid, thread.id as string, 'second');
  expectEntity(reply, NoteEntity);
  const edited = await api.IssueDiscussions.editNote(projectId, issue.iid, thread.id as string, reply.id as number, { body: 'edited' });
  assert.equal(edited.body, 'edited');
  const all = await api.IssueDiscussions.all(projectId, issue.iid);
  expectEntities(all, DiscussionEntity);
  assert.deepEqual((await api.IssueDiscussions.show(projectId, issue.iid, thread.id as string)).notes?.map((n) => n.body), ['first', 'edited']);
  await api.IssueDiscussions.removeNote(projectId, issue.iid, thread.id as string, reply.id as number);

  await api.Issues.edit(projectId, issue.iid, { stateEvent: 'close' });
  const labels = await api.IssueLabelEvents.all(projectId, issue.iid);
  expectEntities(labels, ResourceLabelEventEntity);
  expectEntity(await api.IssueLabelEvents.show(projectId, issue.iid, labels[0].id as number), ResourceLabelEventEntity);
  const states = await api.IssueStateEvents.all(projectId, issue.iid);
  expectEntities(states, ResourceStateEventEntity);
  assert.deepEqual(states.map((e) => e.state), ['closed']);
  expectEntity(await api.IssueStateEvents.show(projectId, issue.iid, states[0].id as number), ResourceStateEventEntity);
  const milestones = await api.IssueMilestoneEvents.all(projectId, issue.iid);
  expectEntities(milestones, ResourceMilestoneEventEntity);
  expectEntity(await api.IssueMilestoneEvents.show(projectId, issue.iid, milestones[0].id as number), ResourceMilestoneEventEntity);
});

test('@gitbeaker/rest: MergeRequestDiscussions on a line of the diff, resolved and reopened', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const mr = await api.MergeRequests.create(projectId, 'topic', 'main', 'Topic');
  const changes = await api.MergeRequests.showChanges(projectId, mr.iid);
  const file = changes.changes![0];
  const refs = mr.diff_refs as { base_sha: string; start_sha: string; head_sha: string };
  const thread = await api.MergeRequestDiscussions.create(projectId, mr.iid, 'on a line', {
    position: { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha, positionType: 'text', newPath: file.new_path as string, newLine: '1' },
  });
  expectEntity(thread, DiscussionEntity);
  const id = thread.id as string;
  const reply = await api.MergeRequestDiscussions.addNote(projectId, mr.iid, id, 'answer');
  expectEntity(reply, NoteEntity);
  const resolved = await api.MergeRequestDiscussions.resolve(projectId, mr.iid, id, true);
  expectEntity(resolved, DiscussionEntity);
  assert.deepEqual(resolved.notes?.map((n) => n.resolved), [true, true]);
  const note = await api.MergeRequestDiscussions.editNote(projectId, mr.iid, id, reply.id as number, { resolved: false });
  assert.equal(note.resolved, false);
  expectEntities(await api.MergeRequestDiscussions.all(projectId, mr.iid), DiscussionEntity);
  await api.MergeRequests.edit(projectId, mr.iid, { stateEvent: 'close' });
  const states = await api.MergeRequestStateEvents.all(projectId, mr.iid);
  expectEntities(states, ResourceStateEventEntity);
  assert.deepEqual(states.map((e) => e.state), ['closed']);
});
