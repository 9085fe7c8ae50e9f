// The GraphQL endpoint: who the caller is (every credential of the REST API, anonymous callers
// seeing public data only), the `{data, errors}` answers, the request faults the platform answers
// with other statuses, and connections paged in the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../test/harness.ts';
import { addMember, createProject } from '../../test/factories.ts';
import { ACCESS } from '../core/access/levels.ts';
import type { ProjectRow } from '../db/schema.ts';
import { keysetConnection } from './connection.ts';
import { globalId, parseGlobalId } from './ids.ts';

let t: TestApp;
let alice: TestUser;
let publicProject: ProjectRow;
let privateProject: ProjectRow;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'gqlalice' });
  publicProject = await createProject(t, { path: 'gql-public', visibility: 'public' });
  privateProject = await createProject(t, { path: 'gql-private', visibility: 'private' });
  await addMember(t, privateProject, alice.user.id, ACCESS.REPORTER);
});
after(() => t.close());

const PROJECT = 'query($p: ID!) { project(fullPath: $p) { id name fullPath visibility } }';

async function gql(query: string, options: { variables?: unknown; token?: string; headers?: Record<string, string> } = {}) {
  const res = await t.post('/api/graphql', { token: options.token, headers: options.headers, body: { query, variables: options.variables } });
  return { status: res.statusCode, body: res.json(), res };
}

describe('who the caller is', () => {
  test('anonymous: no current user, public projects only', async () => {
    const me = await gql('{ currentUser { id username } }');
    assert.deepEqual(me, { status: 200, body: { data: { currentUser: null } }, res: me.res });
    const pub = await gql(PROJECT, { variables: { p: publicProject.full_path } });
    assert.deepEqual(pub.body, { data: { project: { id: `gid://gitlab/Project/${publicProject.id}`, name: publicProject.name, fullPath: publicProject.full_path, visibility: 'public' } } });
    const priv = await gql(PROJECT, { variables: { p: privateProject.full_path } });
    assert.deepEqual(priv.body, { data: { project: null } });
  });

  test('PRIVATE-TOKEN, and a member sees the private project', async () => {
    const me = await gql('{ currentUser { id username } }', { token: alice.token });
    assert.deepEqual(me.body, { data: { currentUser: { id: `gid://gitlab/User/${alice.user.id}`, username: 'gqlalice' } } });
    const priv = await gql(PROJECT, { token: alice.token, variables: { p: privateProject.full_path.toUpperCase() } });
    assert.equal((priv.body as { data: { project: { visibility: string } } }).data.project.visibility, 'private');
  });

  test('a non-member does not see the private project', async () => {
    const bob = await t.user();
    assert.deepEqual((await gql(PROJECT, { token: bob.token, variables: { p: privateProject.full_path } })).body, { data: { project: null } });
  });

  test('Bearer personal token, Bearer OAuth token and a read_api token', async () => {
    const bearer = await gql('{ currentUser { username } }', { headers: { authorization: `Bearer ${alice.token}` } });
    assert.deepEqual(bearer.body, { data: { currentUser: { username: 'gqlalice' } } });
    const grant = await t.post('/oauth/token', { form: `grant_type=password&username=gqlalice&password=${PASSWORD}&scope=api` });
    assert.equal(grant.statusCode, 200, grant.body);
    const oauth = await gql('{ currentUser { username } }', { headers: { authorization: `Bearer ${grant.json().access_token}` } });
    assert.deepEqual(oauth.body, { data: { currentUser: { username: 'gqlalice' } } });
    const reader = await t.user({}, ['read_api']);
    assert.equal((await gql('{ currentUser { id } }', { token: reader.token })).status, 200);
  });

  test('the session cookie', async () => {
    const res = await t.post('/users/sign_in', { form: `user[login]=gqlalice&user[password]=${PASSWORD}` });
    const cookie = res.cookies.find((c) => c.name === '_service_session');
    assert.ok(cookie);
    const me = await gql('{ currentUser { username } }', { headers: { cookie: `_service_session=${cookie.value}` } });
    assert.deepEqual(me.body, { data: { currentUser: { username: 'gqlalice' } } });
  });

  test('a credential that does not authenticate: 401 Invalid token', async () => {
    const wrong = await gql('{ currentUser { id } }', { token: 'glpat-not-a-real-token-000' });
    assert.deepEqual([wrong.status, wrong.body], [401, { errors: [{ message: 'Invalid token' }] }]);
    const bearer = await gql('{ currentUser { id } }', { headers: { authorization: 'Bearer nope' } });
    assert.equal(bearer.status, 401);
    const noScope = await t.user({}, ['read_user']);
    assert.deepEqual((await gql('{ currentUser { id } }', { token: noScope.token })).body, { errors: [{ message: 'Invalid token' }] });
  });
});

describe('answers', () => {
  test('a syntax error: 200 with errors and their locations', async () => {
    const res = await gql('{ currentUser { id }');
    assert.equal(res.status, 200);
    const body = res.body as { errors: { message: string; locations: unknown[] }[]; data?: unknown };
    assert.equal(body.errors.length, 1);
    assert.match(body.errors[0].message, /Syntax Error/);
    assert.deepEqual(body.errors[0].locations, [{ line: 1, column: 21 }]);
    assert.equal('data' in body, false);
  });

  test('an unknown field: 200 with the validation error', async () => {
    const res = await gql('{ nothingHere }');
    assert.equal(res.status, 200);
    assert.match((res.body as { errors: { message: string }[] }).errors[0].message, /^Field 'nothingHere' doesn't exist on type 'Query'$/);
  });

  test('no query: 200 with the platform message', async () => {
    assert.deepEqual((await gql('')).body, { errors: [{ message: 'No query string was present' }] });
  });

  test('GET with query parameters, variables as JSON text', async () => {
    const res = await t.get('/api/graphql', { token: alice.token, query: { query: PROJECT, variables: JSON.stringify({ p: publicProject.full_path }) } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.project.name, publicProject.name);
  });

  test('a mutation sent with GET: 422', async () => {
    const res = await t.get('/api/graphql', { query: { query: 'mutation { x }' } });
    assert.deepEqual([res.statusCode, res.json()], [422, { errors: [{ message: 'Mutations are forbidden in GET requests' }] }]);
  });

  test('unreadable variables: 422', async () => {
    const res = await t.post('/api/graphql', { body: { query: PROJECT, variables: '{nope' } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().errors.length, 1);
    assert.equal((await t.post('/api/graphql', { body: { query: PROJECT, variables: '[1]' } })).statusCode, 422);
  });

  test('a missing variable is the query fault: 200', async () => {
    const res = await gql(PROJECT);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      errors: [{ message: 'Variable $p of type ID! was provided invalid value', locations: [{ line: 1, column: 7 }], extensions: { value: null, problems: [{ path: [], explanation: 'Expected value to not be null' }] } }],
    });
  });

  test('a query over 10,000 characters: 422 Query too large', async () => {
    const res = await gql(`{ currentUser { id } }${' '.repeat(10_000)}`);
    assert.deepEqual([res.status, res.body], [422, { errors: [{ message: 'Query too large' }] }]);
  });

  test('a query nested too deeply is refused', async () => {
    const deep = `{ ${'__schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } } } }'} }`;
    const res = await gql(deep);
    assert.equal(res.status, 200);
    assert.match((res.body as { errors: { message: string }[] }).errors[0].message, /exceeds max depth of 15/);
  });

  test('a batch: one answer per query, in order', async () => {
    const res = await t.post('/api/graphql', { token: ROOT_TOKEN, body: [{ query: '{ currentUser { username } }' }, { query: '{ nope }' }] });
    assert.equal(res.statusCode, 200);
    const [first, second] = res.json();
    assert.deepEqual(first, { data: { currentUser: { username: 'root' } } });
    assert.ok(second.errors);
  });

  test('introspection names the types', async () => {
    const res = await gql('{ __type(name: "Project") { fields { name } } }');
    const names = (res.body as { data: { __type: { fields: { name: string }[] } } }).data.__type.fields.map((f) => f.name);
    for (const name of ['id', 'name', 'fullPath', 'visibility']) assert.ok(names.includes(name), name);
  });
});

describe('global IDs', () => {
  test('made and read back; another model or text is refused', () => {
    assert.equal(globalId('Project', 7), 'gid://gitlab/Project/7');
    assert.equal(parseGlobalId('gid://gitlab/Project/7', 'Project'), 7);
    assert.throws(() => parseGlobalId('gid://gitlab/Issue/7', 'Project'), /does not represent an instance of Project/);
    assert.throws(() => parseGlobalId('7', 'Project'), /is not a valid Global ID/);
  });
});

describe('connections', () => {
  test('first/after and last/before page in the database, with counts and page info', async () => {
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push((await t.user({ username: `gqlpage${i}` })).user.id);
    const list = () => ({
      query: t.deps.db.selectFrom('users').selectAll().where('username', 'like', 'gqlpage%'),
      keys: [{ column: 'id', direction: 'desc' as const, value: (row: { id: number }) => row.id }],
      count: async () => Number((await t.deps.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('username', 'like', 'gqlpage%').executeTakeFirstOrThrow()).n),
    });
    const descending = [...made].reverse();
    const first = await keysetConnection(list(), { first: 2 });
    assert.deepEqual(first.nodes.map((u) => u.id), descending.slice(0, 2));
    assert.deepEqual(first.pageInfo, { hasNextPage: true, hasPreviousPage: false, startCursor: first.edges[0].cursor, endCursor: first.edges[1].cursor });
    assert.equal(await first.count(), 5);
    const second = await keysetConnection(list(), { first: 2, after: first.pageInfo.endCursor });
    assert.deepEqual(second.nodes.map((u) => u.id), descending.slice(2, 4));
    const third = await keysetConnection(list(), { first: 2, after: second.pageInfo.endCursor });
    assert.deepEqual(third.nodes.map((u) => u.id), descending.slice(4));
    assert.equal(third.pageInfo.hasNextPage, false);
    const last = await keysetConnection(list(), { last: 2 });
    assert.deepEqual(last.nodes.map((u) => u.id), descending.slice(3));
    assert.equal(last.pageInfo.hasPreviousPage, true);
    const before = await keysetConnection(list(), { last: 2, before: last.pageInfo.startCursor });
    assert.deepEqual(before.nodes.map((u) => u.id), descending.slice(1, 3));
    await assert.rejects(keysetConnection(list(), { first: 1, after: 'garbage' }), /valid cursor/);
  });
});
