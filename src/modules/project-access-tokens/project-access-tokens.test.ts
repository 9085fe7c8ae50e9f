// Project access tokens: the bot user, its membership and token behind each one; listing,
// showing, revoking; the platform's refusals; and who may call each route.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { addMember, createProject, personalNamespace } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { UserSelfEntity } from '../users/users.schemas.ts';
import { ProjectAccessTokenEntity, ProjectAccessTokenWithSecretEntity } from './project-access-tokens.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let developer: TestUser;
let project: ProjectRow;
const NOW = new Date('2030-05-10T12:00:00.000Z');

before(async () => {
  t = await createTestApp({}, { now: () => NOW });
  maintainer = await t.user({ name: 'Mia Maintainer' });
  developer = await t.user({ name: 'Dev Eloper' });
});
after(() => t.close());

beforeEach(async () => {
  project = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER], [developer.user.id, ACCESS.DEVELOPER]] });
});

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/access_tokens${suffix}`;
const create = (body: Record<string, unknown> = {}, token = maintainer.token, p = project) => t.post(url('', p), { token, body: { name: 'deploy', scopes: ['api'], ...body } });

describe('POST /projects/:id/access_tokens', () => {
  test('creates a bot user, its membership and its token, which authenticates like a personal one', async () => {
    const res = await create({ name: 'CI bot', scopes: ['read_api', 'read_repository'], expires_at: '2030-12-31', access_level: ACCESS.DEVELOPER });
    expectStatus(res, 201);
    expectEntity(res.json(), ProjectAccessTokenWithSecretEntity);
    const body = res.json();
    assert.deepEqual({ ...body, id: 0, user_id: 0, token: '' }, {
      id: 0,
      name: 'CI bot',
      revoked: false,
      created_at: NOW.toISOString(),
      scopes: ['read_api', 'read_repository'],
      user_id: 0,
      last_used_at: null,
      active: true,
      expires_at: '2030-12-31',
      access_level: ACCESS.DEVELOPER,
      token: '',
    });
    assert.match(body.token, /^glpat-/);
    const bot = await t.deps.db.selectFrom('users').selectAll().where('id', '=', body.user_id).executeTakeFirstOrThrow();
    assert.match(bot.username, new RegExp(`^project_${project.id}_bot_[0-9a-f]{32}$`));
    assert.equal(bot.email, `${bot.username}@noreply.quarry.test`);
    assert.equal(bot.user_type, 'project_bot');
    assert.equal(bot.name, 'CI bot');
    assert.ok(bot.confirmed_at);
    const member = await t.deps.db.selectFrom('members').selectAll().where('user_id', '=', bot.id).executeTakeFirstOrThrow();
    assert.deepEqual([member.source_type, member.source_id, member.access_level, member.expires_at], ['Project', project.id, ACCESS.DEVELOPER, '2030-12-31']);
    const joined = await t.deps.db.selectFrom('events').select(['action', 'project_id']).where('author_id', '=', bot.id).execute();
    assert.deepEqual(joined.map((e) => ({ ...e })), [{ action: 'joined', project_id: project.id }]);

    const self = await t.get('/api/v4/user', { token: body.token });
    expectStatus(self, 200);
    expectEntity(self.json(), UserSelfEntity);
    assert.equal(self.json().bot, true);
    // Scopes apply: read_api reads, and may not write.
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token: body.token }), 200);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/members`, { token: body.token, body: { user_id: 1, access_level: 10 } }), 403);
  });

  test('defaults: maintainer level, no expiry', async () => {
    const res = await create();
    expectStatus(res, 201);
    assert.equal(res.json().access_level, ACCESS.MAINTAINER);
    assert.equal(res.json().expires_at, null);
  });

  test('parameter errors', async () => {
    expectError(await t.post(url(), { token: maintainer.token, body: {} }), 400, { error: 'name is missing, scopes is missing' });
    expectError(await create({ expires_at: 'someday' }), 400, { error: 'expires_at is invalid' });
    expectError(await create({ access_level: 'high' }), 400, { error: 'access_level is invalid' });
  });

  test('refusals of the models behind it leave nothing behind', async () => {
    const users = await t.count('users');
    const provision = { message: '400 Bad request - Could not provision maintainer access to project access token' };
    expectError(await create({ access_level: ACCESS.OWNER }), 400, provision);
    expectError(await create({ expires_at: '2030-05-09' }), 400, provision);
    expectError(await create({ scopes: ['sudo'] }), 400, { message: '400 Bad request - Scopes can only contain available scopes' });
    expectError(await create({ scopes: ['api', 'everything'] }), 400, { message: '400 Bad request - Scopes can only contain available scopes' });
    expectError(await create({ scopes: [] }), 400, { message: '400 Bad request - Scopes can\'t be blank' });
    expectError(await create({ name: ' ' }), 400, { message: "400 Bad request - Name can't be blank" });
    assert.equal(await t.count('users'), users);
  });

  test('a developer, or a project access token, may not create one', async () => {
    const refused = { message: '400 Bad request - User does not have permission to create project access token' };
    expectError(await create({}, developer.token), 400, refused);
    const { token } = (await create()).json();
    expectError(await create({}, token), 400, refused);
  });

  test('unknown project: 404; anonymous: 401', async () => {
    expectError(await t.post('/api/v4/projects/99999/access_tokens', { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api'] } }), 404, { message: '404 Project Not Found' });
    expectError(await t.post(url(), { body: { name: 'x', scopes: ['api'] } }), 401, { message: '401 Unauthorized' });
  });
});

describe('GET /projects/:id/access_tokens(/:token_id)', () => {
  test("the tokens of the project's bots, oldest first, expired ones included", async () => {
    const first = (await create({ name: 'one' })).json();
    const second = (await create({ name: 'two', access_level: ACCESS.REPORTER, expires_at: '2030-05-10' })).json();
    // Other projects' bots and people's own tokens are not listed.
    const other = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    expectStatus(await create({}, maintainer.token, other), 201);
    const res = await t.get(url(), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ProjectAccessTokenEntity);
    const { token: _a, ...one } = first;
    const { token: _b, ...two } = second;
    assert.deepEqual(res.json(), [one, { ...two, active: false }]);
    assert.equal(res.headers['x-total'], '2');

    const shown = await t.get(url(`/${first.id}`), { token: maintainer.token });
    expectStatus(shown, 200);
    expectEntity(shown.json(), ProjectAccessTokenEntity);
    assert.deepEqual(shown.json(), one);
  });

  test('a token of another project, an unknown or malformed id: 404 with the token id', async () => {
    const other = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    const foreign = (await create({}, maintainer.token, other)).json();
    for (const id of [String(foreign.id), '99999', 'abc']) {
      expectError(await t.get(url(`/${id}`), { token: maintainer.token }), 404, { message: `404 Could not find project access token with token_id: ${id} Not Found` });
    }
  });

  test('a developer gets 401, as the platform answers', async () => {
    const { id } = (await create()).json();
    expectError(await t.get(url(), { token: developer.token }), 401, { message: '401 Unauthorized' });
    expectError(await t.get(url(`/${id}`), { token: developer.token }), 401, { message: '401 Unauthorized' });
  });
});

describe('DELETE /projects/:id/access_tokens/:token_id', () => {
  test('revokes: 204, the bot user gone with its membership, the token refused', async () => {
    const { id, token, user_id: botId } = (await create()).json();
    const res = await t.del(url(`/${id}`), { token: maintainer.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.equal(await t.deps.db.selectFrom('users').select('id').where('id', '=', botId).executeTakeFirst(), undefined);
    assert.equal(await t.deps.db.selectFrom('members').select('id').where('user_id', '=', botId).executeTakeFirst(), undefined);
    expectError(await t.get('/api/v4/user', { token }), 401, { message: '401 Unauthorized' });
    assert.deepEqual((await t.get(url(), { token: maintainer.token })).json(), []);
    expectError(await t.del(url(`/${id}`), { token: maintainer.token }), 404, { message: `404 Could not find project access token with token_id: ${id} Not Found` });
  });

  test('a developer may not: 400 naming both', async () => {
    const { id } = (await create({ name: 'Release bot' })).json();
    expectError(await t.del(url(`/${id}`), { token: developer.token }), 400, { message: '400 Bad request - Dev Eloper cannot delete Release bot' });
  });
});

describe('who may call', () => {
  let world: MatrixWorld;
  before(async () => {
    world = await buildMatrixWorld(t);
  });

  const readRule = expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER, denied: 401 });

  test('GET …/access_tokens: maintainers, owners, administrators; other readers 401', async () => {
    await runMatrix(world, {
      expect: readRule,
      errors: refusals('Project'),
      call: (c) => t.get(`/api/v4/projects/${c.project.id}/access_tokens`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), ProjectAccessTokenEntity),
    });
  });

  test('POST …/access_tokens: maintainers, owners, administrators; other readers 400', async () => {
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.MAINTAINER, denied: 400 }),
      errors: refusals('Project', { 400: { message: '400 Bad request - User does not have permission to create project access token' } }),
      call: (c) => t.post(`/api/v4/projects/${c.project.id}/access_tokens`, { token: c.caller.token, body: { name: 'm', scopes: ['api'] } }),
      verify: (res) => expectEntity(res.json(), ProjectAccessTokenWithSecretEntity),
    });
  });

  test('GET and DELETE …/access_tokens/:token_id: the same callers', async () => {
    await runMatrix(world, {
      expect: readRule,
      errors: refusals('Project'),
      call: async (c) => {
        const { id } = (await t.post(`/api/v4/projects/${c.project.id}/access_tokens`, { token: ROOT_TOKEN, body: { name: 'm', scopes: ['api'] } })).json();
        return t.get(`/api/v4/projects/${c.project.id}/access_tokens/${id}`, { token: c.caller.token });
      },
      verify: (res) => expectEntity(res.json(), ProjectAccessTokenEntity),
    });
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.MAINTAINER, denied: 400 }),
      errors: refusals('Project'),
      call: async (c) => {
        const { id } = (await t.post(`/api/v4/projects/${c.project.id}/access_tokens`, { token: ROOT_TOKEN, body: { name: 'm', scopes: ['api'] } })).json();
        return t.del(`/api/v4/projects/${c.project.id}/access_tokens/${id}`, { token: c.caller.token });
      },
    });
  });

  test('a personal project: its owner may create tokens', async () => {
    const owner = await t.user();
    const mine = await createProject(t, { namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id });
    expectStatus(await create({}, owner.token, mine), 201);
    await addMember(t, mine, developer.user.id, ACCESS.DEVELOPER);
    expectError(await t.get(url('', mine), { token: developer.token }), 401, { message: '401 Unauthorized' });
  });
});
