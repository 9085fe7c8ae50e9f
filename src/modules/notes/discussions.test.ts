// Discussions on issues and merge requests: individual notes as discussions of their own, new
// threads and replies (an individual note turned into a thread), diff threads on a line of the
// merge request's diff, resolving notes and threads, and the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, unprotectDefaultBranch } from '../../../test/factories.ts';
import { AUTHOR } from '../../../test/fixtures/repository.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { DiscussionEntity, NoteEntity } from './notes.schemas.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let guest: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'disc-owner' });
  developer = await t.user({ username: 'disc-dev' });
  guest = await t.user({ username: 'disc-guest' });
  reporter = await t.user({ username: 'disc-reporter' });
  outsider = await t.user({ username: 'disc-outsider' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Threads', initialize_with_readme: true, visibility: 'private' } });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, guest.user.id, ACCESS.GUEST);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
});
after(() => t.close());

const issues = () => `/api/v4/projects/${project.id}/issues`;

describe('issue discussions', () => {
  let iid: number;
  before(async () => {
    const res = await t.post(issues(), { token: owner.token, body: { title: 'Talk' } });
    expectStatus(res, 201);
    iid = res.json().iid;
  });

  test('a note is a discussion of its own; a new thread and its replies', async () => {
    const note = await t.post(`${issues()}/${iid}/notes`, { token: developer.token, body: { body: 'single' } });
    expectStatus(note, 201);
    const created = await t.post(`${issues()}/${iid}/discussions`, { token: guest.token, body: { body: 'a thread' } });
    expectStatus(created, 201);
    expectEntity(created.json(), DiscussionEntity);
    const thread = created.json();
    assert.match(thread.id, /^[0-9a-f]{40}$/);
    assert.equal(thread.individual_note, false);
    assert.equal(thread.notes[0].type, 'DiscussionNote');
    assert.equal(thread.notes[0].resolvable, false);
    assert.equal('resolved' in thread.notes[0], false);

    const reply = await t.post(`${issues()}/${iid}/discussions/${thread.id}/notes`, { token: owner.token, body: { body: 'a reply' } });
    expectStatus(reply, 201);
    expectEntity(reply.json(), NoteEntity);
    assert.equal(reply.json().type, 'DiscussionNote');

    const list = await t.get(`${issues()}/${iid}/discussions`, { token: guest.token });
    expectStatus(list, 200);
    expectEntities(list.json(), DiscussionEntity);
    assert.equal(list.headers['x-total'], '2');
    const [single, threaded] = list.json();
    assert.deepEqual([single.individual_note, single.notes.length, single.notes[0].body], [true, 1, 'single']);
    assert.deepEqual(threaded.notes.map((n: { body: string }) => n.body), ['a thread', 'a reply']);

    // Replying to an individual note turns it into a thread.
    const turned = await t.post(`${issues()}/${iid}/discussions/${single.id}/notes`, { token: owner.token, body: { body: 'answer' } });
    expectStatus(turned, 201);
    const shown = await t.get(`${issues()}/${iid}/discussions/${single.id}`, { token: owner.token });
    expectEntity(shown.json(), DiscussionEntity);
    assert.equal(shown.json().individual_note, false);
    assert.deepEqual(shown.json().notes.map((n: { type: string }) => n.type), ['DiscussionNote', 'DiscussionNote']);

    const notes = await t.get(`${issues()}/${iid}/discussions/${single.id}/notes`, { token: owner.token });
    expectEntities(notes.json(), NoteEntity);
    assert.equal(notes.json().length, 2);

    const edited = await t.put(`${issues()}/${iid}/discussions/${single.id}/notes/${turned.json().id}`, { token: owner.token, body: { body: 'edited' } });
    expectStatus(edited, 200);
    expectEntity(edited.json(), NoteEntity);
    assert.equal(edited.json().body, 'edited');
    expectError(await t.put(`${issues()}/${iid}/discussions/${single.id}/notes/${turned.json().id}`, { token: owner.token, body: { resolved: true } }), 400, { message: '400 Bad request - Note is not resolvable' });
    expectError(await t.put(`${issues()}/${iid}/discussions/${single.id}/notes/${turned.json().id}`, { token: guest.token, body: { body: 'mine' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(`${issues()}/${iid}/discussions/${single.id}/notes/${turned.json().id}`, { token: owner.token, body: {} }), 400, {
      error: 'body, resolved are missing, exactly one parameter must be provided',
    });
    expectStatus(await t.del(`${issues()}/${iid}/discussions/${single.id}/notes/${turned.json().id}`, { token: owner.token }), 204);
  });

  test('refusals', async () => {
    expectError(await t.get(`${issues()}/${iid}/discussions/${'0'.repeat(40)}`, { token: owner.token }), 404, { message: '404 Discussion Not Found' });
    expectError(await t.get(`${issues()}/${iid}/discussions/${'0'.repeat(40)}/notes`, { token: owner.token }), 404, { message: '404 Notes Not Found' });
    expectError(await t.post(`${issues()}/${iid}/discussions/${'0'.repeat(40)}/notes`, { token: owner.token, body: { body: 'x' } }), 404, { message: '404 Discussion Not Found' });
    expectError(await t.get(`${issues()}/999/discussions`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`${issues()}/${iid}/discussions`, { token: outsider.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.get(`${issues()}/${iid}/discussions`), 401, { message: '401 Unauthorized' });
    expectError(await t.post(`${issues()}/${iid}/discussions`, { token: owner.token, body: { body: ' ' } }), 400, { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' });
    expectError(await t.post(`${issues()}/${iid}/discussions`, { token: owner.token, body: {} }), 400, { error: 'body is missing' });
    // A system note cannot be replied to.
    await t.put(`${issues()}/${iid}`, { token: owner.token, body: { state_event: 'close' } });
    const system = (await t.get(`${issues()}/${iid}/discussions?per_page=100`, { token: owner.token })).json().find((d: { notes: { system: boolean }[] }) => d.notes[0].system);
    expectError(await t.post(`${issues()}/${iid}/discussions/${system.id}/notes`, { token: owner.token, body: { body: 'x' } }), 400, { message: '400 Bad request - Discussion can not be replied to.' });
  });

  test('a locked issue takes threads from Reporters and up only', async () => {
    const res = await t.post(issues(), { token: owner.token, body: { title: 'Locked', discussion_locked: true } });
    expectError(await t.post(`${issues()}/${res.json().iid}/discussions`, { token: guest.token, body: { body: 'x' } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.post(`${issues()}/${res.json().iid}/discussions`, { token: developer.token, body: { body: 'x' } }), 201);
  });
});

describe('merge request discussions', () => {
  let iid: number;
  let refs: { base_sha: string; start_sha: string; head_sha: string };
  const mrs = () => `/api/v4/projects/${project.id}/merge_requests`;

  before(async () => {
    const dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
    await createCommit(dir, { branch: 'topic', startRevision: 'main', actions: [{ action: 'create', path: 'lib/a.txt', content: 'one\ntwo\nthree\n' }], message: 'Add a', author: AUTHOR });
    const res = await t.post(mrs(), { token: developer.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } });
    expectStatus(res, 201);
    iid = res.json().iid;
    refs = res.json().diff_refs;
  });

  test('a diff thread on an added line, replies on the same line, resolving', async () => {
    const position = { ...refs, position_type: 'text', new_path: 'lib/a.txt', new_line: 2 };
    const created = await t.post(`${mrs()}/${iid}/discussions`, { token: reporter.token, body: { body: 'why two?', position } });
    expectStatus(created, 201);
    expectEntity(created.json(), DiscussionEntity);
    const [first] = created.json().notes;
    assert.equal(first.type, 'DiffNote');
    assert.deepEqual(first.position, { ...refs, old_path: 'lib/a.txt', new_path: 'lib/a.txt', position_type: 'text', old_line: null, new_line: 2, line_range: null });
    assert.deepEqual([first.resolvable, first.resolved, first.resolved_by], [true, false, null]);

    const id = created.json().id;
    const reply = await t.post(`${mrs()}/${iid}/discussions/${id}/notes`, { token: developer.token, body: { body: 'because' } });
    expectStatus(reply, 201);
    assert.equal(reply.json().type, 'DiffNote');
    assert.deepEqual(reply.json().position, first.position);

    // The reporter wrote a note but may not resolve the thread; the note's author resolves the note.
    expectError(await t.put(`${mrs()}/${iid}/discussions/${id}`, { token: reporter.token, body: { resolved: true } }), 403, { message: '403 Forbidden' });
    const note = await t.put(`${mrs()}/${iid}/discussions/${id}/notes/${first.id}`, { token: reporter.token, body: { resolved: true } });
    expectStatus(note, 200);
    expectEntity(note.json(), NoteEntity);
    assert.equal(note.json().resolved, true);
    assert.equal(note.json().resolved_by.username, 'disc-reporter');

    const resolved = await t.put(`${mrs()}/${iid}/discussions/${id}`, { token: developer.token, body: { resolved: true } });
    expectStatus(resolved, 200);
    expectEntity(resolved.json(), DiscussionEntity);
    assert.deepEqual(resolved.json().notes.map((n: { resolved: boolean }) => n.resolved), [true, true]);
    assert.equal(resolved.json().notes[0].resolved_by.username, 'disc-reporter');
    const reopened = await t.put(`${mrs()}/${iid}/discussions/${id}`, { token: developer.token, body: { resolved: false } });
    assert.deepEqual(reopened.json().notes.map((n: { resolved: boolean; resolved_at: null }) => [n.resolved, n.resolved_at]), [[false, null], [false, null]]);
  });

  test('a position off the diff, or incomplete, is refused as the model refuses it', async () => {
    const off = await t.post(`${mrs()}/${iid}/discussions`, { token: developer.token, body: { body: 'x', position: { ...refs, position_type: 'text', new_path: 'lib/a.txt', new_line: 40 } } });
    expectError(off, 400, { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' });
    const stale = await t.post(`${mrs()}/${iid}/discussions`, { token: developer.token, body: { body: 'x', position: { ...refs, head_sha: refs.base_sha, position_type: 'text', new_path: 'lib/a.txt', new_line: 1 } } });
    expectError(stale, 400, { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' });
    const incomplete = await t.post(`${mrs()}/${iid}/discussions`, { token: developer.token, body: { body: '', position: { ...refs, position_type: 'text', new_path: 'lib/a.txt' } } });
    expectError(incomplete, 400, { message: '400 Bad request - Note {:note=>["can\'t be blank"], :line_code=>["can\'t be blank", "must be a valid line code"], :position=>["is incomplete"]}' });
    const missing = await t.post(`${mrs()}/${iid}/discussions`, { token: developer.token, body: { body: 'x', position: { position_type: 'text' } } });
    expectError(missing, 400, { error: 'position[base_sha] is missing, position[start_sha] is missing, position[head_sha] is missing' });
    const type = await t.post(`${mrs()}/${iid}/discussions`, { token: developer.token, body: { body: 'x', position: { ...refs, position_type: 'video' } } });
    expectError(type, 400, { error: 'position[position_type] does not have a valid value' });
  });

  test('a plain thread on a merge request is resolvable; a note of an individual discussion is not', async () => {
    const thread = await t.post(`${mrs()}/${iid}/discussions`, { token: owner.token, body: { body: 'general' } });
    assert.deepEqual([thread.json().notes[0].type, thread.json().notes[0].resolvable], ['DiscussionNote', true]);
    const single = await t.post(`${mrs()}/${iid}/notes`, { token: owner.token, body: { body: 'plain' } });
    const discussion = (await t.get(`${mrs()}/${iid}/discussions?per_page=100`, { token: owner.token })).json().find((d: { notes: { id: number }[] }) => d.notes[0].id === single.json().id);
    assert.equal(discussion.individual_note, true);
    expectError(await t.put(`${mrs()}/${iid}/discussions/${discussion.id}`, { token: owner.token, body: { resolved: true } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(`${mrs()}/${iid}/discussions/${discussion.id}/notes/${single.json().id}`, { token: owner.token, body: { resolved: true } }), 400, {
      message: '400 Bad request - Note is not resolvable',
    });
    expectError(await t.put(`${mrs()}/${iid}/discussions/${'f'.repeat(40)}`, { token: owner.token, body: { resolved: true } }), 404, { message: '404 Discussion Not Found' });
    expectError(await t.get(`${mrs()}/999/discussions`, { token: owner.token }), 404, { message: '404 Not found' });
  });
});
