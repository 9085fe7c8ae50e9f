// A real client against a listening server: @gitbeaker/rest keeps a user's status, further email
// addresses and GPG keys, and reads the verdict on a GPG-signed commit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { createProject } from '../../../test/factories.ts';
import { gpgKey, signedCommit } from '../../../test/fixtures/gpg.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { EmailEntity } from '../emails/emails.schemas.ts';
import { UserStatusEntity } from '../user-status/user-status.schemas.ts';
import { CommitSignatureEntity, GpgKeyEntity } from './gpg-keys.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: Users.editStatus and showStatus', async () => {
  const user = await t.user({ username: 'beaker-status' });
  const api = new Gitlab({ host, token: user.token });
  const status = await api.Users.editStatus({ emoji: 'coffee', message: 'Brewing', clearStatusAfter: '1_day' });
  expectEntity(status, UserStatusEntity);
  assert.deepEqual([status.emoji, status.message, status.message_html], ['coffee', 'Brewing', 'Brewing']);
  assert.ok(status.clear_status_at);
  expectEntity(await api.Users.showStatus(), UserStatusEntity);
  const other = await new Gitlab({ host, token: ROOT_TOKEN }).Users.showStatus({ iDOrUsername: 'beaker-status' });
  assert.equal(other.message, 'Brewing');
  assert.equal((await failureOf(api.Users.showStatus({ iDOrUsername: 'nobody-here' }))).status, 404);
});

test('@gitbeaker/rest: UserEmails, own and administered', async () => {
  const user = await t.user({ username: 'beaker-emails' });
  const api = new Gitlab({ host, token: user.token });
  const email = await api.UserEmails.add('beaker.second@example.com');
  expectEntity(email, EmailEntity);
  expectEntities(await api.UserEmails.all(), EmailEntity);
  expectEntity(await api.UserEmails.show(email.id as number), EmailEntity);
  const taken = await failureOf(api.UserEmails.add('beaker.second@example.com'));
  assert.equal(taken.status, 400);
  await api.UserEmails.remove(email.id as number);
  assert.deepEqual(await api.UserEmails.all(), []);

  const admin = new Gitlab({ host, token: ROOT_TOKEN });
  const given = await admin.UserEmails.add('beaker.given@example.com', { userId: user.user.id, skipConfirmation: true });
  expectEntity(given, EmailEntity);
  assert.notEqual(given.confirmed_at, null);
  assert.deepEqual((await admin.UserEmails.all({ userId: user.user.id })).map((e) => e.email), ['beaker.given@example.com']);
  await admin.UserEmails.remove(given.id as number, { userId: user.user.id });
});

test('@gitbeaker/rest: UserGPGKeys and Commits.showGPGSignature', async () => {
  const user = await t.user({ username: 'beaker-gpg', email: 'beaker-gpg@example.com', skip_confirmation: true });
  const api = new Gitlab({ host, token: user.token });
  const key = await gpgKey([{ name: 'Beaker', email: 'beaker-gpg@example.com' }]);
  const added = await api.UserGPGKeys.add(key.publicKey);
  expectEntity(added, GpgKeyEntity);
  expectEntities(await api.UserGPGKeys.all(), GpgKeyEntity);
  expectEntity(await api.UserGPGKeys.show(added.id as number), GpgKeyEntity);
  expectEntities(await api.UserGPGKeys.all({ userId: user.user.id }), GpgKeyEntity);
  assert.equal((await failureOf(api.UserGPGKeys.add('not a key'))).status, 400);

  const project = await createProject(t, { visibility: 'public', creatorId: user.user.id });
  const repo = await giveRepository(t, project);
  const sha = await signedCommit(repo.dir, repo.head, key, { name: 'Beaker', email: 'beaker-gpg@example.com' });
  const signature = await api.Commits.showGPGSignature(project.id, sha);
  expectEntity(signature, CommitSignatureEntity);
  assert.deepEqual([signature.verification_status, signature.gpg_key_id, signature.gpg_key_primary_keyid], ['verified', added.id, key.keyid]);
  assert.equal((await failureOf(api.Commits.showGPGSignature(project.id, repo.head))).status, 404);

  await api.UserGPGKeys.remove(added.id as number);
  const admin = new Gitlab({ host, token: ROOT_TOKEN });
  const given = await admin.UserGPGKeys.add((await gpgKey([{ name: 'B', email: 'b@example.com' }])).publicKey, { userId: user.user.id });
  expectEntity(given, GpgKeyEntity);
  await admin.UserGPGKeys.remove(given.id as number, { userId: user.user.id });
  assert.deepEqual(await api.UserGPGKeys.all(), []);
});
