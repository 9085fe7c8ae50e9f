// Who may call each issue route, on private, internal and public projects: every reader of the
// project reads its issues (anonymous callers too, where the project is public); any signed-in
// reader opens issues and comments; Reporters and up edit others' issues; owners delete them.
// Projects the caller may not see are 404s, blocked accounts 403s.
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { IssueEntity } from './issues.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const issueOf = new Map<number, number>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) issueOf.set(project.id, (await fresh(project.id)).iid);
});
after(() => t.close());

async function fresh(projectId: number): Promise<{ iid: number }> {
  return (await t.post(`/api/v4/projects/${projectId}/issues`, { token: ROOT_TOKEN, body: { title: 'An issue' } })).json();
}

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/issues`;
const readers = expectation({ auth: 'optional', success: 200 });

test('GET issues', async () => {
  await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), IssueEntity) });
});

test('GET issues/:issue_iid', async () => {
  await runMatrix(world, {
    expect: readers,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${issueOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), IssueEntity),
  });
});

test('POST issues', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201 }),
    errors: refusals('Project'),
    call: (c) => t.post(base(c), { token: c.caller.token, body: { title: `by ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), IssueEntity),
  });
});

test('PUT issues/:issue_iid (an issue of someone else)', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.REPORTER }),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/${issueOf.get(c.project.id)}`, { token: c.caller.token, body: { description: `edited by ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), IssueEntity),
  });
});

test('DELETE issues/:issue_iid', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.OWNER }),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${(await fresh(c.project.id)).iid}`, { token: c.caller.token }),
  });
});

test('GET and POST issues/:issue_iid/notes', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200 }),
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${issueOf.get(c.project.id)}/notes`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), NoteEntity),
  });
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 201 }),
    errors: refusals('Project'),
    call: (c) => t.post(`${base(c)}/${issueOf.get(c.project.id)}/notes`, { token: c.caller.token, body: { body: `from ${c.role}` } }),
    verify: (res) => expectEntity(res.json(), NoteEntity),
  });
});

test('POST issues/:issue_iid/subscribe and unsubscribe', async () => {
  // An issue of someone outside the matrix, so that no caller follows it as a participant.
  const stranger = await t.user({ username: 'matrix-issue-author' });
  const freshIssue = async (c: MatrixCall) => {
    const { iid } = await fresh(c.project.id);
    await t.deps.db.updateTable('issues').set({ author_id: stranger.user.id }).where('project_id', '=', c.project.id).where('iid', '=', iid).execute();
    return iid;
  };
  const followers = expectation({ auth: 'required', success: 201 });
  await runMatrix(world, {
    expect: followers,
    errors: refusals('Project'),
    call: async (c) => t.post(`${base(c)}/${await freshIssue(c)}/subscribe`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), IssueEntity),
  });
  await runMatrix(world, {
    expect: followers,
    errors: refusals('Project'),
    call: async (c) => {
      const iid = await freshIssue(c);
      await t.post(`${base(c)}/${iid}/subscribe`, { token: c.caller.token });
      return t.post(`${base(c)}/${iid}/unsubscribe`, { token: c.caller.token });
    },
    verify: (res) => expectEntity(res.json(), IssueEntity),
  });
});
