// A real client against a real socket: @gitbeaker/rest drives users, personal access tokens,
// impersonation tokens and metadata, and must not notice it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from './harness.ts';
import { failureOf, listeningTestApp, statusOf } from './listening.ts';
import { expectEntities, expectEntity } from './matchers.ts';
import { MetadataEntity } from '../src/modules/metadata/metadata.routes.ts';
import {
  ImpersonationTokenEntity,
  ImpersonationTokenWithSecretEntity,
  PersonalAccessTokenEntity,
  PersonalAccessTokenWithSecretEntity,
} from '../src/modules/access-tokens/access-tokens.schemas.ts';
import { UserAdminEntity, UserBasicEntity, UserEntity, UserSelfEntity } from '../src/modules/users/users.schemas.ts';
import { DeployTokenEntity, DeployTokenWithTokenEntity } from '../src/modules/deploy-tokens/deploy-tokens.schemas.ts';

let t: TestApp;
let host: string;
let admin: InstanceType<typeof Gitlab>;

before(async () => {
  ({ t, host } = await listeningTestApp());
  admin = new Gitlab({ host, token: ROOT_TOKEN });
});
after(() => t.close());

describe('users', () => {
  const created: number[] = [];

  test('Users.create', async () => {
    for (let i = 0; i < 7; i++) {
      const user = await admin.Users.create({ email: `gb${i}@example.com`, name: `Gitbeaker ${i}`, username: `gitbeaker${i}`, password: 'secret-pass-123', skipConfirmation: true });
      expectEntity(user, UserAdminEntity);
      assert.equal(user.username, `gitbeaker${i}`);
      created.push(user.id as number);
    }
  });

  test('Users.all walks every page by the Link headers', async () => {
    const users = await admin.Users.all({ perPage: 3 });
    expectEntities(users, UserAdminEntity);
    assert.equal(users.length, 8);
    assert.deepEqual(new Set(users.map((u) => u.id)).size, 8);
  });

  test('Users.all with maxPages and showExpanded reports the pagination', async () => {
    const { data, paginationInfo } = await admin.Users.all({ perPage: 3, maxPages: 2, showExpanded: true });
    expectEntities(data, UserAdminEntity);
    assert.equal(data.length, 6);
    assert.deepEqual(paginationInfo, { total: 8, next: 3, current: 2, previous: 1, perPage: 3, totalPages: 3 });
  });

  test('Users.all with keyset pagination', async () => {
    const users = await admin.Users.all({ pagination: 'keyset', orderBy: 'username', sort: 'asc', perPage: 3 });
    expectEntities(users, UserAdminEntity);
    assert.deepEqual(
      users.map((u) => u.id),
      [...created, 1],
    );
  });

  test('Users.all with a filter, as a user', async () => {
    const { token } = await t.user();
    const client = new Gitlab({ host, token });
    const users = await client.Users.all({ username: 'gitbeaker3' });
    expectEntities(users, UserBasicEntity);
    assert.deepEqual(
      users.map((u) => u.username),
      ['gitbeaker3'],
    );
  });

  test('Users.show', async () => {
    const asAdmin = await admin.Users.show(created[0]);
    expectEntity(asAdmin, UserAdminEntity);
    const { token } = await t.user();
    const asUser = await new Gitlab({ host, token }).Users.show(created[0]);
    expectEntity(asUser, UserEntity);
    assert.equal(asUser.username, 'gitbeaker0');
  });

  test('Users.showCurrentUser', async () => {
    const me = await admin.Users.showCurrentUser();
    expectEntity(me, UserAdminEntity);
    assert.equal(me.username, 'root');
    const { token, user } = await t.user();
    const self = await new Gitlab({ host, token }).Users.showCurrentUser();
    expectEntity(self, UserSelfEntity);
    assert.equal(self.id, user.id);
  });

  test('Users.edit', async () => {
    const edited = await admin.Users.edit(created[1], { bio: 'edited by gitbeaker', name: 'Renamed' });
    expectEntity(edited, UserAdminEntity);
    assert.equal(edited.bio, 'edited by gitbeaker');
    assert.equal(edited.name, 'Renamed');
  });

  test('Users.block and Users.unblock', async () => {
    assert.equal(await admin.Users.block(created[2]), true);
    assert.equal((await admin.Users.show(created[2])).state, 'blocked');
    assert.equal(await admin.Users.unblock(created[2]), true);
    assert.equal((await admin.Users.show(created[2])).state, 'active');
  });

  test('Users.remove', async () => {
    await admin.Users.remove(created[6]);
    const status = await statusOf(admin.Users.show(created[6]));
    assert.equal(status, 404);
  });

  test('a refusal reaches the client as an error with the status', async () => {
    const { token } = await t.user();
    const { status, body } = await failureOf(new Gitlab({ host, token }).Users.create({ email: 'x@example.com', name: 'x', username: 'xx', password: 'secret-pass-123' }));
    assert.equal(status, 403);
    assert.equal(body, '403 Forbidden');
  });

  test('custom attributes', async () => {
    const set = await admin.UserCustomAttributes.set(created[0], 'team', 'core');
    assert.deepEqual(set, { key: 'team', value: 'core' });
    assert.deepEqual(await admin.UserCustomAttributes.all(created[0]), [{ key: 'team', value: 'core' }]);
    assert.deepEqual(await admin.UserCustomAttributes.show(created[0], 'team'), { key: 'team', value: 'core' });
    await admin.UserCustomAttributes.remove(created[0], 'team');
    assert.deepEqual(await admin.UserCustomAttributes.all(created[0]), []);
  });
});

describe('personal access tokens', () => {
  test('create, all, show, revoke; the new token works until revoked', async () => {
    const { user } = await t.user();
    const token = await admin.PersonalAccessTokens.create(user.id, 'from gitbeaker', ['api', 'read_user'], { expiresAt: '2099-01-01' });
    expectEntity(token, PersonalAccessTokenWithSecretEntity);
    assert.equal(token.expires_at, '2099-01-01');
    assert.deepEqual(token.scopes, ['api', 'read_user']);

    const owner = new Gitlab({ host, token: token.token as string });
    assert.equal((await owner.Users.showCurrentUser()).id, user.id);

    const mine = await owner.PersonalAccessTokens.all();
    expectEntities(mine, PersonalAccessTokenEntity);
    assert.ok(mine.some((x) => x.id === token.id));
    const byAdmin = await admin.PersonalAccessTokens.all({ userId: user.id });
    assert.ok(byAdmin.every((x) => x.user_id === user.id));

    const shown = await admin.PersonalAccessTokens.show({ tokenId: token.id as number });
    expectEntity(shown, PersonalAccessTokenEntity);
    const self = await owner.PersonalAccessTokens.show();
    expectEntity(self, PersonalAccessTokenEntity);
    assert.equal(self.id, token.id);

    await admin.PersonalAccessTokens.remove({ tokenId: token.id as number });
    assert.equal(await statusOf(owner.Users.showCurrentUser()), 401);
  });

  test('Users.createPersonalAccessToken', async () => {
    const { user } = await t.user();
    const token = await admin.Users.createPersonalAccessToken(user.id, 'helper', ['read_api']);
    expectEntity(token, PersonalAccessTokenWithSecretEntity);
    assert.equal(token.user_id, user.id);
  });

  test('a token may revoke itself', async () => {
    const { user } = await t.user();
    const token = await admin.PersonalAccessTokens.create(user.id, 'self', ['api']);
    const owner = new Gitlab({ host, token: token.token as string });
    await owner.PersonalAccessTokens.remove();
    assert.equal(await statusOf(owner.Users.showCurrentUser()), 401);
  });
});

describe('impersonation tokens', () => {
  test('create, all, show, revoke', async () => {
    const { user } = await t.user();
    const token = await admin.UserImpersonationTokens.create(user.id, 'impersonate', ['api'], { expiresAt: '2099-01-01' });
    expectEntity(token, ImpersonationTokenWithSecretEntity);
    assert.equal(token.impersonation, true);

    const impersonated = new Gitlab({ host, token: token.token as string });
    assert.equal((await impersonated.Users.showCurrentUser()).id, user.id);

    const all = await admin.UserImpersonationTokens.all(user.id);
    expectEntities(all, ImpersonationTokenEntity);
    assert.deepEqual(
      all.map((x) => x.id),
      [token.id],
    );
    const active = await admin.UserImpersonationTokens.all(user.id, { state: 'active' });
    assert.equal(active.length, 1);

    const shown = await admin.UserImpersonationTokens.show(user.id, token.id as number);
    expectEntity(shown, ImpersonationTokenEntity);

    await admin.UserImpersonationTokens.revoke(user.id, token.id as number);
    assert.equal(await statusOf(impersonated.Users.showCurrentUser()), 401);
    const inactive = await admin.UserImpersonationTokens.all(user.id, { state: 'inactive' });
    assert.deepEqual(
      inactive.map((x) => x.id),
      [token.id],
    );
  });
});

describe('metadata and sudo', () => {
  test('Metadata.show', async () => {
    const metadata = await admin.Metadata.show();
    expectEntity(metadata, MetadataEntity);
  });

  test('sudo through the client', async () => {
    const { user } = await t.user();
    const me = await admin.Users.showCurrentUser({ sudo: user.username });
    expectEntity(me, UserSelfEntity);
    assert.equal(me.id, user.id);
  });

  test('camelized responses', async () => {
    const camel = new Gitlab({ host, token: ROOT_TOKEN, camelize: true });
    const me = await camel.Users.showCurrentUser();
    assert.equal((me as unknown as { isAdmin: boolean }).isAdmin, true);
  });
});

describe('deploy tokens', () => {
  test('DeployTokens.create, all, show and remove, for a project and a group', async () => {
    const group = await admin.Groups.create('Deployers', 'deployers');
    const project = await admin.Projects.create({ name: 'shipped', namespaceId: group.id });
    for (const owner of [{ projectId: project.id }, { groupId: group.id }]) {
      const created = await admin.DeployTokens.create('ci', ['read_repository', 'read_registry'], { ...owner, expires_at: '2035-01-01' });
      expectEntity(created, DeployTokenWithTokenEntity);
      assert.equal(created.username, `gitlab+deploy-token-${created.id}`);
      expectEntities(await admin.DeployTokens.all(owner), DeployTokenEntity);
      const shown = await admin.DeployTokens.show(created.id as number, owner);
      expectEntity(shown, DeployTokenEntity);
      await admin.DeployTokens.remove(created.id as number, owner);
      assert.equal(await statusOf(admin.DeployTokens.show(created.id as number, owner)), 404);
    }
    expectEntities(await admin.DeployTokens.all(), DeployTokenEntity);
  });
});
