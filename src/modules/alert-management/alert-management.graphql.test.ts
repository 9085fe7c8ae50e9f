// Alert management through GraphQL, as clients of the platform use it: the four integration
// mutations (whole payloads, model failures in `errors`, the refusal for callers who may not manage
// the project), the integrations and alerts of a project (empty for callers below the role), an
// integration made by mutation receiving an alert at its address, and paging.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { RESOURCE_NOT_AVAILABLE } from '../../graphql/context.ts';

let t: TestApp;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let p: ProjectRow;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user({ username: 'gql-maintainer' });
  developer = await t.user({ username: 'gql-developer' });
  reporter = await t.user({ username: 'gql-reporter' });
  p = await createProject(t, { path: 'alerting' });
  await addMember(t, p, maintainer.user.id, ACCESS.MAINTAINER);
  await addMember(t, p, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, p, reporter.user.id, ACCESS.REPORTER);
});
after(() => t.close());

async function gql(query: string, variables: Record<string, unknown> = {}, token: string = maintainer.token) {
  const res = await t.post('/api/graphql', { token, body: { query, variables } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { data?: Record<string, any>; errors?: { message: string; path?: string[] }[] };
}

const INTEGRATION = 'id name active url token type apiUrl payloadExample payloadAttributeMappings { fieldName path type label }';
const CREATE = `mutation($input: HttpIntegrationCreateInput!) { httpIntegrationCreate(input: $input) { clientMutationId errors integration { ${INTEGRATION} } } }`;
const UPDATE = `mutation($input: HttpIntegrationUpdateInput!) { httpIntegrationUpdate(input: $input) { errors integration { ${INTEGRATION} } } }`;
const RESET = `mutation($input: HttpIntegrationResetTokenInput!) { httpIntegrationResetToken(input: $input) { errors integration { ${INTEGRATION} } } }`;
const DESTROY = `mutation($input: HttpIntegrationDestroyInput!) { httpIntegrationDestroy(input: $input) { errors integration { ${INTEGRATION} } } }`;
const LIST = `query($p: ID!) { project(fullPath: $p) { alertManagementHttpIntegrations { nodes { ${INTEGRATION} } } } }`;
const ALERTS = 'query($p: ID!, $statuses: [AlertManagementStatus!], $iid: String, $first: Int, $after: String) { project(fullPath: $p) { alertManagementAlerts(statuses: $statuses, iid: $iid, first: $first, after: $after) { count pageInfo { hasNextPage endCursor } nodes { iid title severity status eventCount startedAt endedAt } } } }';

async function create(input: Record<string, unknown>, token = maintainer.token) {
  return gql(CREATE, { input: { projectPath: p.full_path, name: 'Grafana', active: true, ...input } }, token);
}

describe('httpIntegrationCreate', () => {
  test('the whole integration, with its address, token and premium fields', async () => {
    const body = await create({
      clientMutationId: 'abc',
      payloadExample: JSON.stringify({ alert: { name: 'x' } }),
      payloadAttributeMappings: [{ fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' }, { fieldName: 'HOSTS', path: ['hosts', 0], type: 'ARRAY' }],
    });
    assert.equal(body.errors, undefined);
    const created = body.data!.httpIntegrationCreate;
    assert.match(created.integration.id, /^gid:\/\/gitlab\/AlertManagement::HttpIntegration\/\d+$/);
    assert.match(created.integration.token, /^[0-9a-f]{32}$/);
    assert.deepEqual(created, {
      clientMutationId: 'abc',
      errors: [],
      integration: {
        id: created.integration.id,
        name: 'Grafana',
        active: true,
        url: created.integration.url,
        token: created.integration.token,
        type: 'HTTP',
        apiUrl: null,
        payloadExample: '{"alert":{"name":"x"}}',
        payloadAttributeMappings: [
          { fieldName: 'TITLE', path: ['alert', 'name'], type: 'STRING', label: 'Name' },
          { fieldName: 'HOSTS', path: ['hosts', 0], type: 'ARRAY', label: null },
        ],
      },
    });
    assert.match(created.integration.url, new RegExp(`^${BASE_URL}/${p.full_path}/-/alerts/notify/grafana/[0-9a-f]{16}\\.json$`));

    // It receives alerts at once, its mapping applied.
    const res = await t.request('POST', new URL(created.integration.url).pathname, { headers: { authorization: `Bearer ${created.integration.token}` }, body: { alert: { name: 'From Grafana' } } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()[0].title, 'From Grafana');
  });

  test('a blank or overlong name is the model failure in `errors`', async () => {
    assert.deepEqual((await create({ name: '  ' })).data, { httpIntegrationCreate: { clientMutationId: null, errors: ["Name can't be blank"], integration: null } });
    assert.deepEqual((await create({ name: 'n'.repeat(256) })).data!.httpIntegrationCreate.errors, ['Name is too long (maximum is 255 characters)']);
  });

  test('a payload example that is no JSON object, or too big, is an argument error', async () => {
    const bad = await create({ payloadExample: '{nope' });
    assert.ok(bad.errors?.[0].message.includes('Invalid JSON string'), JSON.stringify(bad));
    const list = await create({ payloadExample: '[1]' });
    assert.equal(list.errors?.[0].message, 'payloadExample must be a JSON object');
    const deep = await create({ payloadExample: `${'{"a":'.repeat(101)}1${'}'.repeat(101)}` });
    assert.equal(deep.errors?.[0].message, 'payloadExample JSON is too big');
  });

  test('a caller who may not manage the project, or an unknown project, is refused; a read_api token too', async () => {
    for (const token of [developer.token, reporter.token, (await t.user()).token]) {
      const body = await create({}, token);
      assert.deepEqual(body.data, { httpIntegrationCreate: null });
      assert.equal(body.errors?.[0].message, RESOURCE_NOT_AVAILABLE);
    }
    const unknown = await gql(CREATE, { input: { projectPath: 'no/where', name: 'x', active: true } });
    assert.equal(unknown.errors?.[0].message, RESOURCE_NOT_AVAILABLE);
    const readOnly = await t.user({}, ['read_api']);
    await addMember(t, p, readOnly.user.id, ACCESS.MAINTAINER);
    assert.equal((await create({}, readOnly.token)).errors?.[0].message, RESOURCE_NOT_AVAILABLE);
    const anonymous = await t.post('/api/graphql', { body: { query: CREATE, variables: { input: { projectPath: p.full_path, name: 'x', active: true } } } });
    assert.equal(anonymous.json().errors[0].message, RESOURCE_NOT_AVAILABLE);
  });
});

describe('httpIntegrationUpdate, httpIntegrationResetToken, httpIntegrationDestroy', () => {
  test('change, new token, removal; each answers the integration', async () => {
    const made = (await create({ name: 'Zabbix' })).data!.httpIntegrationCreate.integration;
    const updated = (await gql(UPDATE, { input: { id: made.id, name: 'Zabbix prod', active: false } })).data!.httpIntegrationUpdate;
    assert.deepEqual(updated.errors, []);
    assert.deepEqual({ ...updated.integration, url: undefined }, { ...made, name: 'Zabbix prod', active: false, url: undefined });
    assert.equal(updated.integration.url.replace('/zabbix-prod/', '/zabbix/'), made.url, 'the identifier stays');

    const blank = (await gql(UPDATE, { input: { id: made.id, name: '' } })).data!.httpIntegrationUpdate;
    assert.deepEqual(blank, { errors: ["Name can't be blank"], integration: null });

    const reset = (await gql(RESET, { input: { id: made.id } })).data!.httpIntegrationResetToken;
    assert.deepEqual(reset.errors, []);
    assert.notEqual(reset.integration.token, made.token);
    assert.match(reset.integration.token, /^[0-9a-f]{32}$/);

    const destroyed = (await gql(DESTROY, { input: { id: made.id } })).data!.httpIntegrationDestroy;
    assert.deepEqual(destroyed, { errors: [], integration: reset.integration });
    const again = await gql(DESTROY, { input: { id: made.id } });
    assert.deepEqual(again.data, { httpIntegrationDestroy: null });
    assert.equal(again.errors?.[0].message, RESOURCE_NOT_AVAILABLE);
  });

  test('a developer may not change an integration; an ID of another kind is refused', async () => {
    const made = (await create({ name: 'Other' })).data!.httpIntegrationCreate.integration;
    for (const query of [UPDATE, RESET, DESTROY]) {
      const body = await gql(query, { input: { id: made.id } }, developer.token);
      assert.equal(body.errors?.[0].message, RESOURCE_NOT_AVAILABLE);
    }
    const wrong = await gql(RESET, { input: { id: `gid://gitlab/Project/${p.id}` } });
    // The platform's words for a variable it refuses: where in the value, and why.
    assert.equal(
      wrong.errors?.[0].message,
      `Variable $input of type HttpIntegrationResetTokenInput! was provided invalid value for id ("gid://gitlab/Project/${p.id}" does not represent an instance of AlertManagement::HttpIntegration)`,
    );
    const garbage = await gql(RESET, { input: { id: '12' } });
    assert.equal(garbage.errors?.[0].message, 'Variable $input of type HttpIntegrationResetTokenInput! was provided invalid value for id ("12" is not a valid Global ID)');
  });
});

describe('project { alertManagementHttpIntegrations }', () => {
  test('Maintainers see every integration, with its token; Developers an empty list', async () => {
    const seen = (await gql(LIST, { p: p.full_path })).data!.project.alertManagementHttpIntegrations.nodes;
    assert.ok(seen.length >= 2);
    assert.ok(seen.every((i: { token: string; type: string }) => /^[0-9a-f]{32}$/.test(i.token) && i.type === 'HTTP'));
    const rest = await t.get(`/api/v4/projects/${p.id}/alert_management_http_integrations`, { token: ROOT_TOKEN, query: { per_page: '100' } });
    assert.deepEqual(
      seen.map((i: { id: string }) => i.id),
      rest.json().map((i: { id: number }) => `gid://gitlab/AlertManagement::HttpIntegration/${i.id}`),
    );
    assert.deepEqual((await gql(LIST, { p: p.full_path }, developer.token)).data!.project.alertManagementHttpIntegrations.nodes, []);
    const one = await gql('query($p: ID!, $id: AlertManagementHttpIntegrationID) { project(fullPath: $p) { alertManagementHttpIntegrations(id: $id) { nodes { id name } } } }', { p: p.full_path, id: seen[0].id });
    assert.deepEqual(one.data!.project.alertManagementHttpIntegrations.nodes, [{ id: seen[0].id, name: seen[0].name }]);
  });
});

describe('project { alertManagementAlerts }', () => {
  test('the alerts received, newest first, filtered and paged; Reporters see none', async () => {
    const q = await createProject(t, { path: 'alerting-2' });
    await addMember(t, q, developer.user.id, ACCESS.DEVELOPER);
    await addMember(t, q, reporter.user.id, ACCESS.REPORTER);
    const made = (await gql(CREATE, { input: { projectPath: q.full_path, name: 'Tool', active: true } }, ROOT_TOKEN)).data!.httpIntegrationCreate.integration;
    const send = async (body: unknown) => {
      const res = await t.request('POST', new URL(made.url).pathname, { headers: { authorization: `Bearer ${made.token}` }, body });
      assert.equal(res.statusCode, 200, res.body);
    };
    await send({ title: 'Disk', fingerprint: 'disk', severity: 'low', start_time: '2021-11-20T10:00:00Z' });
    await send({ title: 'Disk', fingerprint: 'disk' });
    await send({ title: 'CPU', start_time: '2021-11-20T11:00:00Z', end_time: '2021-11-20T12:00:00Z' });

    const all = (await gql(ALERTS, { p: q.full_path }, developer.token)).data!.project.alertManagementAlerts;
    assert.deepEqual(all, {
      count: 2,
      pageInfo: { hasNextPage: false, endCursor: all.pageInfo.endCursor },
      nodes: [
        { iid: '2', title: 'CPU', severity: 'CRITICAL', status: 'RESOLVED', eventCount: 1, startedAt: '2021-11-20T11:00:00.000Z', endedAt: '2021-11-20T12:00:00.000Z' },
        { iid: '1', title: 'Disk', severity: 'LOW', status: 'TRIGGERED', eventCount: 2, startedAt: '2021-11-20T10:00:00.000Z', endedAt: null },
      ],
    });
    const triggered = (await gql(ALERTS, { p: q.full_path, statuses: ['TRIGGERED'] }, developer.token)).data!.project.alertManagementAlerts;
    assert.deepEqual(triggered.nodes.map((n: { iid: string }) => n.iid), ['1']);
    const byIid = (await gql(ALERTS, { p: q.full_path, iid: '2' }, developer.token)).data!.project.alertManagementAlerts;
    assert.deepEqual(byIid.nodes.map((n: { title: string }) => n.title), ['CPU']);
    const first = (await gql(ALERTS, { p: q.full_path, first: 1 }, developer.token)).data!.project.alertManagementAlerts;
    assert.equal(first.pageInfo.hasNextPage, true);
    const second = (await gql(ALERTS, { p: q.full_path, first: 1, after: first.pageInfo.endCursor }, developer.token)).data!.project.alertManagementAlerts;
    assert.deepEqual(second.nodes.map((n: { iid: string }) => n.iid), ['1']);
    assert.equal(second.pageInfo.hasNextPage, false);
    assert.deepEqual((await gql(ALERTS, { p: q.full_path }, reporter.token)).data!.project.alertManagementAlerts.nodes, []);
  });
});
