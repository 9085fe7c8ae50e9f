// What people do with an alert: updateAlertStatus, alertSetAssignees and alertTodoCreate as
// clients send them (whole payloads, refusals in `errors`, the platform's error for callers below
// Developer), the system notes each change leaves on the alert, the to-dos it makes as GET /todos
// shows them (strict entity), and the REST extension PUT …/alert_management_alerts/:alert_iid.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, ROLES, ROLE_LEVEL, VISIBILITIES, buildMatrixWorld, canSee } from '../../../test/access-matrix.ts';
import { addMember, createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { RESOURCE_NOT_AVAILABLE } from '../../graphql/context.ts';
import { AlertTodoEntity } from '../todo-list/todo-list.schemas.ts';
import { AlertEntity } from './alert-management.schemas.ts';

let t: TestApp;
let developer: TestUser;
let maintainer: TestUser;
let reporter: TestUser;
let p: ProjectRow;

before(async () => {
  t = await createTestApp();
  developer = await t.user({ username: 'aa-developer' });
  maintainer = await t.user({ username: 'aa-maintainer' });
  reporter = await t.user({ username: 'aa-reporter' });
  p = await createProject(t, { path: 'alerted' });
  await addMember(t, p, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, p, maintainer.user.id, ACCESS.MAINTAINER);
  await addMember(t, p, reporter.user.id, ACCESS.REPORTER);
});
after(() => t.close());

/** A new alert of the project, received at a new integration's address; its iid. */
async function receive(project: ProjectRow, payload: Record<string, unknown> = { title: 'Disk full' }): Promise<number> {
  const made = await t.post(`/api/v4/projects/${project.id}/alert_management_http_integrations`, { token: ROOT_TOKEN, body: { name: 'Grafana', active: true } });
  assert.equal(made.statusCode, 201, made.body);
  const { url, token } = made.json();
  const res = await t.request('POST', new URL(url).pathname, { headers: { authorization: `Bearer ${token}` }, body: payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json()[0].iid;
}

async function gql(query: string, variables: Record<string, unknown>, token?: string) {
  const res = await t.post('/api/graphql', { token, body: { query, variables } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { data?: Record<string, any>; errors?: { message: string }[] };
}

const ALERT = 'iid status endedAt assignees { nodes { username } } todos { nodes { action state body targetType author { username } } } notes { nodes { body system author { username } } }';
const STATUS = `mutation($input: UpdateAlertStatusInput!) { updateAlertStatus(input: $input) { clientMutationId errors issue { iid } todo { action } alert { ${ALERT} } } }`;
const ASSIGN = `mutation($input: AlertSetAssigneesInput!) { alertSetAssignees(input: $input) { errors issue { iid } todo { action } alert { ${ALERT} } } }`;
const TODO = `mutation($input: AlertTodoCreateInput!) { alertTodoCreate(input: $input) { errors issue { iid } todo { action state body targetType author { username } } alert { iid } } }`;

const input = (iid: number, rest: Record<string, unknown> = {}) => ({ input: { projectPath: p.full_path, iid: String(iid), ...rest } });

describe('a new alert', () => {
  test('the alert bot logs it, as a system note of the alert', async () => {
    const iid = await receive(p, { title: 'CPU', monitoring_tool: 'Grafana' });
    const body = await gql(`query($p: ID!, $iid: String) { project(fullPath: $p) { alertManagementAlerts(iid: $iid) { nodes { ${ALERT} } } } }`, { p: p.full_path, iid: String(iid) }, developer.token);
    assert.deepEqual(body, {
      data: {
        project: {
          alertManagementAlerts: {
            nodes: [{ iid: String(iid), status: 'TRIGGERED', endedAt: null, assignees: { nodes: [] }, todos: { nodes: [] }, notes: { nodes: [{ body: 'logged an alert from **Grafana**', system: true, author: { username: 'alert-bot' } }] } }],
          },
        },
      },
    });
    const bot = await t.deps.db.selectFrom('users').select(['user_type', 'name']).where('username', '=', 'alert-bot').executeTakeFirstOrThrow();
    assert.deepEqual(bot, { user_type: 'alert_bot', name: 'Alert Bot' });
  });
});

describe('updateAlertStatus', () => {
  test('acknowledged, then resolved (its end time set, the resolver’s to-dos done), then triggered again (the end time cleared)', async () => {
    const iid = await receive(p);
    const ack = await gql(STATUS, input(iid, { status: 'ACKNOWLEDGED', clientMutationId: 'c1' }), developer.token);
    const logged = { body: 'logged an alert from **Grafana**', system: true, author: { username: 'alert-bot' } };
    const note = (body: string) => ({ body, system: true, author: { username: 'aa-developer' } });
    assert.deepEqual(ack, {
      data: {
        updateAlertStatus: {
          clientMutationId: 'c1',
          errors: [],
          issue: null,
          todo: null,
          alert: { iid: String(iid), status: 'ACKNOWLEDGED', endedAt: null, assignees: { nodes: [] }, todos: { nodes: [] }, notes: { nodes: [logged, note('changed the status to **Acknowledged**')] } },
        },
      },
    });

    // A to-do of the developer, which resolving the alert marks done.
    assert.deepEqual((await gql(TODO, input(iid), developer.token)).data!.alertTodoCreate.errors, []);
    const resolved = (await gql(STATUS, input(iid, { status: 'RESOLVED' }), developer.token)).data!.updateAlertStatus;
    assert.deepEqual(resolved.errors, []);
    assert.equal(resolved.alert.status, 'RESOLVED');
    assert.match(resolved.alert.endedAt, /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(resolved.alert.todos.nodes, [{ action: 'marked', state: 'done', body: 'Disk full', targetType: 'ALERT', author: { username: 'aa-developer' } }]);
    assert.deepEqual(resolved.alert.notes.nodes.at(-1), note('changed the status to **Resolved**'));

    const again = (await gql(STATUS, input(iid, { status: 'TRIGGERED' }), developer.token)).data!.updateAlertStatus;
    assert.equal(again.alert.status, 'TRIGGERED');
    assert.equal(again.alert.endedAt, null);
  });

  test('the status it has already is no transition: "Invalid status", the alert unchanged, no note', async () => {
    const iid = await receive(p, { title: 'Already triggered' });
    const body = (await gql(STATUS, input(iid, { status: 'TRIGGERED' }), developer.token)).data!.updateAlertStatus;
    assert.deepEqual(body.errors, ['Invalid status']);
    assert.equal(body.alert.status, 'TRIGGERED');
    assert.equal(body.alert.notes.nodes.length, 1);
  });

  test('a resolved alert is not reopened while another with its fingerprint is open', async () => {
    const first = await receive(p, { title: 'Dup', fingerprint: 'same-thing' });
    await gql(STATUS, input(first, { status: 'RESOLVED' }), developer.token);
    const second = await receive(p, { title: 'Dup', fingerprint: 'same-thing' });
    assert.notEqual(first, second);
    const body = (await gql(STATUS, input(first, { status: 'ACKNOWLEDGED' }), developer.token)).data!.updateAlertStatus;
    assert.deepEqual(body.errors, [
      `An <a href="/${p.full_path}/-/alert_management/${second}/details">alert</a> with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.`,
    ]);
    assert.equal(body.alert.status, 'RESOLVED');
  });

  test('a reporter, a stranger, an unknown alert or project, an anonymous caller: resource not available', async () => {
    const iid = await receive(p);
    const refused = { data: { updateAlertStatus: null }, errors: [{ message: RESOURCE_NOT_AVAILABLE }] };
    const stranger = await t.user({ username: 'aa-stranger' });
    for (const [variables, token] of [
      [input(iid, { status: 'RESOLVED' }), reporter.token],
      [input(iid, { status: 'RESOLVED' }), stranger.token],
      [input(iid, { status: 'RESOLVED' }), undefined],
      [input(9999, { status: 'RESOLVED' }), developer.token],
      [input(0, { status: 'RESOLVED', projectPath: 'no/such' }), developer.token],
    ] as const) {
      const body = await gql(STATUS, variables, token);
      assert.deepEqual({ data: body.data, errors: body.errors?.map((e) => ({ message: e.message })) }, refused);
    }
  });

  test('an unknown status is an argument error', async () => {
    const body = await gql(STATUS, input(1, { status: 'CLOSED' }), developer.token);
    assert.equal(body.data, undefined);
    assert.match(body.errors![0].message, /CLOSED/);
  });
});

describe('alertSetAssignees', () => {
  test('assigns (one assignee kept, as the platform), notes it, and makes a pending to-do that GET /todos shows', async () => {
    const iid = await receive(p, { title: 'Latency' });
    const body = await gql(ASSIGN, input(iid, { assigneeUsernames: ['AA-maintainer', 'aa-developer', 'nobody-at-all'] }), developer.token);
    assert.deepEqual(body.data!.alertSetAssignees, {
      errors: [],
      issue: null,
      todo: null,
      alert: {
        iid: String(iid),
        status: 'TRIGGERED',
        endedAt: null,
        assignees: { nodes: [{ username: 'aa-developer' }] },
        todos: { nodes: [{ action: 'assigned', state: 'pending', body: 'Latency', targetType: 'ALERT', author: { username: 'aa-developer' } }] },
        notes: {
          nodes: [
            { body: 'logged an alert from **Grafana**', system: true, author: { username: 'alert-bot' } },
            { body: 'assigned to @aa-developer', system: true, author: { username: 'aa-developer' } },
          ],
        },
      },
    });

    // REPLACE with the maintainer: the developer is unassigned, the maintainer gets the to-do.
    const replaced = (await gql(ASSIGN, input(iid, { assigneeUsernames: ['aa-maintainer'], operationMode: 'REPLACE' }), developer.token)).data!.alertSetAssignees;
    assert.deepEqual(replaced.alert.assignees.nodes, [{ username: 'aa-maintainer' }]);
    assert.deepEqual(replaced.alert.notes.nodes.at(-1).body, 'assigned to @aa-maintainer and unassigned @aa-developer');

    const todos = await t.get('/api/v4/todos', { token: maintainer.token });
    assert.equal(todos.statusCode, 200);
    expectEntities(todos.json(), AlertTodoEntity);
    const alertId = (await t.deps.db.selectFrom('alert_management_alerts').select('id').where('project_id', '=', p.id).where('iid', '=', iid).executeTakeFirstOrThrow()).id;
    const [todo] = todos.json();
    assert.deepEqual(todo, {
      id: todo.id,
      project: todo.project,
      author: { id: developer.user.id, username: 'aa-developer', name: developer.user.name, state: 'active', avatar_url: null, web_url: `${BASE_URL}/aa-developer` },
      action_name: 'assigned',
      target_type: 'AlertManagement::Alert',
      target: { iid, title: 'Latency' },
      target_url: `${BASE_URL}/${p.full_path}/-/alert_management/${iid}/details`,
      body: 'Latency',
      state: 'pending',
      created_at: todo.created_at,
      updated_at: todo.updated_at,
    });
    assert.equal(todo.project.id, p.id);
    assert.ok(alertId > 0);
    // The type filter finds it.
    const filtered = await t.get('/api/v4/todos?type=AlertManagement::Alert', { token: maintainer.token });
    assert.deepEqual(filtered.json().map((x: { id: number }) => x.id), [todo.id]);

    // APPEND keeps the first; REMOVE empties it.
    const appended = (await gql(ASSIGN, input(iid, { assigneeUsernames: ['aa-developer'], operationMode: 'APPEND' }), developer.token)).data!.alertSetAssignees;
    assert.deepEqual(appended.alert.assignees.nodes, [{ username: 'aa-maintainer' }]);
    const removed = (await gql(ASSIGN, input(iid, { assigneeUsernames: ['aa-maintainer'], operationMode: 'REMOVE' }), developer.token)).data!.alertSetAssignees;
    assert.deepEqual(removed.alert.assignees.nodes, []);
    assert.equal(removed.alert.notes.nodes.at(-1).body, 'unassigned @aa-maintainer');
  });

  test('an assignee who may not read alerts: "Assignee has no permissions", nothing changed', async () => {
    const iid = await receive(p);
    const body = (await gql(ASSIGN, input(iid, { assigneeUsernames: ['aa-reporter'] }), developer.token)).data!.alertSetAssignees;
    assert.deepEqual(body.errors, ['Assignee has no permissions']);
    assert.deepEqual(body.alert.assignees.nodes, []);
    assert.equal((await t.get('/api/v4/todos', { token: reporter.token })).json().length, 0);
  });

  test('a reporter: resource not available', async () => {
    const iid = await receive(p);
    const body = await gql(ASSIGN, input(iid, { assigneeUsernames: ['aa-developer'] }), reporter.token);
    assert.deepEqual(body.errors?.map((e) => e.message), [RESOURCE_NOT_AVAILABLE]);
  });
});

describe('alertTodoCreate', () => {
  test('a to-do for the caller; a second one while it is pending is refused', async () => {
    const iid = await receive(p, { title: 'Queue' });
    const first = await gql(TODO, input(iid), maintainer.token);
    assert.deepEqual(first.data!.alertTodoCreate, {
      errors: [],
      issue: null,
      todo: { action: 'marked', state: 'pending', body: 'Queue', targetType: 'ALERT', author: { username: 'aa-maintainer' } },
      alert: { iid: String(iid) },
    });
    const second = await gql(TODO, input(iid), maintainer.token);
    assert.deepEqual(second.data!.alertTodoCreate, { errors: ['You already have pending todo for this alert'], issue: null, todo: null, alert: { iid: String(iid) } });
  });

  test('a reporter: resource not available', async () => {
    const iid = await receive(p);
    assert.deepEqual((await gql(TODO, input(iid), reporter.token)).errors?.map((e) => e.message), [RESOURCE_NOT_AVAILABLE]);
  });
});

describe('PUT /projects/:id/alert_management_alerts/:alert_iid (Quarry extension)', () => {
  test('status and assignee together; the alert with its assignees', async () => {
    const iid = await receive(p, { title: 'REST' });
    const res = await t.put(`/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: developer.token, body: { status: 'resolved', assignee_ids: [maintainer.user.id] } });
    assert.equal(res.statusCode, 200, res.body);
    expectEntity(res.json(), AlertEntity);
    assert.equal(res.json().status, 'resolved');
    assert.match(res.json().ended_at, /Z$/);
    assert.deepEqual(res.json().assignees.map((u: { username: string }) => u.username), ['aa-maintainer']);
    const listed = await t.get(`/api/v4/projects/${p.id}/alert_management_alerts?status=resolved`, { token: developer.token });
    expectEntities(listed.json(), AlertEntity);
    assert.ok(listed.json().some((a: { iid: number; assignees: unknown[] }) => a.iid === iid && a.assignees.length === 1));
  });

  test('errors: nothing to change 400, a bad status 400, a refused assignee 400, an unknown alert 404, a reporter 403, anonymous 401', async () => {
    const iid = await receive(p);
    const url = `/api/v4/projects/${p.id}/alert_management_alerts/${iid}`;
    expectError(await t.put(url, { token: developer.token, body: {} }), 400, { error: 'status, assignee_ids are missing, at least one parameter must be provided' });
    expectError(await t.put(url, { token: developer.token, body: { status: 'closed' } }), 400, { error: 'status does not have a valid value' });
    expectError(await t.put(url, { token: developer.token, body: { assignee_ids: [reporter.user.id] } }), 400, { message: 'Assignee has no permissions' });
    expectError(await t.put(`/api/v4/projects/${p.id}/alert_management_alerts/9999`, { token: developer.token, body: { status: 'resolved' } }), 404, { message: '404 Alert Not Found' });
    expectError(await t.put(url, { token: reporter.token, body: { status: 'resolved' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url, { body: { status: 'resolved' } }), 401, { message: '401 Unauthorized' });
  });
});

describe('who may change an alert through GraphQL', () => {
  let world: MatrixWorld;
  before(async () => {
    world = await buildMatrixWorld(t, 'aam');
  });

  test('updateAlertStatus: Developers and up and administrators; everyone else resource not available', async () => {
    for (const visibility of VISIBILITIES) {
      const project = world.projects[visibility];
      const iid = await receive(project);
      for (const role of ROLES) {
        const caller = world.callers[role];
        const allowed = role === 'admin' || (role !== 'blocked' && role !== 'anonymous' && canSee(role, visibility) && ROLE_LEVEL[role] >= ACCESS.DEVELOPER);
        const status = allowed ? (role.length % 2 === 0 ? 'ACKNOWLEDGED' : 'IGNORED') : 'RESOLVED';
        const body = await t.post('/api/graphql', { token: caller.token, body: { query: STATUS, variables: { input: { projectPath: project.full_path, iid: String(iid), status } } } });
        const json = body.json();
        if (role === 'blocked') {
          assert.equal(body.statusCode === 403 || json.errors?.[0]?.message === RESOURCE_NOT_AVAILABLE, true, `${role} on ${visibility}: ${body.body}`);
          continue;
        }
        assert.equal(body.statusCode, 200, `${role} on ${visibility}: ${body.body}`);
        if (allowed) assert.ok(json.data.updateAlertStatus.alert, `${role} on ${visibility}: ${body.body}`);
        else assert.deepEqual(json.errors?.map((e: { message: string }) => e.message), [RESOURCE_NOT_AVAILABLE], `${role} on ${visibility}: ${body.body}`);
      }
    }
  });
});
