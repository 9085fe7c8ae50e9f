// Comments and threads on project snippets: whole note entities (noteable_type Snippet, no iid),
// ordering, who reads, comments, changes and removes them, the platform's 404s for snippets the
// caller may not read, the activity event a comment records, and notes going with their snippet.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { DiscussionEntity, NoteEntity } from '../notes/notes.schemas.ts';

let t: TestApp;
let author: TestUser;
let keeper: TestUser;
let outsider: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  author = await t.user({ username: 'writer' });
  keeper = await t.user({ username: 'keeper' });
  outsider = await t.user({ username: 'outsider' });
  project = await createProject(t, { path: 'jotter', visibility: 'public', members: [[author.user.id, ACCESS.REPORTER]] });
  await addMember(t, project, keeper.user.id, ACCESS.MAINTAINER);
});
after(() => t.close());

const snippets = (p: { id: number } = project) => `/api/v4/projects/${p.id}/snippets`;

async function snippet(visibility = 'public', p: { id: number } = project, token = author.token): Promise<number> {
  const res = await t.post(snippets(p), { token, body: { title: 'Notes', file_name: 'n.txt', content: 'n', visibility } });
  expectStatus(res, 201);
  return res.json().id;
}

const basic = (u: TestUser) => ({ id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', avatar_url: null, web_url: `${t.deps.config.externalUrl}/${u.user.username}` });

describe('notes on project snippets', () => {
  test('created, read, listed in order, changed and removed, with the whole note entity', async () => {
    const id = await snippet();
    const url = `${snippets()}/${id}/notes`;
    const created = await t.post(url, { token: outsider.token, body: { body: 'Looks right' } });
    expectStatus(created, 201);
    const note = created.json();
    expectEntity(note, NoteEntity);
    assert.deepEqual(note, {
      id: note.id,
      type: null,
      body: 'Looks right',
      attachment: null,
      author: basic(outsider),
      created_at: note.created_at,
      updated_at: note.updated_at,
      system: false,
      noteable_id: id,
      noteable_type: 'Snippet',
      resolvable: false,
      resolved_at: null,
      confidential: false,
      noteable_iid: null,
      commands_changes: {},
    });
    const second = (await t.post(url, { token: author.token, body: { body: 'Thanks' } })).json();
    assert.deepEqual(await t.get(`${url}/${note.id}`, { token: author.token }).then((r) => r.json()), note);

    const newestFirst = await t.get(url, { token: outsider.token });
    expectStatus(newestFirst, 200);
    expectEntities(newestFirst.json(), NoteEntity);
    assert.deepEqual(newestFirst.json().map((n: { id: number }) => n.id), [second.id, note.id]);
    assert.equal(newestFirst.headers['x-total'], '2');
    const oldestFirst = await t.get(url, { token: outsider.token, query: { sort: 'asc', order_by: 'updated_at' } });
    assert.deepEqual(oldestFirst.json().map((n: { id: number }) => n.id), [note.id, second.id]);
    expectError(await t.get(url, { token: outsider.token, query: { order_by: 'title' } }), 400, { error: 'order_by does not have a valid value' });

    // Its author changes it; a Maintainer may too; someone else may not.
    const edited = await t.put(`${url}/${note.id}`, { token: outsider.token, body: { body: 'Looks right to me' } });
    expectStatus(edited, 200);
    expectEntity(edited.json(), NoteEntity);
    assert.equal(edited.json().body, 'Looks right to me');
    expectError(await t.put(`${url}/${second.id}`, { token: outsider.token, body: { body: 'mine now' } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.put(`${url}/${second.id}`, { token: keeper.token, body: { body: 'kept' } }), 200);
    expectError(await t.del(`${url}/${second.id}`, { token: outsider.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(`${url}/${second.id}`, { token: keeper.token }), 204);
    expectError(await t.get(`${url}/${second.id}`, { token: author.token }), 404, { message: '404 Not found' });
    assert.deepEqual((await t.get(url, { token: author.token })).json().map((n: { id: number }) => n.id), [note.id]);
  });

  test('refusals: signing in, a blank text, snippets the caller may not read, an archived project', async () => {
    const id = await snippet();
    const url = `${snippets()}/${id}/notes`;
    expectError(await t.get(url), 401, { message: '401 Unauthorized' });
    expectError(await t.post(url, { token: outsider.token, body: { body: '  ' } }), 400, { message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    expectError(await t.post(url, { token: outsider.token, body: {} }), 400, { error: 'body is missing' });
    expectError(await t.get(`${snippets()}/999999/notes`, { token: author.token }), 404, { message: '404 Not found' });
    // A private snippet is absent for whoever may not read it, as is another project's snippet.
    const hidden = await snippet('private');
    expectError(await t.get(`${snippets()}/${hidden}/notes`, { token: outsider.token }), 404, { message: '404 Not found' });
    expectError(await t.post(`${snippets()}/${hidden}/notes`, { token: outsider.token, body: { body: 'hi' } }), 404, { message: '404 Not found' });
    expectStatus(await t.get(`${snippets()}/${hidden}/notes`, { token: keeper.token }), 200);
    const elsewhere = await createProject(t, { visibility: 'public' });
    expectError(await t.get(`${snippets(elsewhere)}/${id}/notes`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    // A snippets feature closed to members hides them.
    expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { snippets_access_level: 'private' } }), 200);
    try {
      expectError(await t.get(url, { token: outsider.token }), 404, { message: '404 Not found' });
      expectStatus(await t.get(url, { token: author.token }), 200);
    } finally {
      await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { snippets_access_level: 'enabled' } });
    }
    const archived = await createProject(t, { visibility: 'public', members: [[author.user.id, ACCESS.MAINTAINER]] });
    const kept = await snippet('public', archived);
    await t.deps.db.updateTable('projects').set({ archived: true }).where('id', '=', archived.id).execute();
    expectStatus(await t.get(`${snippets(archived)}/${kept}/notes`, { token: author.token }), 200);
    expectError(await t.post(`${snippets(archived)}/${kept}/notes`, { token: author.token, body: { body: 'late' } }), 403, { message: '403 Forbidden' });
  });

  test('a comment records a "commented on" event and touches the snippet; notes go with their snippet', async () => {
    const id = await snippet();
    const before = (await t.get(`${snippets()}/${id}`, { token: author.token })).json().updated_at;
    const note = (await t.post(`${snippets()}/${id}/notes`, { token: outsider.token, body: { body: 'Event' } })).json();
    const events = (await t.get(`/api/v4/projects/${project.id}/events`, { token: outsider.token })).json();
    const event = events.find((e: { target_id: number }) => e.target_id === note.id);
    assert.ok(event, 'the comment is an event of the project');
    assert.deepEqual([event.action_name, event.target_type, event.target_title, event.note.noteable_type, event.note.noteable_id], ['commented on', 'Note', null, 'Snippet', id]);
    const after = (await t.get(`${snippets()}/${id}`, { token: author.token })).json().updated_at;
    assert.ok(after >= before);
    expectStatus(await t.del(`${snippets()}/${id}`, { token: author.token }), 204);
    const left = await t.deps.db.selectFrom('notes').select('id').where('noteable_type', '=', 'Snippet').where('noteable_id', '=', id).execute();
    assert.deepEqual(left, []);
  });
});

describe('discussions on project snippets', () => {
  test('a thread started, replied to, read and listed; an individual note is a discussion of its own; none resolves', async () => {
    const id = await snippet();
    const base = `${snippets()}/${id}/discussions`;
    const single = (await t.post(`${snippets()}/${id}/notes`, { token: author.token, body: { body: 'Alone' } })).json();
    const started = await t.post(base, { token: outsider.token, body: { body: 'Question' } });
    expectStatus(started, 201);
    const thread = started.json();
    expectEntity(thread, DiscussionEntity);
    assert.equal(thread.individual_note, false);
    assert.deepEqual([thread.notes[0].type, thread.notes[0].noteable_type, thread.notes[0].noteable_iid], ['DiscussionNote', 'Snippet', null]);
    const reply = await t.post(`${base}/${thread.id}/notes`, { token: author.token, body: { body: 'Answer' } });
    expectStatus(reply, 201);
    expectEntity(reply.json(), NoteEntity);

    const listed = await t.get(base, { token: outsider.token });
    expectStatus(listed, 200);
    expectEntities(listed.json(), DiscussionEntity);
    assert.deepEqual(
      listed.json().map((d: { individual_note: boolean; notes: { body: string }[] }) => [d.individual_note, d.notes.map((n) => n.body)]),
      [
        [true, ['Alone']],
        [false, ['Question', 'Answer']],
      ],
    );
    assert.equal(listed.json()[0].notes[0].id, single.id);
    const one = await t.get(`${base}/${thread.id}`, { token: outsider.token });
    assert.deepEqual(one.json().notes.map((n: { body: string }) => n.body), ['Question', 'Answer']);
    expectError(await t.get(`${base}/${'0'.repeat(40)}`, { token: outsider.token }), 404, { message: '404 Discussion Not Found' });
    expectError(await t.put(`${base}/${thread.id}/notes/${reply.json().id}`, { token: author.token, body: { resolved: true } }), 400, { message: '400 Bad request - Note is not resolvable' });
    const edited = await t.put(`${base}/${thread.id}/notes/${reply.json().id}`, { token: author.token, body: { body: 'Answered' } });
    assert.equal(edited.json().body, 'Answered');
    expectStatus(await t.del(`${base}/${thread.id}/notes/${reply.json().id}`, { token: author.token }), 204);
  });
});
