// Project clusters through the API: the entity in its two forms (the token never shown, the domain
// left out when unset), defaults, the list and its pages, updates (a blank token keeps the old one;
// a provisioned cluster keeps its name and connection), deletion, the token sealed at rest, and the
// refusals in the platform's words: parameters, the CA certificate, the API address (local and
// private addresses unless the instance allows them), environment scopes, the namespace, the
// domain, and management projects (the cluster's own namespace only, administered by the caller).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject, setInstanceSettings } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { updateProjectSettings } from '../../domain/settings/project-settings.ts';
import { ClusterEntity, ClusterProjectEntity } from './clusters.schemas.ts';

const CA_CERT = fs.readFileSync(new URL('../../../test/fixtures/kubernetes-ca.pem', import.meta.url), 'utf8').trim();
/** A name that resolves nowhere here: the address check lets it through. */
const API_URL = 'https://kubernetes.example.com:6443';
const REFUSED = { message: { management_project_id: ["Project does not exist or you don't have permission to perform this action"] } };
const DUPLICATED = { message: { environment_scope: ['cannot add duplicated environment scope'] } };

let t: TestApp;
let mia: TestUser;
let dev: TestUser;
let ops: NamespaceRow;
let app: ProjectRow;
let tools: ProjectRow;
let deep: ProjectRow;
let remote: ProjectRow;
let devOwned: ProjectRow;
let archived: ProjectRow;
let noBuilds: ProjectRow;

before(async () => {
  t = await createTestApp();
  mia = await t.user({ username: 'mia' });
  dev = await t.user({ username: 'dev' });
  ops = await createGroup(t, { path: 'ops', name: 'Ops', members: [[mia.user.id, ACCESS.MAINTAINER]] });
  app = await createProject(t, { path: 'app', namespace: ops, members: [[dev.user.id, ACCESS.DEVELOPER]] });
  tools = await createProject(t, { path: 'tools', namespace: ops });
  devOwned = await createProject(t, { path: 'dev-tools', namespace: ops, members: [[dev.user.id, ACCESS.MAINTAINER]] });
  archived = await createProject(t, { path: 'old', namespace: ops, archived: true });
  noBuilds = await createProject(t, { path: 'no-ci', namespace: ops });
  await updateProjectSettings(t.deps.db, noBuilds.id, { features: { builds_access_level: 'disabled' } });
  const sub = await createGroup(t, { path: 'sub', parent: ops });
  deep = await createProject(t, { path: 'deep', namespace: sub });
  const far = await createGroup(t, { path: 'far', members: [[mia.user.id, ACCESS.MAINTAINER]] });
  remote = await createProject(t, { path: 'remote', namespace: far });
});
after(() => t.close());

const url = (suffix = '', p: { id: number } = app) => `/api/v4/projects/${p.id}/clusters${suffix}`;
let sequence = 0;
const scope = () => `env-${++sequence}`;

/** A valid creation body; `platform` replaces fields of platform_kubernetes_attributes. */
function body(fields: Record<string, unknown> = {}, platform: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'production', environment_scope: scope(), ...fields, platform_kubernetes_attributes: { api_url: API_URL, token: 'sample-token', ...platform } };
}

async function create(fields: Record<string, unknown> = {}, platform: Record<string, unknown> = {}, p: { id: number } = app) {
  const res = await t.post(url('/user', p), { token: mia.token, body: body(fields, platform) });
  expectStatus(res, 201);
  return res.json();
}

async function refused(fields: Record<string, unknown>, platform: Record<string, unknown>, status: number, expected: unknown) {
  const before = await t.count('clusters');
  const res = await t.post(url('/user'), { token: mia.token, body: body(fields, platform) });
  expectError(res, status, expected);
  assert.equal(await t.count('clusters'), before, 'a refused cluster was written');
}

describe('POST /projects/:id/clusters/user', () => {
  test('the whole entity with its project; the token is kept sealed and never shown', async () => {
    const res = await t.post(url('/user'), {
      token: mia.token,
      body: {
        name: 'Production cluster',
        domain: 'apps.example.com',
        environment_scope: 'production/*',
        management_project_id: tools.id,
        enabled: false,
        managed: false,
        platform_kubernetes_attributes: { api_url: ` ${API_URL} `, token: ' sample-token\n', ca_cert: `\n${CA_CERT}\n`, namespace: 'My-App', authorization_type: 'abac' },
      },
    });
    expectStatus(res, 201);
    const cluster = res.json();
    expectEntity(cluster, ClusterProjectEntity);
    assert.deepEqual(
      { ...cluster, id: 0, created_at: '', user: cluster.user.username, project: cluster.project.id },
      {
        id: 0,
        name: 'Production cluster',
        created_at: '',
        domain: 'apps.example.com',
        enabled: false,
        managed: false,
        provider_type: 'user',
        platform_type: 'kubernetes',
        environment_scope: 'production/*',
        cluster_type: 'project_type',
        user: 'mia',
        platform_kubernetes: { api_url: API_URL, namespace: 'my-app', authorization_type: 'abac', ca_cert: CA_CERT },
        management_project: {
          id: tools.id,
          description: '',
          name: 'tools',
          name_with_namespace: 'Ops / tools',
          path: 'tools',
          path_with_namespace: 'ops/tools',
          created_at: tools.created_at,
        },
        project: app.id,
      },
    );
    assert.equal(cluster.project.path_with_namespace, 'ops/app');
    assert.equal(cluster.user.web_url, `${BASE_URL}/mia`);
    assert.ok(!res.body.includes('sample-token'), 'the token is shown');

    const row = await t.deps.db.selectFrom('clusters').selectAll().where('id', '=', cluster.id).executeTakeFirstOrThrow();
    assert.ok(!row.token_encrypted.includes('sample-token'), 'the token is kept in clear');
    assert.equal(secretBox(t.deps.config.dataDir).open(row.token_encrypted), 'sample-token');
  });

  test('defaults: enabled, managed, every environment, RBAC; no domain, namespace, certificate nor management project', async () => {
    const res = await t.post(url('/user', tools), { token: mia.token, body: { name: 'minimal', platform_kubernetes_attributes: { api_url: API_URL, token: 't0k3n' } } });
    expectStatus(res, 201);
    const cluster = res.json();
    expectEntity(cluster, ClusterProjectEntity);
    assert.equal('domain' in cluster, false);
    assert.equal(cluster.enabled, true);
    assert.equal(cluster.managed, true);
    assert.equal(cluster.environment_scope, '*');
    assert.deepEqual(cluster.platform_kubernetes, { api_url: API_URL, namespace: null, authorization_type: 'rbac', ca_cert: null });
    assert.equal(cluster.management_project, null);
  });

  test('form-encoded parameters with bracketed platform attributes', async () => {
    const form = new URLSearchParams({
      name: 'from a form',
      environment_scope: scope(),
      'platform_kubernetes_attributes[api_url]': API_URL,
      'platform_kubernetes_attributes[token]': 'form-token',
      'platform_kubernetes_attributes[authorization_type]': 'unknown_authorization',
      enabled: 'false',
    }).toString();
    const res = await t.post(url('/user'), { token: mia.token, form });
    expectStatus(res, 201);
    expectEntity(res.json(), ClusterProjectEntity);
    assert.equal(res.json().platform_kubernetes.authorization_type, 'unknown_authorization');
    assert.equal(res.json().enabled, false);
  });

  test('parameter failures', async () => {
    const post = (b: unknown) => t.post(url('/user'), { token: mia.token, body: b });
    const platform = { api_url: API_URL, token: 'x' };
    expectError(await post({ platform_kubernetes_attributes: platform }), 400, { error: 'name is missing' });
    expectError(await post({ name: 'n' }), 400, { error: 'platform_kubernetes_attributes is missing' });
    expectError(await post({ name: 'n', platform_kubernetes_attributes: 'text' }), 400, { error: 'platform_kubernetes_attributes is invalid' });
    expectError(await post({ name: 'n', platform_kubernetes_attributes: { api_url: API_URL } }), 400, { error: 'platform_kubernetes_attributes[token] is missing' });
    expectError(await post({ name: 'n', platform_kubernetes_attributes: { api_url: ' ', token: 'x' } }), 400, { error: 'platform_kubernetes_attributes[api_url] is empty' });
    expectError(await post({ name: 'n', platform_kubernetes_attributes: { ...platform, authorization_type: 'root' } }), 400, {
      error: 'platform_kubernetes_attributes[authorization_type] does not have a valid value',
    });
    expectError(await post({ name: 'n', enabled: 'maybe', platform_kubernetes_attributes: platform }), 400, { error: 'enabled is invalid' });
    expectError(await post({ name: 'n', managed: [], platform_kubernetes_attributes: platform }), 400, { error: 'managed is invalid' });
    expectError(await post({ name: 'n', management_project_id: 'tools', platform_kubernetes_attributes: platform }), 400, { error: 'management_project_id is invalid' });
    expectError(await post({ name: { a: 1 }, platform_kubernetes_attributes: { ...platform, token: ['x'] } }), 400, {
      error: 'name is invalid, platform_kubernetes_attributes[token] is invalid',
    });
  });

  test('the model’s refusals, in the platform’s order', async () => {
    await refused({ name: '' }, {}, 400, { message: { name: ['has to be present'] } });
    await refused({ name: 'x'.repeat(256) }, {}, 400, { message: { name: ['is too long (maximum is 255 characters)'] } });
    await refused({}, { token: '  ' }, 400, { message: { 'platform_kubernetes.token': ["can't be blank"] } });
    await refused({}, { namespace: 'invalid_namespace' }, 400, {
      message: { 'platform_kubernetes.namespace': ["can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'"] },
    });
    await refused({}, { namespace: 'gitlab-managed-apps' }, 400, { message: { 'platform_kubernetes.namespace': ['is reserved'] } });
    await refused({}, { namespace: 'a'.repeat(64) }, 400, { message: { 'platform_kubernetes.namespace': ['is too long (maximum is 63 characters)'] } });
    await refused({ domain: 'http://not.a.valid.hostname' }, {}, 400, { message: { domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'] } });
    await refused({ domain: '-apps..example.com.' }, {}, 400, {
      message: { domain: ['begins or ends with hyphen', 'must be between 1 and 63 characters long', 'contains invalid characters (valid characters: [a-z0-9\\-])', 'must not contain consecutive dots', 'must not end with a dot'] },
    });
    await refused({ environment_scope: '' }, {}, 400, { message: { environment_scope: ["can't be blank"] } });
    await refused({ environment_scope: 'prod#1' }, {}, 400, { message: { environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] } });
    await refused({ name: '', domain: 'a_b', environment_scope: '!' }, { token: '', namespace: 'UP_' }, 400, {
      message: {
        environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"],
        'platform_kubernetes.namespace': ["can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'"],
        'platform_kubernetes.token': ["can't be blank"],
        name: ['has to be present'],
        domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'],
      },
    });
  });

  test('the CA certificate must parse as a PEM certificate', async () => {
    const message = { message: { 'platform_kubernetes.ca_cert': ['must be a valid PEM certificate'] } };
    await refused({}, { ca_cert: 'not a certificate' }, 400, message);
    await refused({}, { ca_cert: CA_CERT.replace(/[A-Za-z]{8}/, '********') }, 400, message);
    await refused({}, { ca_cert: CA_CERT.replace('BEGIN CERTIFICATE', 'BEGIN PRIVATE KEY') }, 400, message);
    const cluster = await create({}, { ca_cert: `subject=CN = kubernetes-ca\n${CA_CERT}` });
    assert.equal(cluster.platform_kubernetes.ca_cert, `subject=CN = kubernetes-ca\n${CA_CERT}`);
  });

  test('the API address: http(s) only, never this machine nor the local networks, unless the instance allows them', async () => {
    const blocked = (reason: string) => ({ message: { 'platform_kubernetes.api_url': [`is blocked: ${reason}`] } });
    await refused({}, { api_url: 'ftp://kubernetes.example.com' }, 400, blocked('Only allowed schemes are http, https'));
    await refused({}, { api_url: 'kubernetes.example.com' }, 400, blocked('Only allowed schemes are http, https'));
    await refused({}, { api_url: 'https://exa mple.com' }, 400, blocked('URI is invalid'));
    await refused({}, { api_url: 'https://-kubernetes.example.com' }, 400, blocked('Hostname or IP address invalid'));
    await refused({}, { api_url: 'http://localhost:8080' }, 400, blocked('Requests to localhost are not allowed'));
    await refused({}, { api_url: 'https://127.0.0.2:6443' }, 400, blocked('Requests to loopback addresses are not allowed'));
    await refused({}, { api_url: 'https://[::1]:6443' }, 400, blocked('Requests to localhost are not allowed'));
    await refused({}, { api_url: 'https://10.1.2.3' }, 400, blocked('Requests to the local network are not allowed'));
    await refused({}, { api_url: 'https://192.168.0.10:6443/' }, 400, blocked('Requests to the local network are not allowed'));
    await refused({}, { api_url: 'https://[fd00::1]' }, 400, blocked('Requests to the local network are not allowed'));
    await refused({}, { api_url: 'http://169.254.169.254' }, 400, blocked('Requests to the link local network are not allowed'));
    await refused({}, { api_url: 'https://100.64.0.1' }, 400, blocked('Requests to the shared address space are not allowed'));

    const publicAddress = await create({}, { api_url: 'https://203.0.113.7:6443' });
    assert.equal(publicAddress.platform_kubernetes.api_url, 'https://203.0.113.7:6443');

    await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
    try {
      const local = await create({}, { api_url: 'https://10.1.2.3:6443' });
      assert.equal(local.platform_kubernetes.api_url, 'https://10.1.2.3:6443');
      await create({}, { api_url: 'http://localhost:8080' });
      // The scheme is still checked.
      await refused({}, { api_url: 'file:///etc/kubernetes' }, 400, blocked('Only allowed schemes are http, https'));
    } finally {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: false });
    }
  });

  test('one cluster per environment scope in a project, and per management project', async () => {
    const taken = scope();
    await create({ environment_scope: taken });
    await refused({ environment_scope: taken }, {}, 400, DUPLICATED);
    // Another project may use it.
    await create({ environment_scope: taken }, {}, devOwned);

    const managed = scope();
    await create({ environment_scope: managed, management_project_id: tools.id });
    const res = await t.post(url('/user', devOwned), { token: mia.token, body: body({ environment_scope: managed, management_project_id: tools.id }) });
    expectError(res, 400, DUPLICATED);
    await create({ environment_scope: managed }, {}, devOwned);
  });

  test('a management project: of the cluster’s own namespace, whose pipelines the caller administers', async () => {
    for (const candidate of [deep, remote, archived, noBuilds, { id: 987654 }, { id: 0 }]) {
      await refused({ management_project_id: candidate.id }, {}, 400, REFUSED);
    }
    // Checked first, and alone.
    await refused({ name: '', management_project_id: remote.id }, { namespace: 'BAD_' }, 400, REFUSED);
    // A maintainer of the would-be management project who is only a developer here adds no cluster at all.
    expectError(await t.post(url('/user'), { token: dev.token, body: body({ management_project_id: devOwned.id }) }), 403, { message: '403 Forbidden' });
    // A maintainer of the cluster's project alone does not administer its siblings' pipelines.
    const outsider = await t.user({ username: 'outsider' });
    const own = await createProject(t, { path: 'outsiders', namespace: ops, members: [[outsider.user.id, ACCESS.MAINTAINER]] });
    const res = await t.post(url('/user', own), { token: outsider.token, body: body({ management_project_id: tools.id }) });
    expectError(res, 400, REFUSED);
    const ok = await t.post(url('/user', own), { token: outsider.token, body: body({ management_project_id: own.id }) });
    expectStatus(ok, 201);
    assert.equal(ok.json().management_project.id, own.id);
    // Null is none.
    assert.equal((await create({ management_project_id: null })).management_project, null);
  });
});

describe('GET /projects/:id/clusters', () => {
  test('the list form, oldest first, in pages', async () => {
    const project = await createProject(t, { path: 'listed', namespace: ops });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ name: `c${i}` }, {}, project)).id);
    const res = await t.get(url('', project), { token: mia.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ClusterEntity);
    assert.deepEqual(res.json().map((c: { id: number }) => c.id), ids);
    assert.equal(res.headers['x-total'], '3');

    const page = await t.get(url('', project), { token: mia.token, query: { per_page: '2', page: '2' } });
    assert.deepEqual(page.json().map((c: { id: number }) => c.id), [ids[2]]);
    assert.equal(page.headers['x-total-pages'], '2');
    assert.equal(page.headers['x-prev-page'], '1');

    const empty = await createProject(t, { path: 'empty', namespace: ops });
    const none = await t.get(url('', empty), { token: mia.token });
    assert.deepEqual(none.json(), []);
    assert.equal(none.headers['x-total'], '0');
  });
});

describe('GET /projects/:id/clusters/:cluster_id', () => {
  test('one cluster with its project; the record-not-found 404 otherwise', async () => {
    const created = await create({ domain: 'one.example.com' });
    const res = await t.get(url(`/${created.id}`), { token: mia.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ClusterProjectEntity);
    assert.deepEqual(res.json(), created);

    expectError(await t.get(url('/987654'), { token: mia.token }), 404, { message: '404 Not found' });
    const other = await create({}, {}, tools);
    expectError(await t.get(url(`/${other.id}`), { token: mia.token }), 404, { message: '404 Not found' });
    expectError(await t.get(url('/abc'), { token: mia.token }), 400, { error: 'cluster_id is invalid' });
    // The cluster is looked for before the role: a developer gets 404 for a missing one, 403 for another.
    expectError(await t.get(url('/987654'), { token: dev.token }), 404, { message: '404 Not found' });
    expectError(await t.get(url(`/${created.id}`), { token: dev.token }), 403, { message: '403 Forbidden' });
  });
});

describe('PUT /projects/:id/clusters/:cluster_id', () => {
  test('changes what is given; a blank token keeps the old one; a blank domain unsets it', async () => {
    const created = await create({ domain: 'old.example.com', management_project_id: tools.id }, { ca_cert: CA_CERT, authorization_type: 'abac' });
    const res = await t.put(url(`/${created.id}`), {
      token: mia.token,
      body: {
        name: 'renamed',
        enabled: false,
        platform_kubernetes_attributes: { api_url: 'https://new-api.example.com', token: '', namespace: 'New-NS', authorization_type: 'rbac' },
      },
    });
    expectStatus(res, 200);
    const updated = res.json();
    expectEntity(updated, ClusterProjectEntity);
    assert.equal(updated.name, 'renamed');
    assert.equal(updated.enabled, false);
    assert.equal(updated.domain, 'old.example.com');
    // The authorization type is set once.
    assert.deepEqual(updated.platform_kubernetes, { api_url: 'https://new-api.example.com', namespace: 'new-ns', authorization_type: 'abac', ca_cert: CA_CERT });
    assert.equal(updated.management_project.id, tools.id);
    const box = secretBox(t.deps.config.dataDir);
    const tokenOf = async () => box.open((await t.deps.db.selectFrom('clusters').select('token_encrypted').where('id', '=', created.id).executeTakeFirstOrThrow()).token_encrypted);
    assert.equal(await tokenOf(), 'sample-token');

    const again = await t.put(url(`/${created.id}`), {
      token: mia.token,
      body: { domain: '', management_project_id: null, platform_kubernetes_attributes: { token: ' rotated ', ca_cert: '', namespace: '' } },
    });
    expectStatus(again, 200);
    expectEntity(again.json(), ClusterProjectEntity);
    assert.equal('domain' in again.json(), false);
    assert.equal(again.json().management_project, null);
    assert.equal(again.json().platform_kubernetes.ca_cert, null);
    assert.equal(again.json().platform_kubernetes.namespace, null);
    assert.equal(await tokenOf(), 'rotated');
    assert.ok(!again.body.includes('rotated'));
  });

  test('nothing to change leaves it as it was', async () => {
    const created = await create();
    const before = await t.deps.db.selectFrom('clusters').select('updated_at').where('id', '=', created.id).executeTakeFirstOrThrow();
    const res = await t.put(url(`/${created.id}`), { token: mia.token, body: { name: created.name, platform_kubernetes_attributes: { token: 'sample-token' } } });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), created);
    const after = await t.deps.db.selectFrom('clusters').select('updated_at').where('id', '=', created.id).executeTakeFirstOrThrow();
    assert.equal(after.updated_at, before.updated_at);
  });

  test('the same rules as a creation; nothing changes on a refusal', async () => {
    const created = await create();
    const taken = await create();
    const put = (b: unknown) => t.put(url(`/${created.id}`), { token: mia.token, body: b });
    expectError(await put({ environment_scope: taken.environment_scope }), 400, DUPLICATED);
    expectError(await put({ platform_kubernetes_attributes: { ca_cert: 'junk' } }), 400, { message: { 'platform_kubernetes.ca_cert': ['must be a valid PEM certificate'] } });
    expectError(await put({ platform_kubernetes_attributes: { api_url: 'https://10.0.0.1' } }), 400, {
      message: { 'platform_kubernetes.api_url': ['is blocked: Requests to the local network are not allowed'] },
    });
    expectError(await put({ platform_kubernetes_attributes: { api_url: '' } }), 400, {
      message: { 'platform_kubernetes.api_url': ['is blocked: Only allowed schemes are http, https', "can't be blank"] },
    });
    expectError(await put({ name: '' }), 400, { message: { name: ['has to be present'] } });
    expectError(await put({ management_project_id: deep.id, name: '' }), 400, REFUSED);
    expectError(await put({ enabled: 'perhaps' }), 400, { error: 'enabled is invalid' });
    expectError(await put({ platform_kubernetes_attributes: { namespace: ['a'] } }), 400, { error: 'platform_kubernetes_attributes[namespace] is invalid' });
    const res = await t.get(url(`/${created.id}`), { token: mia.token });
    assert.deepEqual(res.json(), created);
    // Keeping its own scope is no duplicate.
    expectStatus(await put({ environment_scope: created.environment_scope }), 200);
  });

  test('a cluster the platform provisioned keeps its name and connection', async () => {
    const at = new Date().toISOString();
    const sealed = secretBox(t.deps.config.dataDir).seal('provider-token');
    const row = await t.deps.db
      .insertInto('clusters')
      .values({ project_id: app.id, user_id: mia.user.id, name: 'gke-cluster', provider_type: 'gcp', environment_scope: scope(), api_url: 'https://35.1.2.3', token_encrypted: sealed, created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow();
    const put = (b: unknown) => t.put(url(`/${row.id}`), { token: mia.token, body: b });
    const base = { message: { 'platform_kubernetes.base': ['Cannot modify managed Kubernetes cluster'] } };
    expectError(await put({ platform_kubernetes_attributes: { api_url: 'https://new-api-url.com', token: 'new-sample-token' } }), 400, base);
    expectError(await put({ platform_kubernetes_attributes: { ca_cert: CA_CERT } }), 400, base);
    expectError(await put({ name: 'new-name' }), 400, { message: { name: ["can not be changed because it's synchronized with provider"] } });
    // The same values are no change; the namespace may change.
    const res = await put({ name: 'gke-cluster', platform_kubernetes_attributes: { api_url: 'https://35.1.2.3', token: 'provider-token', namespace: 'new-namespace' } });
    expectStatus(res, 200);
    expectEntity(res.json(), ClusterProjectEntity);
    assert.equal(res.json().provider_type, 'gcp');
    assert.equal(res.json().platform_kubernetes.namespace, 'new-namespace');
  });
});

describe('DELETE /projects/:id/clusters/:cluster_id', () => {
  test('removes it; 412 when it changed after If-Unmodified-Since; 404 for a cluster it does not have', async () => {
    const created = await create();
    const stale = await t.del(url(`/${created.id}`), { token: mia.token, headers: { 'if-unmodified-since': new Date(Date.now() - 3600_000).toUTCString() } });
    expectError(stale, 412, { message: '412 Precondition Failed' });
    expectStatus(await t.del(url(`/${created.id}`), { token: mia.token }), 204);
    expectError(await t.get(url(`/${created.id}`), { token: mia.token }), 404, { message: '404 Not found' });
    expectError(await t.del(url(`/${created.id}`), { token: mia.token }), 404, { message: '404 Not found' });
  });

  test('what goes with others: a removed management project, a removed user, a removed project', async () => {
    const adder = await t.user({ username: 'adder' });
    const doomedTools = await createProject(t, { path: 'doomed-tools', namespace: ops, members: [[adder.user.id, ACCESS.MAINTAINER]] });
    const project = await createProject(t, { path: 'doomed', namespace: ops, members: [[adder.user.id, ACCESS.MAINTAINER]] });
    const res = await t.post(url('/user', project), { token: adder.token, body: body({ management_project_id: doomedTools.id }) });
    expectStatus(res, 201);
    const id = res.json().id;
    expectStatus(await t.del(`/api/v4/projects/${doomedTools.id}`, { token: ROOT_TOKEN }), 202);
    expectStatus(await t.del(`/api/v4/users/${adder.user.id}`, { token: ROOT_TOKEN, query: { hard_delete: 'true' } }), 204);
    const shown = await t.get(url(`/${id}`, project), { token: mia.token });
    expectStatus(shown, 200);
    expectEntity(shown.json(), ClusterProjectEntity);
    assert.equal(shown.json().management_project, null);
    assert.equal(shown.json().user, null);
    expectStatus(await t.del(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN }), 202);
    assert.equal(await t.deps.db.selectFrom('clusters').select('id').where('id', '=', id).executeTakeFirst(), undefined);
  });
});

describe('an archived project', () => {
  test('its clusters are read and added, not changed nor removed', async () => {
    const res = await t.post(url('/user', archived), { token: mia.token, body: body() });
    expectStatus(res, 201);
    const id = res.json().id;
    expectStatus(await t.get(url('', archived), { token: mia.token }), 200);
    expectStatus(await t.get(url(`/${id}`, archived), { token: mia.token }), 200);
    expectError(await t.put(url(`/${id}`, archived), { token: mia.token, body: { name: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${id}`, archived), { token: mia.token }), 403, { message: '403 Forbidden' });
  });
});
