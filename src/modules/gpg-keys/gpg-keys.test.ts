// Users' GPG keys (/user/gpg_keys, /users/:id/gpg_keys): keys really read (primary key id,
// fingerprint, subkeys, user ids), the model's refusals in the platform's words, revoking and
// deleting; and the verdicts on GPG-signed commits (…/commits/:sha/signature).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { gnupgSignedCommit, gpgKey, signedCommit, type TestGpgKey, unsignedCommit } from '../../../test/fixtures/gpg.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { KEY_FORMAT_MESSAGE } from './gpg-keys.validation.ts';
import { CommitSignatureEntity, GpgKeyEntity } from './gpg-keys.schemas.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let aliceKey: TestGpgKey;
let project: ProjectRow;
let repo: { dir: string; head: string };

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice', name: 'Alice Liddell', email: 'alice@example.com', skip_confirmation: true });
  bob = await t.user({ username: 'bob', name: 'Bob', email: 'bob@example.com', skip_confirmation: true });
  aliceKey = await gpgKey([{ name: 'Alice Liddell', email: 'alice@example.com' }]);
  project = await createProject(t, { visibility: 'public', creatorId: alice.user.id });
  repo = await giveRepository(t, project);
});
after(() => t.close());

async function addKey(user: TestUser, key: string) {
  const res = await t.post('/api/v4/user/gpg_keys', { token: user.token, body: { key } });
  expectStatus(res, 201);
  return res.json();
}

describe('POST /user/gpg_keys', () => {
  test('stores the key with what it reads from it: primary key id, fingerprint, subkeys', async () => {
    const key = await gpgKey([{ name: 'Bob', email: 'bob@example.com' }]);
    const body = await addKey(bob, `\n${key.publicKey}\n\n`);
    expectEntity(body, GpgKeyEntity);
    assert.equal(body.key, key.publicKey.trim());
    const stored = await t.deps.db.selectFrom('gpg_keys').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(stored.primary_keyid, key.keyid);
    assert.equal(stored.fingerprint, key.fingerprint);
    const subkeys = await t.deps.db.selectFrom('gpg_key_subkeys').select('keyid').where('gpg_key_id', '=', body.id).execute();
    assert.deepEqual(subkeys.map((s) => s.keyid), key.subkeyIds);
  });

  test('a missing key is a parameter error', async () => {
    expectError(await t.post('/api/v4/user/gpg_keys', { token: alice.token, body: {} }), 400, { error: 'key is missing' });
  });

  test('refusals of the model, in the platform’s words, write nothing', async () => {
    const before = await t.count('gpg_keys');
    const refused = async (key: string, message: unknown) => expectError(await t.post('/api/v4/user/gpg_keys', { token: alice.token, body: { key } }), 400, { message });
    await refused('', { key: ["can't be blank"] });
    await refused('ssh-ed25519 AAAA', { key: [KEY_FORMAT_MESSAGE] });
    await refused(`${aliceKey.publicKey}\n${aliceKey.publicKey}`, { key: [KEY_FORMAT_MESSAGE] });
    await refused('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnot a key\n-----END PGP PUBLIC KEY BLOCK-----', {
      fingerprint: ["can't be blank"],
      primary_keyid: ["can't be blank"],
    });
    assert.equal(await t.count('gpg_keys'), before);
  });

  test('a key stored already is taken: the same text, or the same key armored otherwise', async () => {
    const key = await gpgKey([{ name: 'Twice', email: 'twice@example.com' }]);
    await addKey(alice, key.publicKey);
    expectError(await t.post('/api/v4/user/gpg_keys', { token: bob.token, body: { key: key.publicKey } }), 400, { message: { key: ['has already been taken'] } });
    // The same key with a comment line in its armor: other text, same fingerprint.
    const other = key.publicKey.replace('-----BEGIN PGP PUBLIC KEY BLOCK-----\n', '-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: again\n');
    expectError(await t.post('/api/v4/user/gpg_keys', { token: bob.token, body: { key: other } }), 400, {
      message: { fingerprint: ['has already been taken'], primary_keyid: ['has already been taken'] },
    });
  });
});

describe('reading, deleting and revoking keys', () => {
  test('GET /user/gpg_keys lists the caller’s keys oldest first, paginated; /:key_id shows one', async () => {
    const carol = await t.user({ username: 'carol' });
    const first = await addKey(carol, (await gpgKey([{ name: 'C', email: 'c1@example.com' }])).publicKey);
    const second = await addKey(carol, (await gpgKey([{ name: 'C', email: 'c2@example.com' }])).publicKey);
    const list = await t.get('/api/v4/user/gpg_keys', { token: carol.token, query: { per_page: '1', page: '2' } });
    expectStatus(list, 200);
    expectEntities(list.json(), GpgKeyEntity);
    assert.deepEqual(list.json().map((k: { id: number }) => k.id), [second.id]);
    assert.equal(list.headers['x-total'], '2');
    const one = await t.get(`/api/v4/user/gpg_keys/${first.id}`, { token: carol.token });
    expectEntity(one.json(), GpgKeyEntity);
    assert.deepEqual(one.json(), first);
    // Another user's key is not the caller's.
    expectError(await t.get(`/api/v4/user/gpg_keys/${first.id}`, { token: alice.token }), 404, { message: '404 GPG Key Not Found' });
    expectError(await t.get('/api/v4/user/gpg_keys/abc', { token: alice.token }), 400, { error: 'key_id is invalid' });
  });

  test('GET /users/:id/gpg_keys and /:key_id, anonymous callers too; unknown user or key 404', async () => {
    const key = await addKey(bob, (await gpgKey([{ name: 'Bob', email: 'bob2@example.com' }])).publicKey);
    const list = await t.get(`/api/v4/users/${bob.user.id}/gpg_keys`);
    expectStatus(list, 200);
    expectEntities(list.json(), GpgKeyEntity);
    assert.ok(list.json().some((k: { id: number }) => k.id === key.id));
    expectEntity((await t.get(`/api/v4/users/${bob.user.id}/gpg_keys/${key.id}`)).json(), GpgKeyEntity);
    expectError(await t.get(`/api/v4/users/${alice.user.id}/gpg_keys/${key.id}`), 404, { message: '404 GPG Key Not Found' });
    expectError(await t.get('/api/v4/users/99999/gpg_keys'), 404, { message: '404 User Not Found' });
  });

  test('administrators add and delete another user’s keys; others are refused', async () => {
    const key = (await gpgKey([{ name: 'Bob', email: 'bob3@example.com' }])).publicKey;
    expectError(await t.post(`/api/v4/users/${bob.user.id}/gpg_keys`, { token: alice.token, body: { key } }), 403, { message: '403 Forbidden' });
    expectError(await t.post('/api/v4/users/99999/gpg_keys', { token: ROOT_TOKEN, body: { key } }), 404, { message: '404 User Not Found' });
    const res = await t.post(`/api/v4/users/${bob.user.id}/gpg_keys`, { token: ROOT_TOKEN, body: { key } });
    expectStatus(res, 201);
    expectEntity(res.json(), GpgKeyEntity);
    expectError(await t.del(`/api/v4/users/${bob.user.id}/gpg_keys/${res.json().id}`, { token: alice.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(`/api/v4/users/${bob.user.id}/gpg_keys/${res.json().id}`, { token: ROOT_TOKEN }), 204);
    expectError(await t.del(`/api/v4/users/${bob.user.id}/gpg_keys/${res.json().id}`, { token: ROOT_TOKEN }), 404, { message: '404 GPG Key Not Found' });
  });

  test('DELETE /user/gpg_keys/:key_id and POST …/revoke (202) remove the key', async () => {
    const one = await addKey(bob, (await gpgKey([{ name: 'Bob', email: 'bob4@example.com' }])).publicKey);
    const two = await addKey(bob, (await gpgKey([{ name: 'Bob', email: 'bob5@example.com' }])).publicKey);
    expectStatus(await t.del(`/api/v4/user/gpg_keys/${one.id}`, { token: bob.token }), 204);
    const revoked = await t.post(`/api/v4/user/gpg_keys/${two.id}/revoke`, { token: bob.token });
    expectStatus(revoked, 202);
    assert.equal(revoked.json(), 202);
    expectError(await t.post(`/api/v4/user/gpg_keys/${two.id}/revoke`, { token: bob.token }), 404, { message: '404 GPG Key Not Found' });
    const three = await t.post(`/api/v4/users/${bob.user.id}/gpg_keys`, { token: ROOT_TOKEN, body: { key: (await gpgKey([{ name: 'B', email: 'b6@example.com' }])).publicKey } });
    expectError(await t.post(`/api/v4/users/${bob.user.id}/gpg_keys/${three.json().id}/revoke`, { token: bob.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.post(`/api/v4/users/${bob.user.id}/gpg_keys/${three.json().id}/revoke`, { token: ROOT_TOKEN }), 202);
    assert.equal(await t.deps.db.selectFrom('gpg_keys').select('id').where('id', 'in', [one.id, two.id, three.json().id]).executeTakeFirst(), undefined);
  });
});

describe('GET /projects/:id/repository/commits/:sha/signature', () => {
  const ALICE = { name: 'Alice Liddell', email: 'alice@example.com' };
  const signature = (sha: string) => t.get(`/api/v4/projects/${project.id}/repository/commits/${sha}/signature`, { token: alice.token });

  async function verdict(sha: string) {
    const res = await signature(sha);
    expectStatus(res, 200);
    expectEntity(res.json(), CommitSignatureEntity);
    return res.json();
  }

  test('a signature by a key nobody added is unknown_key, named by the key’s fingerprint', async () => {
    const stranger = await gpgKey([{ name: 'Stranger', email: 'stranger@example.com' }]);
    const sha = await signedCommit(repo.dir, repo.head, stranger, { name: 'Stranger', email: 'stranger@example.com' });
    assert.deepEqual(await verdict(sha), {
      signature_type: 'PGP',
      gpg_key_id: null,
      gpg_key_primary_keyid: stranger.fingerprint,
      gpg_key_user_name: null,
      gpg_key_user_email: null,
      verification_status: 'unknown_key',
      gpg_key_subkey_id: null,
      commit_source: 'gitaly',
    });
  });

  test('verified, then other_user, same_user_different_email and unverified by the same key', async () => {
    const key = await addKey(alice, aliceKey.publicKey);
    const expected = (status: string) => ({
      signature_type: 'PGP',
      gpg_key_id: key.id,
      gpg_key_primary_keyid: aliceKey.keyid,
      gpg_key_user_name: 'Alice Liddell',
      gpg_key_user_email: 'alice@example.com',
      verification_status: status,
      gpg_key_subkey_id: null,
      commit_source: 'gitaly',
    });
    assert.deepEqual(await verdict(await signedCommit(repo.dir, repo.head, aliceKey, ALICE)), expected('verified'));
    assert.deepEqual(await verdict(await signedCommit(repo.dir, repo.head, aliceKey, { name: 'Bob', email: 'bob@example.com' })), expected('other_user'));
    const email = await t.post(`/api/v4/users/${alice.user.id}/emails`, { token: ROOT_TOKEN, body: { email: 'alice@work.example', skip_confirmation: true } });
    expectStatus(email, 201);
    assert.deepEqual(await verdict(await signedCommit(repo.dir, repo.head, aliceKey, { name: 'Alice', email: 'alice@work.example' })), expected('same_user_different_email'));
    assert.deepEqual(await verdict(await signedCommit(repo.dir, repo.head, aliceKey, ALICE, { message: 'Other', tamper: true })), expected('unverified'));
  });

  test('a key whose user ids name no proved address of its owner is unverified_key', async () => {
    const dave = await t.user({ username: 'dave', email: 'dave@example.com', skip_confirmation: true });
    const key = await gpgKey([{ name: 'Dave', email: 'dave@elsewhere.example' }]);
    const added = await addKey(dave, key.publicKey);
    const got = await verdict(await signedCommit(repo.dir, repo.head, key, { name: 'Dave', email: 'dave@elsewhere.example' }));
    assert.equal(got.verification_status, 'unverified_key');
    assert.equal(got.gpg_key_id, added.id);
    assert.equal(got.gpg_key_user_email, 'dave@elsewhere.example');
  });

  test('a signing subkey: gpg_key_subkey_id and the subkey’s id', async () => {
    const erin = await t.user({ username: 'erin', email: 'erin@example.com', skip_confirmation: true });
    const key = await gpgKey([{ name: 'Erin', email: 'erin@example.com' }], { signingSubkey: true });
    await addKey(erin, key.publicKey);
    const subkey = await t.deps.db.selectFrom('gpg_key_subkeys').selectAll().where('keyid', '=', key.subkeyIds[1]).executeTakeFirstOrThrow();
    const got = await verdict(await signedCommit(repo.dir, repo.head, key, { name: 'Erin', email: 'erin@example.com' }, { signingKeyID: key.subkeyIds[1] }));
    assert.deepEqual(got, { ...got, gpg_key_id: null, gpg_key_subkey_id: subkey.id, gpg_key_primary_keyid: key.subkeyIds[1], verification_status: 'verified' });
  });

  test('a commit signed by the system’s GnuPG through git verifies', async () => {
    const frank = await t.user({ username: 'frank', email: 'frank@example.com', skip_confirmation: true });
    const { publicKey, commit } = gnupgSignedCommit(repo.dir, repo.head, { name: 'Frank', email: 'frank@example.com' });
    const key = await addKey(frank, publicKey);
    const got = await verdict(commit);
    assert.equal(got.verification_status, 'verified');
    assert.equal(got.gpg_key_id, key.id);
    assert.equal(got.gpg_key_user_email, 'frank@example.com');
  });

  test('the verdict is kept: a key added later verifies it through the background job; revoking unverifies, deleting does not', async () => {
    const grace = await t.user({ username: 'grace', email: 'grace@example.com', skip_confirmation: true });
    const key = await gpgKey([{ name: 'Grace', email: 'grace@example.com' }]);
    const sha = await signedCommit(repo.dir, repo.head, key, { name: 'Grace', email: 'grace@example.com' });
    assert.equal((await verdict(sha)).verification_status, 'unknown_key');
    const added = await addKey(grace, key.publicKey);
    await t.runJobs();
    assert.equal((await verdict(sha)).verification_status, 'verified');
    expectStatus(await t.post(`/api/v4/user/gpg_keys/${added.id}/revoke`, { token: grace.token }), 202);
    assert.deepEqual(await verdict(sha), { ...(await verdict(sha)), gpg_key_id: null, verification_status: 'unknown_key' });

    const other = await gpgKey([{ name: 'Grace', email: 'grace@example.com' }]);
    const kept = await signedCommit(repo.dir, repo.head, other, { name: 'Grace', email: 'grace@example.com' });
    const second = await addKey(grace, other.publicKey);
    assert.equal((await verdict(kept)).verification_status, 'verified');
    expectStatus(await t.del(`/api/v4/user/gpg_keys/${second.id}`, { token: grace.token }), 204);
    const after = await verdict(kept);
    assert.equal(after.verification_status, 'verified');
    assert.equal(after.gpg_key_id, null);
  });

  test('an unsigned commit is 404 Signature Not Found; an unknown one 404 Commit Not Found', async () => {
    expectError(await signature(unsignedCommit(repo.dir, repo.head, ALICE)), 404, { message: '404 Signature Not Found' });
    expectError(await signature(repo.head), 404, { message: '404 Signature Not Found' });
    expectError(await signature('main'), 404, { message: '404 Signature Not Found' });
    expectError(await signature('0'.repeat(40)), 404, { message: '404 Commit Not Found' });
    expectError(await signature('no-such-branch'), 404, { message: '404 Commit Not Found' });
    const empty = await createProject(t, { visibility: 'public' });
    expectError(await t.get(`/api/v4/projects/${empty.id}/repository/commits/main/signature`), 404, { message: '404 Commit Not Found' });
  });
});
