// A real client against a listening server: an alert assigned through GraphQL (as the platform's
// web page does it), and @gitbeaker/rest reading the assignee's to-do (TodoLists) and marking it done.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { AlertTodoEntity } from '../todo-list/todo-list.schemas.ts';
import { addMember } from '../../../test/factories.ts';
import { ACCESS } from '../../core/access/levels.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: TodoLists shows the to-do of an alert assigned through GraphQL, and marks it done', async () => {
  const root = new Gitlab({ host, token: ROOT_TOKEN });
  const responder = await t.user({ username: 'beaker-responder' });
  const project = await root.Projects.create({ name: 'beaker-alerts' });
  const row = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
  await addMember(t, row, responder.user.id, ACCESS.DEVELOPER);

  const integration = await (await fetch(`${host}/api/v4/projects/${project.id}/alert_management_http_integrations`, {
    method: 'POST',
    headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Probe' }),
  })).json() as { url: string; token: string };
  const received = await fetch(integration.url, { method: 'POST', headers: { authorization: `Bearer ${integration.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Probe failing' }) });
  assert.equal(received.status, 200);
  const [{ iid }] = (await received.json()) as { iid: number }[];

  const query = 'mutation($input: AlertSetAssigneesInput!) { alertSetAssignees(input: $input) { errors } }';
  const assigned = await fetch(`${host}/api/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ROOT_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: { input: { projectPath: project.path_with_namespace, iid: String(iid), assigneeUsernames: ['beaker-responder'] } } }),
  });
  assert.deepEqual(await assigned.json(), { data: { alertSetAssignees: { errors: [] } } });

  const api = new Gitlab({ host, token: responder.token });
  const todos = await api.TodoLists.all({ type: 'AlertManagement::Alert' });
  expectEntities(todos, AlertTodoEntity);
  assert.equal(todos.length, 1);
  assert.deepEqual([todos[0].action_name, todos[0].target_type, todos[0].target, todos[0].state], ['assigned', 'AlertManagement::Alert', { iid, title: 'Probe failing' }, 'pending']);
  assert.equal(todos[0].target_url, `${host}/${project.path_with_namespace}/-/alert_management/${iid}/details`);

  const done = await api.TodoLists.done({ todoId: todos[0].id as number });
  expectEntity(done, AlertTodoEntity);
  assert.equal(done.state, 'done');
  assert.deepEqual(await api.TodoLists.all(), []);
});
