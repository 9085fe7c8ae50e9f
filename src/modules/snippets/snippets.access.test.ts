// Who may call each snippet route. Project snippets, on private, internal and public projects
// (each snippet as visible as its project, written by an administrator): readers of the project
// read them, Reporters and up create, Maintainers (not being the author) change and remove, the
// user agent detail is for administrators; a caller who sees the project without the role gets
// 403, one who does not 404, an anonymous caller 401 where signing in is required. Personal
// snippets: the lists for every signed-in user, one public snippet for anyone. Notes on project
// snippets: signed-in readers list them and comment, Maintainers change and remove another's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, type Role, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { DiscussionEntity, NoteEntity } from '../notes/notes.schemas.ts';
import { SnippetEntity, UserAgentDetailEntity } from './snippets.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/snippets`;
const errors = refusals('Project');

/** A new snippet of the call's project, as visible as the project, written by root. */
async function fresh(c: MatrixCall): Promise<number> {
  const res = await t.post(base(c), { token: ROOT_TOKEN, body: { title: 'matrix', file_name: 'm.txt', content: 'm', visibility: c.visibility } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const readers = expectation({ auth: 'optional', success: 200 });

test('GET project snippets, one, its raw content and a file', async () => {
  await runMatrix(world, { expect: readers, errors, call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), SnippetEntity) });
  await runMatrix(world, {
    expect: readers,
    errors,
    call: async (c) => t.get(`${base(c)}/${await fresh(c)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), SnippetEntity),
  });
  await runMatrix(world, {
    expect: readers,
    errors,
    call: async (c) => t.get(`${base(c)}/${await fresh(c)}/raw`, { token: c.caller.token }),
    verify: (res) => assert.equal(res.body, 'm'),
  });
  await runMatrix(world, {
    expect: readers,
    errors,
    call: async (c) => t.get(`${base(c)}/${await fresh(c)}/files/main/m.txt/raw`, { token: c.caller.token }),
    verify: (res) => assert.equal(res.body, 'm'),
  });
});

test('POST project snippets: Reporters and up', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.REPORTER }),
    errors,
    call: (c) => t.post(base(c), { token: c.caller.token, body: { title: `by ${c.role}`, files: [{ file_path: 'a.txt', content: 'a' }], visibility: 'private' } }),
    verify: (res, c) => {
      expectEntity(res.json(), SnippetEntity);
      assert.equal(res.json().title, `by ${c.role}`);
    },
  });
});

test('PUT and DELETE another\'s project snippet: Maintainers and up', async () => {
  const maintainers = expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER });
  await runMatrix(world, {
    expect: maintainers,
    errors,
    call: async (c) => t.put(`${base(c)}/${await fresh(c)}`, { token: c.caller.token, body: { title: 'changed' } }),
    verify: (res) => expectEntity(res.json(), SnippetEntity),
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.MAINTAINER }),
    errors,
    call: async (c) => t.del(`${base(c)}/${await fresh(c)}`, { token: c.caller.token }),
  });
});

test('GET a project snippet\'s user agent detail: administrators', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200, minLevel: Number.POSITIVE_INFINITY }),
    errors,
    call: async (c) => t.get(`${base(c)}/${await fresh(c)}/user_agent_detail`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), UserAgentDetailEntity),
  });
});

test('personal snippet lists: every signed-in user; one public snippet: anyone', async () => {
  const created = await t.post('/api/v4/snippets', { token: ROOT_TOKEN, body: { title: 'open', file_name: 'o', content: 'o', visibility: 'public' } });
  assert.equal(created.statusCode, 201, created.body);
  for (const [role, caller] of Object.entries(world.callers) as [Role, { token?: string }][]) {
    for (const list of ['/api/v4/snippets', '/api/v4/snippets/public', '/api/v4/snippets/all']) {
      const res = await t.get(list, { token: caller.token });
      const want = role === 'anonymous' ? 401 : role === 'blocked' ? 403 : 200;
      assert.equal(res.statusCode, want, `${role} ${list}: ${res.body}`);
      if (want === 200) expectEntities(res.json(), SnippetEntity);
    }
    const one = await t.get(`/api/v4/snippets/${created.json().id}`, { token: caller.token });
    assert.equal(one.statusCode, role === 'blocked' ? 403 : 200, `${role}: ${one.body}`);
    const create = await t.post('/api/v4/snippets', { token: caller.token, body: { title: 'mine', file_name: 'm', content: 'm' } });
    const wantCreate = role === 'anonymous' ? 401 : role === 'blocked' || role === 'external' ? 403 : 201;
    assert.equal(create.statusCode, wantCreate, `${role} POST: ${create.body}`);
  }
});

/** A root comment on a new snippet of the call's project: [snippet id, note id]. */
async function freshNote(c: MatrixCall): Promise<[number, number]> {
  const id = await fresh(c);
  const res = await t.post(`${base(c)}/${id}/notes`, { token: ROOT_TOKEN, body: { body: 'by root' } });
  assert.equal(res.statusCode, 201, res.body);
  return [id, res.json().id];
}

test('project snippet notes and discussions: readers list and comment; Maintainers change and remove another\'s', async () => {
  const readersSignedIn = expectation({ auth: 'required', success: 200 });
  await runMatrix(world, {
    expect: readersSignedIn,
    errors,
    call: async (c) => t.get(`${base(c)}/${(await freshNote(c))[0]}/notes`, { token: c.caller.token }),
    verify: (res) => {
      expectEntities(res.json(), NoteEntity);
      assert.equal(res.json().length, 1);
    },
  });
  await runMatrix(world, {
    expect: readersSignedIn,
    errors,
    call: async (c) => t.get(`${base(c)}/${(await freshNote(c))[0]}/discussions`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), DiscussionEntity),
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201 }),
    errors,
    call: async (c) => t.post(`${base(c)}/${await fresh(c)}/notes`, { token: c.caller.token, body: { body: `from ${c.role}` } }),
    verify: (res, c) => {
      expectEntity(res.json(), NoteEntity);
      assert.deepEqual([res.json().body, res.json().noteable_type], [`from ${c.role}`, 'Snippet']);
    },
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201 }),
    errors,
    call: async (c) => t.post(`${base(c)}/${await fresh(c)}/discussions`, { token: c.caller.token, body: { body: `thread of ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), DiscussionEntity),
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER }),
    errors,
    call: async (c) => {
      const [id, noteId] = await freshNote(c);
      return t.put(`${base(c)}/${id}/notes/${noteId}`, { token: c.caller.token, body: { body: 'edited' } });
    },
    verify: (res) => expectEntity(res.json(), NoteEntity),
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.MAINTAINER }),
    errors,
    call: async (c) => {
      const [id, noteId] = await freshNote(c);
      return t.del(`${base(c)}/${id}/notes/${noteId}`, { token: c.caller.token });
    },
  });
});
