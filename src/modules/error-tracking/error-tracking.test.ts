// Error tracking: settings (PATCH needs them, PUT makes them and validates an external tracker),
// client keys and their DSN, the collector's answers and grouping (store and envelope, gzip, the
// key from X-Sentry-Auth or sentry_key), and the errors read back through REST and GraphQL.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { addMember, createProject } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { ClientKeyEntity, ErrorDetailEntity, ErrorEntity, SettingsEntity } from './error-tracking.schemas.ts';

let t: TestApp;
let project: ProjectRow;
let reporter: TestUser;
let key: { id: number; public_key: string; tracker_dsn: string };

const base = () => `/api/v4/projects/${project.id}/error_tracking`;
const collector = (kind: 'store' | 'envelope', id: number | string = project.id) => `/api/v4/error_tracking/collector/api/${id}/${kind}`;

function event(overrides: Record<string, unknown> = {}) {
  return {
    event_id: 'fc6d8c0c43fc4630ad850ee518f1b9d0',
    timestamp: '2024-05-01T10:00:00Z',
    platform: 'node',
    level: 'error',
    environment: 'production',
    exception: {
      values: [
        {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'id')",
          stacktrace: {
            frames: [
              { filename: 'app.js', function: 'main', module: 'app', lineno: 3, colno: 1, in_app: true },
              { filename: 'lib/users.js', function: 'loadUser', module: 'lib.users', lineno: 42, colno: 7, in_app: true, pre_context: ['a', 'b'], context_line: 'return x.id;', post_context: ['}'] },
            ],
          },
        },
      ],
    },
    ...overrides,
  };
}

const envelope = (...items: [Record<string, unknown>, unknown][]) =>
  [JSON.stringify({ event_id: 'fc6d8c0c43fc4630ad850ee518f1b9d0', sent_at: new Date().toISOString() }), ...items.flatMap(([h, p]) => [JSON.stringify(h), typeof p === 'string' ? p : JSON.stringify(p)])].join('\n');

const store = (body: unknown, headers: Record<string, string> = {}, id: number | string = project.id) =>
  t.post(collector('store', id), { headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=test/1.0, sentry_key=${key.public_key}`, ...headers }, body: JSON.stringify(body) });

before(async () => {
  t = await createTestApp();
  project = await createProject(t, { path: 'tracked' });
  reporter = await t.user();
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
});
after(() => t.close());

describe('settings', () => {
  test('none yet: GET and PATCH answer 404', async () => {
    expectError(await t.get(`${base()}/settings`, { token: ROOT_TOKEN }), 404, { message: '404 Error Tracking Setting Not Found' });
    expectError(await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: true } }), 404, { message: '404 Error Tracking Setting Not Found' });
  });

  test('PUT validates an external tracker and creates the settings', async () => {
    const res = await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false } });
    expectError(res, 400, { message: { api_url: ['is a required field'], token: ['is a required field'] } });
    expectError(await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false, api_url: 'https://tracker.example.com/api/0/things/', token: 'x' } }), 400, {
      message: { api_url: ['is invalid'] },
    });
    expectError(await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false, api_url: 'https://tracker.example.com/api/0/projects//app/', token: 'x' } }), 400, {
      message: { project: ['is a required field'] },
    });
    expectError(await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false, api_url: 'ftp://tracker.example.com/api/0/projects/org/app/', token: 'x' } }), 400, {
      message: { api_url: ['is blocked: Only allowed schemes are http, https'] },
    });
    assert.equal(await t.count('error_tracking_settings'), 0);
    const ok = await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false, api_url: 'https://tracker.example.com/api/0/projects/acme/my-web_app/', token: 'secret' } });
    assert.equal(ok.statusCode, 200, ok.body);
    expectEntity(ok.json(), SettingsEntity);
    assert.deepEqual(ok.json(), {
      active: true,
      project_name: 'My Web App',
      tracker_external_url: 'https://tracker.example.com/acme/my-web_app/',
      api_url: 'https://tracker.example.com/api/0/projects/acme/my-web_app/',
      integrated: false,
    });
    const row = await t.deps.db.selectFrom('error_tracking_settings').selectAll().executeTakeFirstOrThrow();
    assert.ok(row.token_encrypted && !row.token_encrypted.includes('secret'));
  });

  test('PATCH switches tracking and the integrated tracker; GET reads them', async () => {
    expectError(await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: {} }), 400, { error: 'active is missing' });
    const res = await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: false, integrated: true } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().active, res.json().integrated], [false, true]);
    const read = await t.get(`${base()}/settings`, { token: ROOT_TOKEN });
    expectEntity(read.json(), SettingsEntity);
    assert.equal(read.json().project_name, 'My Web App');
  });

  test('PUT with the integrated tracker needs no address; a stored one is kept', async () => {
    const res = await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: 'true', integrated: 'true' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().active, res.json().integrated, res.json().api_url], [true, true, 'https://tracker.example.com/api/0/projects/acme/my-web_app/']);
  });
});

describe('client keys', () => {
  test('created, listed with their DSN, deleted', async () => {
    const made = await t.post(`${base()}/client_keys`, { token: ROOT_TOKEN });
    assert.equal(made.statusCode, 201, made.body);
    expectEntity(made.json(), ClientKeyEntity);
    key = made.json();
    assert.match(key.public_key, /^glet_[0-9a-f]{32}$/);
    assert.equal(key.tracker_dsn, `http://${key.public_key}@quarry.test/api/v4/error_tracking/collector/${project.id}`);
    const other = (await t.post(`${base()}/client_keys`, { token: ROOT_TOKEN })).json();
    const list = await t.get(`${base()}/client_keys`, { token: ROOT_TOKEN });
    expectEntities(list.json(), ClientKeyEntity);
    assert.deepEqual(list.json().map((k: { id: number }) => k.id), [key.id, other.id]);
    assert.equal(list.headers['x-total'], '2');
    const gone = await t.del(`${base()}/client_keys/${other.id}`, { token: ROOT_TOKEN });
    assert.equal(gone.statusCode, 204);
    expectError(await t.del(`${base()}/client_keys/${other.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  });
});

describe('the collector', () => {
  test('store: events are grouped by type, value, culprit and platform, with counts and times', async () => {
    assert.equal((await store(event())).statusCode, 200);
    assert.equal((await store(event({ timestamp: 1714561200.5 }))).statusCode, 200); // 2024-05-01T11:00:00.500Z
    assert.equal((await store(event({ timestamp: '2024-05-01T09:00:00' }))).statusCode, 200);
    // Another culprit: the transaction names it.
    assert.equal((await store(event({ transaction: 'GET /users/:id' }))).statusCode, 200);
    const rows = await t.deps.db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    assert.equal(rows.length, 2);
    assert.deepEqual(
      { name: rows[0].name, actor: rows[0].actor, platform: rows[0].platform, count: Number(rows[0].events_count), first: rows[0].first_seen_at, last: rows[0].last_seen_at },
      { name: 'TypeError', actor: 'loadUser(lib.users)', platform: 'node', count: 3, first: '2024-05-01T09:00:00.000Z', last: '2024-05-01T11:00:00.500Z' },
    );
    assert.equal(rows[1].actor, 'GET /users/:id');
    assert.equal(await t.count('error_tracking_error_events'), 4);
  });

  test('envelope: gzip, the key as sentry_key; sessions and other items accepted and ignored', async () => {
    const body = envelope([{ type: 'session' }, { sid: 'x', status: 'ok' }], [{ type: 'event' }, event({ exception: { values: [{ type: 'RangeError', value: 'too far', stacktrace: { frames: [] } }] } })], [{ type: 'client_report' }, { discarded_events: [] }]);
    const res = await t.post(`${collector('envelope')}/?sentry_key=${key.public_key}&sentry_version=7`, {
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
      body: gzipSync(body),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, '');
    const row = await t.deps.db.selectFrom('error_tracking_errors').selectAll().where('name', '=', 'RangeError').executeTakeFirstOrThrow();
    assert.deepEqual([row.description, row.actor, Number(row.events_count)], ['too far', '', 1]);
    // A session update alone, and an item whose length is given.
    const payload = JSON.stringify({ sid: 'y' });
    const sessions = `${JSON.stringify({})}\n${JSON.stringify({ type: 'session', length: Buffer.byteLength(payload) })}\n${payload}`;
    assert.equal((await t.post(collector('envelope'), { headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-sentry-auth': `Sentry sentry_key=${key.public_key}` }, body: sessions })).statusCode, 200);
  });

  test('refusals: unknown project, tracking off, missing or unknown key, unreadable input', async () => {
    const headers = { 'x-sentry-auth': `Sentry sentry_key=${key.public_key}` };
    expectError(await store(event(), {}, 999999), 404, { message: '404 Project Not Found' });
    expectError(await t.post(collector('store'), { body: JSON.stringify(event()) }), 400, { message: '400 Bad request - Failed to parse sentry request' });
    expectError(await store(event(), { 'x-sentry-auth': 'Sentry sentry_key=glet_00000000000000000000000000000000' }), 404, { message: '404 Not Found' });
    expectError(await store(event(), { 'x-sentry-auth': 'Sentry sentry_version=7' }), 404, { message: '404 Not Found' });
    expectError(await t.post(collector('store'), { headers, body: '{nope' }), 400, { message: '400 Bad request - Failed to parse sentry request' });
    expectError(await t.post(collector('store'), { headers: { ...headers, 'content-encoding': 'gzip' }, body: 'not gzip' }), 400, { message: '400 Bad request - Failed to parse sentry request' });
    expectError(await t.post(collector('envelope'), { headers, body: 'garbage\n{' }), 400, { message: '400 Bad request - Failed to parse sentry request' });
    expectError(await store({ message: 'no exception' }), 400, { message: '400 Bad request - Unsupported sentry payload' });
    // An inactive key, then tracking off.
    await t.deps.db.updateTable('error_tracking_client_keys').set({ active: false }).where('id', '=', key.id).execute();
    expectError(await store(event()), 404, { message: '404 Not Found' });
    await t.deps.db.updateTable('error_tracking_client_keys').set({ active: true }).where('id', '=', key.id).execute();
    await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: false } });
    expectError(await store(event()), 404, { message: '404 Not Found' });
    await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: true } });
    assert.equal((await store(event())).statusCode, 200);
  });
});

describe('reading errors', () => {
  test('REST list: sorted, filtered, paginated; detail with the latest event', async () => {
    const list = await t.get(`${base()}/errors`, { token: reporter.token });
    assert.equal(list.statusCode, 200, list.body);
    expectEntities(list.json(), ErrorEntity);
    assert.equal(list.headers['x-total'], '3');
    const byFrequency = await t.get(`${base()}/errors?sort=frequency`, { token: reporter.token });
    assert.equal(byFrequency.json()[0].events_count, 4);
    const searched = await t.get(`${base()}/errors?search_term=rangeerr`, { token: reporter.token });
    assert.deepEqual(searched.json().map((e: { name: string }) => e.name), ['RangeError']);
    expectError(await t.get(`${base()}/errors?sort=nope`, { token: reporter.token }), 400, { error: 'sort does not have a valid value' });
    const top = byFrequency.json()[0];
    const detail = await t.get(`${base()}/errors/${top.id}`, { token: reporter.token });
    expectEntity(detail.json(), ErrorDetailEntity);
    assert.equal(detail.json().latest_event.stack_trace[1].function, 'loadUser');
    expectError(await t.get(`${base()}/errors/999999`, { token: reporter.token }), 404, { message: '404 Error Not Found' });
  });

  test('GraphQL: sentryErrors with errors, detailedError and errorStackTrace', async () => {
    const query = `query($path: ID!, $id: GitlabErrorTrackingDetailedErrorID!) {
      project(fullPath: $path) {
        sentryErrors {
          externalUrl
          errors(first: 2, sort: "frequency") { count pageInfo { hasNextPage endCursor } nodes { id sentryId title type culprit count userCount firstSeen lastSeen status message externalUrl frequency { count time } sentryProjectName } }
          detailedError(id: $id) { id title culprit count status tags { level logger } externalBaseUrl gitlabCommit }
          errorStackTrace(id: $id) { issueId dateReceived stackTraceEntries { function fileName line col traceContext { line code } } }
        }
      }
    }`;
    const top = (await t.get(`${base()}/errors?sort=frequency`, { token: reporter.token })).json()[0];
    const res = await t.post('/api/graphql', { token: reporter.token, body: { query, variables: { path: project.full_path, id: `gid://gitlab/Gitlab::ErrorTracking::DetailedError/${top.id}` } } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    const sentry = body.data.project.sentryErrors;
    assert.equal(sentry.errors.count, 3);
    assert.equal(sentry.errors.nodes.length, 2);
    assert.equal(sentry.errors.pageInfo.hasNextPage, true);
    assert.deepEqual(sentry.errors.nodes[0], {
      id: `gid://gitlab/Gitlab::ErrorTracking::Error/${top.id}`,
      sentryId: String(top.id),
      title: "TypeError: Cannot read properties of undefined (reading 'id')",
      type: 'error',
      culprit: 'loadUser(lib.users)',
      count: 4,
      userCount: 0,
      firstSeen: '2024-05-01T09:00:00.000Z',
      lastSeen: top.last_seen_at,
      status: 'UNRESOLVED',
      message: "Cannot read properties of undefined (reading 'id')",
      externalUrl: `http://quarry.test/${project.full_path}/-/error_tracking/${top.id}/details`,
      frequency: [],
      sentryProjectName: project.name,
    });
    const next = await t.post('/api/graphql', { token: reporter.token, body: { query: `query($path: ID!, $after: String) { project(fullPath: $path) { sentryErrors { errors(first: 2, sort: "frequency", after: $after) { nodes { sentryId } pageInfo { hasNextPage } } } } }`, variables: { path: project.full_path, after: sentry.errors.pageInfo.endCursor } } });
    assert.equal(next.json().data.project.sentryErrors.errors.nodes.length, 1);
    assert.equal(next.json().data.project.sentryErrors.errors.pageInfo.hasNextPage, false);
    assert.deepEqual(sentry.detailedError.tags, { level: 'error', logger: null });
    assert.equal(sentry.detailedError.count, 4);
    assert.equal(sentry.errorStackTrace.stackTraceEntries[1].function, 'loadUser');
    assert.deepEqual(sentry.errorStackTrace.stackTraceEntries[1].traceContext, [
      { line: 40, code: 'a' },
      { line: 41, code: 'b' },
      { line: 42, code: 'return x.id;' },
      { line: 43, code: '}' },
    ]);
  });

  test('GraphQL: guests and strangers get null; a wrong ID is an error', async () => {
    const guest = await t.user();
    await addMember(t, project, guest.user.id, ACCESS.GUEST);
    const query = `query($path: ID!) { project(fullPath: $path) { id sentryErrors { errors { count } } } }`;
    const res = await t.post('/api/graphql', { token: guest.token, body: { query, variables: { path: project.full_path } } });
    assert.deepEqual(res.json(), { data: { project: { id: `gid://gitlab/Project/${project.id}`, sentryErrors: null } } });
    const stranger = await t.user();
    assert.deepEqual((await t.post('/api/graphql', { token: stranger.token, body: { query, variables: { path: project.full_path } } })).json(), { data: { project: null } });
    const wrong = await t.post('/api/graphql', { token: reporter.token, body: { query: `query($path: ID!) { project(fullPath: $path) { sentryErrors { detailedError(id: "gid://gitlab/Issue/1") { id } } } }`, variables: { path: project.full_path } } });
    assert.equal(wrong.json().errors[0].message, `Argument 'id' on Field 'detailedError' has an invalid value ("gid://gitlab/Issue/1"). Expected type 'GitlabErrorTrackingDetailedErrorID!'.`);
  });
});

describe("changing an error's status", () => {
  const gid = (id: number) => `gid://gitlab/Gitlab::ErrorTracking::DetailedError/${id}`;
  const MUTATION = `mutation($input: UpdateSentryErrorStatusInput!) { updateSentryErrorStatus(input: $input) { clientMutationId errors error { id status count } } }`;
  const typeError = async () => (await t.get(`${base()}/errors?search_term=typeerror`, { token: reporter.token })).json()[0] as { id: number; status: string; events_count: number };

  before(async () => {
    const res = await t.put(`${base()}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: true } });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('REST: a reporter resolves and ignores; the status is kept and filters the list', async () => {
    const error = await typeError();
    const resolved = await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'resolved' } });
    assert.equal(resolved.statusCode, 200, resolved.body);
    expectEntity(resolved.json(), ErrorEntity);
    assert.equal(resolved.json().status, 'resolved');
    const row = await t.deps.db.selectFrom('error_tracking_errors').select('status').where('id', '=', error.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'resolved');
    const listed = await t.get(`${base()}/errors?status=resolved`, { token: reporter.token });
    assert.deepEqual(listed.json().map((e: { id: number }) => e.id), [error.id]);
    expectError(await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'resolvedInNextRelease' } }), 400, { error: 'status does not have a valid value' });
    expectError(await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: {} }), 400, { error: 'status is missing' });
    expectError(await t.put(`${base()}/errors/999999`, { token: reporter.token, body: { status: 'ignored' } }), 404, { message: '404 Error Not Found' });
    const back = await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'unresolved' } });
    assert.equal(back.json().status, 'unresolved');
  });

  test('a resolved error opens again when a new event arrives; an ignored one stays ignored', async () => {
    const error = await typeError();
    await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'resolved' } });
    assert.equal((await store(event({ timestamp: '2024-05-02T10:00:00Z' }))).statusCode, 200);
    const reopened = await typeError();
    assert.deepEqual([reopened.status, reopened.events_count], ['unresolved', error.events_count + 1]);
    await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'ignored' } });
    assert.equal((await store(event({ timestamp: '2024-05-02T11:00:00Z' }))).statusCode, 200);
    assert.equal((await typeError()).status, 'ignored');
    await t.put(`${base()}/errors/${error.id}`, { token: reporter.token, body: { status: 'unresolved' } });
  });

  test("the platform's web route: PUT <full path>/-/error_tracking/:issue_id.json", async () => {
    const error = await typeError();
    const url = `/${project.full_path}/-/error_tracking/${error.id}.json`;
    const res = await t.put(url, { token: reporter.token, body: { status: 'resolved' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { result: { status: 'success', updated: true, closed_issue_iid: null } });
    assert.equal((await typeError()).status, 'resolved');
    assert.deepEqual((await t.put(url, { token: reporter.token, body: { status: 'resolved' } })).json(), { result: { status: 'success', updated: false, closed_issue_iid: null } });
    expectError(await t.put(`/${project.full_path}/-/error_tracking/999999.json`, { token: reporter.token, body: { status: 'resolved' } }), 404, { message: '404 Not Found' });
    expectError(await t.put(`/${project.full_path}/-/error_tracking/abc.json`, { token: reporter.token, body: { status: 'resolved' } }), 404, { message: '404 Not Found' });
    const guest = await t.user();
    await addMember(t, project, guest.user.id, ACCESS.GUEST);
    expectError(await t.put(url, { token: guest.token, body: { status: 'ignored' } }), 404, { message: '404 Not Found' });
    expectError(await t.put(url, { body: { status: 'ignored' } }), 404, { message: '404 Not Found' });
    await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: false } });
    try {
      expectError(await t.put(url, { token: reporter.token, body: { status: 'ignored' } }), 400, { message: 'Error Tracking is not enabled' });
    } finally {
      await t.request('PATCH', `${base()}/settings`, { token: ROOT_TOKEN, body: { active: true } });
    }
    await t.put(url, { token: reporter.token, body: { status: 'unresolved' } });
  });

  test('GraphQL: updateSentryErrorStatus', async () => {
    const error = await typeError();
    const input = { projectPath: project.full_path, id: gid(error.id), status: 'IGNORED', clientMutationId: 'm1' };
    const res = await t.post('/api/graphql', { token: reporter.token, body: { query: MUTATION, variables: { input } } });
    assert.deepEqual(res.json(), {
      data: { updateSentryErrorStatus: { clientMutationId: 'm1', errors: [], error: { id: `gid://gitlab/Gitlab::ErrorTracking::Error/${error.id}`, status: 'IGNORED', count: error.events_count } } },
    });
    assert.equal((await typeError()).status, 'ignored');
    // The integrated tracker knows no releases: the change is refused beside the unchanged error.
    const next = await t.post('/api/graphql', { token: reporter.token, body: { query: MUTATION, variables: { input: { ...input, status: 'RESOLVED_IN_NEXT_RELEASE' } } } });
    assert.deepEqual(next.json().data.updateSentryErrorStatus.errors, ['Status is not supported by the integrated error tracker']);
    assert.equal(next.json().data.updateSentryErrorStatus.error.status, 'IGNORED');
    const back = await t.post('/api/graphql', { token: reporter.token, body: { query: MUTATION, variables: { input: { ...input, status: 'UNRESOLVED' } } } });
    assert.equal(back.json().data.updateSentryErrorStatus.error.status, 'UNRESOLVED');
  });

  test('GraphQL: refusals are the platform\'s one error, whatever is missing', async () => {
    const error = await typeError();
    const refused = { data: { updateSentryErrorStatus: null }, errors: [{ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", locations: [{ line: 1, column: 51 }], path: ['updateSentryErrorStatus'] }] };
    const call = (token: string | undefined, input: Record<string, unknown>) => t.post('/api/graphql', { token, body: { query: MUTATION, variables: { input: { projectPath: project.full_path, id: gid(error.id), status: 'RESOLVED', ...input } } } });
    const guest = await t.user();
    await addMember(t, project, guest.user.id, ACCESS.GUEST);
    assert.deepEqual((await call(guest.token, {})).json(), refused);
    assert.deepEqual((await call(undefined, {})).json(), refused);
    assert.deepEqual((await call(reporter.token, { id: gid(999999) })).json(), refused);
    assert.deepEqual((await call(reporter.token, { projectPath: 'no/such' })).json(), refused);
    const reader = await t.user({}, ['read_api']);
    await addMember(t, project, reader.user.id, ACCESS.MAINTAINER);
    assert.deepEqual((await call(reader.token, {})).json(), refused);
    const wrong = (await call(reporter.token, { id: 'gid://gitlab/Issue/1' })).json();
    assert.deepEqual(wrong.errors, [
      {
        message: 'Variable $input of type UpdateSentryErrorStatusInput! was provided invalid value for id ("gid://gitlab/Issue/1" does not represent an instance of Gitlab::ErrorTracking::DetailedError)',
        locations: [{ line: 1, column: 10 }],
        extensions: {
          value: { projectPath: project.full_path, id: 'gid://gitlab/Issue/1', status: 'RESOLVED' },
          problems: [{ path: ['id'], explanation: '"gid://gitlab/Issue/1" does not represent an instance of Gitlab::ErrorTracking::DetailedError' }],
        },
      },
    ]);
    assert.equal((await typeError()).status, 'unresolved');
  });
});
