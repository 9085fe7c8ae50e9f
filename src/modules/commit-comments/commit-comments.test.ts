// Comments on commits: plain and line comments (added and removed lines, lines the diff does not
// have), the list oldest first and paginated, revisions that name no commit, the platform's
// parameter and validation errors, and the `commented` event that carries its note.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createProject, personalNamespace } from '../../../test/factories.ts';
import { AUTHOR, giveRepository } from '../../../test/fixtures/repository.ts';
import { BASE_URL, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { EventEntity } from '../events/events.schemas.ts';
import { CommitNoteEntity } from '../notes/notes.schemas.ts';

let t: TestApp;
let owner: TestUser;
let project: ProjectRow;
/** README '# r' → three lines (adds lines 2 and 3) → line 2 removed again. */
let added: string;
let removed: string;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'cora', name: 'Cora Commenter' });
  project = await createProject(t, { path: 'commented', visibility: 'public', namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id });
  const { dir } = await giveRepository(t, project);
  const commit = async (content: string, message: string) =>
    (await createCommit(dir, { branch: 'main', actions: [{ action: 'update', path: 'README.md', content }], message, author: AUTHOR })).id;
  added = await commit('# r\nline two\nline three\n', 'Add two lines\n\nWith a body.');
  removed = await commit('# r\nline three\n', 'Remove line two');
});
after(() => t.close());

const url = (sha: string, id: number | string = project.id) => `/api/v4/projects/${id}/repository/commits/${sha}/comments`;
const author = () => ({
  id: owner.user.id,
  username: 'cora',
  name: 'Cora Commenter',
  state: 'active',
  avatar_url: null,
  web_url: `${BASE_URL}/cora`,
});

test('a plain comment, by sha or by branch name, then listed oldest first', async () => {
  const res = await t.post(url(added), { token: owner.token, body: { note: 'Nice commit' } });
  expectStatus(res, 201);
  expectEntity(res.json(), CommitNoteEntity);
  const first = res.json();
  assert.deepEqual({ ...first, created_at: undefined }, { note: 'Nice commit', path: null, line: null, line_type: null, author: author(), created_at: undefined });
  // `main` names `removed`, a commit of its own.
  expectStatus(await t.post(url('main'), { token: owner.token, body: { note: 'On main' } }), 201);
  const second = await t.post(url(added), { token: owner.token, body: { note: 'Second' } });
  const list = await t.get(url(added));
  expectStatus(list, 200);
  expectEntities(list.json(), CommitNoteEntity);
  assert.deepEqual(
    list.json().map((n: { note: string }) => n.note),
    ['Nice commit', 'Second'],
  );
  assert.equal(list.headers['x-total'], '2');
  assert.deepEqual(list.json()[1], second.json());
  const onMain = await t.get(url(removed), { query: { per_page: '1' } });
  assert.deepEqual(
    onMain.json().map((n: { note: string }) => n.note),
    ['On main'],
  );
});

test('a comment on an added line, a removed line, and a line the diff does not have', async () => {
  const onAdded = await t.post(url(added), { token: owner.token, body: { note: 'Line 3', path: 'README.md', line: 3 } });
  expectStatus(onAdded, 201);
  expectEntity(onAdded.json(), CommitNoteEntity);
  assert.deepEqual([onAdded.json().path, onAdded.json().line, onAdded.json().line_type], ['README.md', 3, 'new']);
  // The removed line 2 sits at new position 2; the entity names its old position (also 2).
  const onRemoved = await t.post(url(removed), { token: owner.token, body: { note: 'Gone', path: 'README.md', line: '2', line_type: 'old' } });
  assert.deepEqual([onRemoved.json().path, onRemoved.json().line, onRemoved.json().line_type], ['README.md', 2, 'old']);
  // A context line, an unknown path: plain comments.
  for (const body of [
    { note: 'Context', path: 'README.md', line: 1, line_type: 'new' },
    { note: 'Elsewhere', path: 'missing.txt', line: 1 },
  ]) {
    const res = await t.post(url(added), { token: owner.token, body });
    expectStatus(res, 201);
    assert.deepEqual([res.json().path, res.json().line, res.json().line_type], [null, null, null]);
  }
});

test('errors: unknown revisions, missing and invalid parameters, a blank note', async () => {
  for (const sha of ['0'.repeat(40), 'no-such-branch', '-rf']) {
    expectError(await t.get(url(sha)), 404, { message: '404 Commit Not Found' });
    expectError(await t.post(url(sha), { token: owner.token, body: { note: 'x' } }), 404, { message: '404 Commit Not Found' });
  }
  expectError(await t.get(url(added, 999999)), 404, { message: '404 Project Not Found' });
  expectError(await t.post(url(added), { token: owner.token, body: {} }), 400, { error: 'note is missing' });
  expectError(await t.post(url(added), { token: owner.token, body: { note: 'x', path: 'README.md' } }), 400, { error: 'line is missing' });
  expectError(await t.post(url(added), { token: owner.token, body: { note: 'x', path: 'README.md', line: 'two' } }), 400, { error: 'line is invalid' });
  expectError(await t.post(url(added), { token: owner.token, body: { note: 'x', path: 'README.md', line: 2, line_type: 'both' } }), 400, {
    error: 'line_type does not have a valid value',
  });
  expectError(await t.post(url(added), { token: owner.token, body: { note: '  ' } }), 400, { message: `Failed to save note {:note=>["can't be blank"]}` });
  expectError(await t.post(url(added), { body: { note: 'x' } }), 401, { message: '401 Unauthorized' });
});

test('a comment records a commented event carrying its note; the note entity of a commit note', async () => {
  const res = await t.post(url(added), { token: owner.token, body: { note: 'For the feed' } });
  const events = await t.get(`/api/v4/projects/${project.id}/events`, { query: { target_type: 'note', per_page: '1' } });
  expectStatus(events, 200);
  expectEntities(events.json(), EventEntity);
  const [event] = events.json();
  assert.equal(event.action_name, 'commented on');
  assert.equal(event.target_type, 'Note');
  assert.equal(event.target_title, null, 'a note has no title');
  assert.equal(event.note.body, 'For the feed');
  assert.deepEqual(
    [event.note.noteable_type, event.note.noteable_id, event.note.noteable_iid, event.note.id, event.target_id],
    ['Commit', null, null, event.target_id, event.note.id],
  );
  assert.equal(event.note.created_at, res.json().created_at);
  // Events of other kinds carry no note key.
  const created = (await t.get(`/api/v4/projects/${project.id}/events`, { query: { target_type: 'project' } })).json();
  for (const e of created) assert.equal('note' in e, false);
});

test('a guest of a private project sees no commit-comment events; an archived project takes no comments', async () => {
  const guest = await t.user({ username: 'gus' });
  const reporter = await t.user({ username: 'rita' });
  const members: [number, number][] = [
    [guest.user.id, ACCESS.GUEST],
    [reporter.user.id, ACCESS.REPORTER],
  ];
  const hidden = await createProject(t, { path: 'hidden', visibility: 'private', namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id, members });
  const { head } = await giveRepository(t, hidden);
  expectStatus(await t.post(url(head, hidden.id), { token: owner.token, body: { note: 'Secret' } }), 201);
  const noteEvents = async (token: string) => (await t.get(`/api/v4/projects/${hidden.id}/events`, { token, query: { target_type: 'note' } })).json();
  assert.deepEqual(await noteEvents(guest.token), []);
  assert.equal((await noteEvents(reporter.token))[0].note.body, 'Secret');

  const archived = await createProject(t, { path: 'frozen', visibility: 'public', archived: true, namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id });
  const frozen = await giveRepository(t, archived);
  expectError(await t.post(url(frozen.head, archived.id), { token: owner.token, body: { note: 'x' } }), 403, { message: '403 Forbidden' });
  expectStatus(await t.get(url(frozen.head, archived.id)), 200);
});
