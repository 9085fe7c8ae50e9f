// Deploy tokens through the API (create with defaults and every option, the platform's refusals,
// lists with the active filter, delete) and through git over HTTP with the real git CLI: a token
// clones what it reaches with read_repository, never pushes, and nothing else.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { DeployTokenEntity, DeployTokenWithTokenEntity } from './deploy-tokens.schemas.ts';

let t: TestApp;
let host: string;
let git: GitCli;
let maintainer: TestUser;
let group: NamespaceRow;
let project: ProjectRow;
let nested: ProjectRow;
let other: ProjectRow;

async function repositoryProject(name: string, namespaceId: number): Promise<ProjectRow> {
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, path: name, namespace_id: namespaceId, initialize_with_readme: true } });
  assert.equal(res.statusCode, 201, res.body);
  return t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
}

before(async () => {
  ({ t, host } = await listeningTestApp());
  git = gitCli();
  maintainer = await t.user({ username: 'keeper' });
  group = await createGroup(t, { path: 'fleet', members: [[maintainer.user.id, ACCESS.OWNER]] });
  const sub = await createGroup(t, { path: 'ships', parent: group });
  project = await repositoryProject('app', group.id);
  nested = await repositoryProject('deep', sub.id);
  other = await repositoryProject('elsewhere', (await createGroup(t, { path: 'harbour' })).id);
});
after(async () => {
  git.close();
  await t.close();
});

const projectUrl = (suffix = '', p: { id: number } = project) => `/api/v4/projects/${p.id}/deploy_tokens${suffix}`;
const groupUrl = (suffix = '') => `/api/v4/groups/${group.id}/deploy_tokens${suffix}`;

async function newToken(url: string, body: Record<string, unknown> = {}): Promise<{ id: number; username: string; token: string }> {
  const res = await t.post(url, { token: maintainer.token, body: { name: 'ci', scopes: ['read_repository'], ...body } });
  expectStatus(res, 201);
  return res.json();
}

describe('the API', () => {
  test('creates a token with the defaults: its own username, no expiry, the secret once', async () => {
    const res = await t.post(projectUrl(), { token: maintainer.token, body: { name: 'deploy', scopes: ['write_registry', 'read_repository'] } });
    expectStatus(res, 201);
    expectEntity(res.json(), DeployTokenWithTokenEntity);
    const { id, token } = res.json();
    assert.deepEqual(res.json(), {
      id,
      name: 'deploy',
      username: `gitlab+deploy-token-${id}`,
      expires_at: null,
      scopes: ['read_repository', 'write_registry'],
      revoked: false,
      expired: false,
      token,
    });
    assert.match(token, /^[A-Za-z0-9_-]{20}$/);
    const shown = await t.get(projectUrl(`/${id}`), { token: maintainer.token });
    expectEntity(shown.json(), DeployTokenEntity);
    assert.equal('token' in shown.json(), false);
  });

  test('every option, as JSON or as form parameters with a comma list', async () => {
    const res = await t.post(groupUrl(), { token: maintainer.token, body: { name: 'release', scopes: ['read_package_registry'], username: 'robot.deployer+1', expires_at: '2031-03-04' } });
    expectStatus(res, 201);
    assert.deepEqual([res.json().username, res.json().expires_at, res.json().scopes], ['robot.deployer+1', '2031-03-04T00:00:00.000Z', ['read_package_registry']]);
    const form = await t.post(projectUrl(), { token: maintainer.token, form: 'name=f&scopes=read_registry,read_repository&expires_at=2030-01-02T03:04:05Z' });
    expectStatus(form, 201);
    assert.deepEqual([form.json().scopes, form.json().expires_at], [['read_repository', 'read_registry'], '2030-01-02T03:04:05.000Z']);
  });

  test('refusals: parameter errors, the model messages, unknown tokens', async () => {
    const before = await t.deps.db.selectFrom('deploy_tokens').select('id').execute();
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: {} }), 400, { error: 'name is missing, scopes is missing' });
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: { name: 'x', scopes: ['api'] } }), 400, { error: 'scopes does not have a valid value' });
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: { name: 'x', scopes: [] } }), 400, { message: "Scopes can't be blank" });
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: { name: 'x', scopes: ['read_repository'], username: 'no spaces' } }), 400, {
      message: "Username can contain only letters, digits, '_', '-', '+', and '.'",
    });
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: { name: 'x'.repeat(256), scopes: [], username: 'é' } }), 400, {
      message: "Scopes can't be blank, Username can contain only letters, digits, '_', '-', '+', and '.', and Name is too long (maximum is 255 characters)",
    });
    expectError(await t.post(projectUrl(), { token: maintainer.token, body: { name: 'x', scopes: ['read_repository'], expires_at: 'soon' } }), 400, { error: 'expires_at is invalid' });
    assert.deepEqual(await t.deps.db.selectFrom('deploy_tokens').select('id').execute(), before);
    expectError(await t.get(projectUrl('/abc'), { token: maintainer.token }), 400, { error: 'token_id is invalid' });
    expectError(await t.get(projectUrl('/999999'), { token: maintainer.token }), 404, { message: '404 Not found' });
    // A group's token is not its projects', nor one project's another's.
    const groupToken = await newToken(groupUrl());
    expectError(await t.get(projectUrl(`/${groupToken.id}`), { token: maintainer.token }), 404, { message: '404 Not found' });
    expectError(await t.del(projectUrl(`/${groupToken.id}`), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get(projectUrl(`/${groupToken.id}`, other), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  });

  test('lists by id, paginated; active=true leaves out the expired and the revoked', async () => {
    const own = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    const live = await newToken(projectUrl('', own));
    const expired = await newToken(projectUrl('', own), { expires_at: '2020-01-01' });
    const revoked = await newToken(projectUrl('', own));
    await t.deps.db.updateTable('deploy_tokens').set({ revoked: true }).where('id', '=', revoked.id).execute();
    const all = await t.get(projectUrl('', own), { token: maintainer.token, query: { per_page: '2' } });
    expectStatus(all, 200);
    expectEntities(all.json(), DeployTokenEntity);
    assert.deepEqual([all.json().map((x: { id: number }) => x.id), all.headers['x-total']], [[live.id, expired.id], '3']);
    assert.deepEqual(all.json()[1].expired, true);
    const active = await t.get(projectUrl('', own), { token: maintainer.token, query: { active: 'true' } });
    assert.deepEqual(active.json().map((x: { id: number }) => x.id), [live.id]);
    const every = await t.get('/api/v4/deploy_tokens', { token: ROOT_TOKEN, query: { per_page: '100' } });
    expectEntities(every.json(), DeployTokenEntity);
    assert.ok([live.id, expired.id, revoked.id].every((id) => every.json().some((x: { id: number }) => x.id === id)));
  });

  test('deletes: 204, then 404; a project takes its tokens with it', async () => {
    const token = await newToken(projectUrl());
    expectStatus(await t.del(projectUrl(`/${token.id}`), { token: maintainer.token }), 204);
    expectError(await t.del(projectUrl(`/${token.id}`), { token: maintainer.token }), 404, { message: '404 Not found' });
    const doomed = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    const kept = await newToken(projectUrl('', doomed));
    await t.deps.db.deleteFrom('projects').where('id', '=', doomed.id).execute();
    assert.equal(await t.deps.db.selectFrom('deploy_tokens').select('id').where('id', '=', kept.id).executeTakeFirst(), undefined);
  });
});

describe('git over HTTP', () => {
  const credentials = (token: { username: string; token: string }) => ({ login: token.username, password: token.token });

  async function clone(url: string) {
    const dir = path.join(git.root, `clone-${randomBytes(4).toString('hex')}`);
    return { ...(await git.run(['clone', '--quiet', url, dir])), dir };
  }

  test('a project token clones its project and may not push', async () => {
    const token = await newToken(projectUrl());
    const { code, stderr, dir } = await clone(gitUrl(host, project.full_path, credentials(token)));
    assert.equal(code, 0, stderr);
    await git.commit(dir, 'x.txt', 'x\n', 'Add x');
    const pushed = await git.run(['push', 'origin', 'HEAD:feature'], dir);
    assert.notEqual(pushed.code, 0);
    assert.match(pushed.stderr, /You are not allowed to upload code\./);
    // Another project, under its own name: as if no credentials matched.
    const elsewhere = await clone(gitUrl(host, other.full_path, credentials(token)));
    assert.notEqual(elsewhere.code, 0);
    assert.match(elsewhere.stderr, /Authentication failed|HTTP Basic: Access denied/);
  });

  test('a group token clones the projects of the group and its subgroups', async () => {
    const token = await newToken(groupUrl());
    for (const target of [project, nested]) {
      const { code, stderr } = await clone(gitUrl(host, target.full_path, credentials(token)));
      assert.equal(code, 0, `${target.full_path}: ${stderr}`);
    }
    assert.notEqual((await clone(gitUrl(host, other.full_path, credentials(token)))).code, 0);
  });

  test('refused: without read_repository, under another name, expired, deleted', async () => {
    const registryOnly = await newToken(projectUrl(), { scopes: ['read_registry'] });
    const info = (login: string, password: string) =>
      fetch(`${host}/${project.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` } });
    const noScope = await info(registryOnly.username, registryOnly.token);
    assert.deepEqual([noScope.status, await noScope.text()], [403, 'You are not allowed to download code.']);
    const token = await newToken(projectUrl());
    assert.equal((await info(token.username, token.token)).status, 200);
    assert.equal((await info('someone-else', token.token)).status, 401);
    await t.deps.db.updateTable('deploy_tokens').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', token.id).execute();
    assert.equal((await info(token.username, token.token)).status, 401);
    const deleted = await newToken(projectUrl());
    expectStatus(await t.del(projectUrl(`/${deleted.id}`), { token: maintainer.token }), 204);
    assert.equal((await info(deleted.username, deleted.token)).status, 401);
  });
});
