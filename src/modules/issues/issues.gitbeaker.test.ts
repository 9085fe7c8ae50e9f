// A real client against a listening server: @gitbeaker/rest opens, lists, edits, closes, follows
// and deletes issues and writes, edits, lists and deletes their comments, with the platform's
// refusals reaching it as the errors it expects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { failureOf, listeningTestApp, statusOf } from '../../../test/listening.ts';
import { createProject, personalNamespace } from '../../../test/factories.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { IssueEntity } from './issues.schemas.ts';

let t: TestApp;
let host: string;
let owner: TestUser;
let guest: TestUser;
let project: ProjectRow;

before(async () => {
  ({ t, host } = await listeningTestApp());
  owner = await t.user({ username: 'ines' });
  guest = await t.user({ username: 'gil' });
  project = await createProject(t, {
    path: 'tracked',
    visibility: 'private',
    namespace: await personalNamespace(t, owner.user.id),
    creatorId: owner.user.id,
    members: [[guest.user.id, ACCESS.GUEST]],
  });
});
after(() => t.close());

describe('@gitbeaker/rest', () => {
  test('Issues: create, show, all with filters and pages, edit, close, remove', async () => {
    const api = new Gitlab({ host, token: owner.token });
    const first = await api.Issues.create(project.id, 'Crash on start', { description: 'It crashes.', labels: 'bug,p1', assigneeIds: [guest.user.id] });
    expectEntity(first, IssueEntity);
    assert.deepEqual([first.iid, first.labels, first.state], [1, ['bug', 'p1'], 'opened']);
    for (const title of ['Slow list', 'Typo']) expectEntity(await api.Issues.create(project.id, title, { labels: 'ui' }), IssueEntity);
    const shown = await api.Issues.show(first.iid, { projectId: project.id });
    expectEntity(shown, IssueEntity);
    assert.equal(shown.title, 'Crash on start');
    const all = await api.Issues.all({ projectId: project.id, perPage: 2 });
    expectEntities(all, IssueEntity);
    assert.deepEqual(all.map((i) => i.iid), [3, 2, 1]);
    const bugs = await api.Issues.all({ projectId: project.id, labels: 'bug', state: 'opened' });
    assert.deepEqual(bugs.map((i) => i.iid), [1]);
    const edited = await api.Issues.edit(project.id, 2, { title: 'Slow issue list', stateEvent: 'close', addLabels: 'perf' });
    expectEntity(edited, IssueEntity);
    assert.deepEqual([edited.title, edited.state, edited.labels], ['Slow issue list', 'closed', ['perf', 'ui']]);
    const { data, paginationInfo } = await api.Issues.all({ projectId: project.id, state: 'closed', showExpanded: true, maxPages: 1 });
    assert.deepEqual([data.map((i) => i.iid), paginationInfo.total], [[2], 1]);
    await api.Issues.remove(project.id, 3);
    assert.deepEqual(await failureOf(api.Issues.show(3, { projectId: project.id })), { status: 404, body: '404 Not found' });
  });

  test('Issues.subscribe and unsubscribe', async () => {
    const api = new Gitlab({ host, token: owner.token });
    const { iid } = await new Gitlab({ host, token: ROOT_TOKEN }).Issues.create(project.id, 'Follow me');
    const on = await api.Issues.subscribe(project.id, iid);
    expectEntity(on, IssueEntity);
    assert.equal(on.subscribed, true);
    const off = await api.Issues.unsubscribe(project.id, iid);
    assert.equal(off.subscribed, false);
    // Unchanged: 304, which the client reports as a failure of its own.
    assert.equal(await statusOf(api.Issues.unsubscribe(project.id, iid)), 304);
  });

  test('IssueNotes: create, all, edit, remove; a guest comments, a stranger is refused', async () => {
    const api = new Gitlab({ host, token: owner.token });
    const note = await api.IssueNotes.create(project.id, 1, 'Confirmed on 1.2');
    expectEntity(note, NoteEntity);
    assert.deepEqual([note.body, note.noteable_iid, note.system], ['Confirmed on 1.2', 1, false]);
    const byGuest = await new Gitlab({ host, token: guest.token }).IssueNotes.create(project.id, 1, 'Me too');
    expectEntity(byGuest, NoteEntity);
    const edited = await api.IssueNotes.edit(project.id, 1, note.id, { body: 'Confirmed on 1.2 and 1.3' });
    assert.equal(edited.body, 'Confirmed on 1.2 and 1.3');
    const notes = await api.IssueNotes.all(project.id, 1, { sort: 'asc', perPage: 1 });
    expectEntities(notes, NoteEntity);
    const comments = notes.filter((n) => !n.system).map((n) => n.body);
    assert.deepEqual(comments, ['Confirmed on 1.2 and 1.3', 'Me too']);
    await api.IssueNotes.remove(project.id, 1, byGuest.id);
    assert.equal((await api.IssueNotes.all(project.id, 1)).filter((n) => !n.system).length, 1);
    const stranger = await t.user({ username: 'sten' });
    assert.deepEqual(await failureOf(new Gitlab({ host, token: stranger.token }).IssueNotes.create(project.id, 1, 'Hi')), { status: 404, body: '404 Project Not Found' });
  });
});
