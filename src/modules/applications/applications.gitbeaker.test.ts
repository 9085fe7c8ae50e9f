// A real client against a real socket: @gitbeaker/rest registers, lists and removes OAuth
// applications, and the registered client goes through the authorization-code flow.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { PASSWORD, ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ApplicationEntity, ApplicationWithSecretEntity } from './applications.schemas.ts';

let t: TestApp;
let host: string;
let api: InstanceType<typeof Gitlab>;

before(async () => {
  ({ t, host } = await listeningTestApp());
  api = new Gitlab({ host, token: ROOT_TOKEN });
});
after(() => t.close());

test('Applications.create, all and remove; a regular user is refused', async () => {
  const created = await api.Applications.create('Gitbeaker client', 'https://client.example/cb', 'api read_user', { confidential: false });
  expectEntity(created, ApplicationWithSecretEntity);
  assert.equal(created.confidential, false);
  const all = await api.Applications.all();
  expectEntities(all, ApplicationEntity);
  assert.ok(all.some((a) => a.id === created.id));

  const user = await t.user();
  const asUser = new Gitlab({ host, token: user.token });
  assert.equal((await failureOf(asUser.Applications.all())).status, 403);

  await api.Applications.remove(created.id as number);
  assert.ok(!(await api.Applications.all()).some((a) => a.id === created.id));
  assert.equal((await failureOf(api.Applications.remove(created.id as number))).status, 404);
});

test('the registered client signs a user in through the authorization-code flow, over HTTP', async () => {
  const app = await api.Applications.create('Flow', 'https://client.example/cb', 'read_user');
  const user = await t.user();
  const signIn = await fetch(`${host}/users/sign_in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'user[login]': user.user.username, 'user[password]': PASSWORD }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const query = new URLSearchParams({ client_id: app.application_id as string, redirect_uri: 'https://client.example/cb', response_type: 'code', scope: 'read_user', state: 's1' });
  const consent = await fetch(`${host}/oauth/authorize?${query}`, { headers: { cookie } });
  assert.equal(consent.status, 200);
  const csrf = /name="authenticity_token" value="([^"]+)"/.exec(await consent.text())?.[1];
  assert.ok(csrf);
  const approved = await fetch(`${host}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...Object.fromEntries(query), authenticity_token: csrf }) });
  assert.equal(approved.status, 302);
  const code = new URL(approved.headers.get('location') as string).searchParams.get('code') as string;
  const token = await fetch(`${host}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/cb', client_id: app.application_id as string, client_secret: app.secret as string }),
  });
  assert.equal(token.status, 200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const asUser = new Gitlab({ host, oauthToken: accessToken });
  assert.equal((await asUser.Users.showCurrentUser()).id, user.user.id);
});
