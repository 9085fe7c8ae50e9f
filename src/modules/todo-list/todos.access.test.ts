// Who may call each to-do route: the list and marking done are every signed-in user's own
// (anonymous callers 401, blocked accounts 403, whatever the project); marking an issue or a merge
// request as a to-do needs a reader of it who may read the project's merge requests, so a guest
// of a private project gets "404 Issues Not Found" for an issue and the record-not-found 404 for a
// merge request it may not read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixCall, type MatrixWorld, VISIBILITIES, buildMatrixWorld, canSee, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { IssueTodoEntity, MergeRequestTodoEntity, TodoEntity } from './todo-list.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const issueOf = new Map<number, { id: number; iid: number }>();
const mrOf = new Map<number, number>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const issue = await t.post(`/api/v4/projects/${project.id}/issues`, { token: ROOT_TOKEN, body: { title: 'An issue' } });
    issueOf.set(project.id, issue.json());
    const { dir } = await giveRepository(t, project);
    await commitOn(dir, 'topic', { from: 'main' });
    const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'A change', source_branch: 'topic', target_branch: 'main' } });
    assert.equal(mr.statusCode, 201, mr.body);
    mrOf.set(project.id, mr.json().iid);
  }
});
after(() => t.close());

/** Routes of the caller's own list: every signed-in account that is not blocked. */
const signedIn = (success: number): Expectation => (role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : success);
const ownErrors = { 401: { message: '401 Unauthorized' } };

/** A pending to-do of the caller on the project's issue, written directly (anonymous callers have none). */
async function todoOf(c: MatrixCall): Promise<number> {
  if (!c.caller.user) return 1;
  const at = new Date().toISOString();
  const row = await t.deps.db
    .insertInto('todos')
    .values({ user_id: c.caller.user.id, project_id: c.project.id, target_type: 'Issue', target_id: issueOf.get(c.project.id)!.id, author_id: 1, action: 'assigned', created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

test('GET /todos', async () => {
  await runMatrix(world, {
    expect: signedIn(200),
    errors: ownErrors,
    call: async (c) => {
      await todoOf(c);
      return t.get('/api/v4/todos', { token: c.caller.token });
    },
    verify: (res, c) => {
      expectEntities(res.json(), TodoEntity);
      // A to-do on a project the caller may not read is left out.
      const shown = res.json().some((todo: { project: { id: number } }) => todo.project.id === c.project.id);
      assert.equal(shown, canSee(c.role, c.visibility));
    },
  });
});

test('POST /todos/:id/mark_as_done (the caller’s own)', async () => {
  await runMatrix(world, {
    expect: signedIn(201),
    errors: ownErrors,
    call: async (c) => t.post(`/api/v4/todos/${await todoOf(c)}/mark_as_done`, { token: c.caller.token }),
    verify: (res) => {
      expectEntity(res.json(), IssueTodoEntity);
      assert.equal(res.json().state, 'done');
    },
  });
});

test('POST /todos/mark_as_done', async () => {
  await runMatrix(world, {
    expect: signedIn(204),
    errors: ownErrors,
    call: async (c) => {
      await todoOf(c);
      return t.post('/api/v4/todos/mark_as_done', { token: c.caller.token });
    },
    verify: (res) => assert.equal(res.body, ''),
  });
});

const markers = expectation({ auth: 'required', success: 201 });

/** The guest's answers, apart: what a guest of a private project may not read is not the project's 404. */
async function asGuest(url: (projectId: number) => string, privateRefusal: unknown): Promise<void> {
  for (const visibility of VISIBILITIES) {
    const res = await t.post(url(world.projects[visibility].id), { token: world.callers.guest.token });
    if (visibility === 'private') assert.deepEqual([res.statusCode, res.json()], [404, privateRefusal]);
    else assert.equal(res.statusCode, 201, res.body);
  }
}

test('POST /projects/:id/issues/:issue_iid/todo', async () => {
  const url = (projectId: number) => `/api/v4/projects/${projectId}/issues/${issueOf.get(projectId)!.iid}/todo`;
  await runMatrix(world, {
    except: ['guest'],
    expect: markers,
    errors: refusals('Project'),
    call: (c) => t.post(url(c.project.id), { token: c.caller.token }),
    verify: (res) => {
      expectEntity(res.json(), IssueTodoEntity);
      assert.equal(res.json().action_name, 'marked');
    },
  });
  await asGuest(url, { message: '404 Issues Not Found' });
});

test('POST /projects/:id/merge_requests/:merge_request_iid/todo', async () => {
  const url = (projectId: number) => `/api/v4/projects/${projectId}/merge_requests/${mrOf.get(projectId)}/todo`;
  await runMatrix(world, {
    except: ['guest'],
    expect: markers,
    errors: refusals('Project'),
    call: (c) => t.post(url(c.project.id), { token: c.caller.token }),
    verify: (res) => {
      expectEntity(res.json(), MergeRequestTodoEntity);
      assert.equal(res.json().action_name, 'marked');
    },
  });
  await asGuest(url, { message: '404 Not found' });
});
