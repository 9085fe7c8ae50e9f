// Users' SSH keys (/user/keys, /users/:id/keys), the administrators' look-ups (/keys/:id,
// /keys?fingerprint=), the key model's refusals in the platform's words, the instance's key
// restrictions, and the look-up the SSH server signs clients in with.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { createProject, setInstanceSettings } from '../../../test/factories.ts';
import { sshKey } from '../../../test/fixtures/ssh-keys.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { DeployKeysProjectEntity } from './deploy-keys.schemas.ts';
import { findActiveKey } from './keys.finder.ts';
import { DeployKeyWithUserEntity, SshKeyEntity, SshKeyWithUserEntity } from './keys.schemas.ts';

const ANY_TYPE = 'type is forbidden. Must be RSA, DSA, ECDSA, or ED25519';
const NO_FINGERPRINT = 'cannot be generated';
const TAKEN = { message: { fingerprint: ['has already been taken'] } };
const DEFAULT_RESTRICTIONS = { rsa_key_restriction: 0, dsa_key_restriction: 0, ecdsa_key_restriction: 0, ed25519_key_restriction: 0 };

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice', name: 'Alice Liddell' });
  bob = await t.user({ username: 'bob', name: 'Bob' });
});
after(() => t.close());

async function addKey(user: TestUser, body: Record<string, unknown>) {
  const res = await t.post('/api/v4/user/keys', { token: user.token, body });
  expectStatus(res, 201);
  return res.json();
}

describe('POST /user/keys', () => {
  test('adds a key: the entity publishes the key with its owner’s name and the host in place of the comment', async () => {
    const key = sshKey('ed25519', { comment: 'alice@secret-laptop.example' });
    const body = await addKey(alice, { title: 'Laptop', key: key.text });
    expectEntity(body, SshKeyEntity);
    assert.equal(body.title, 'Laptop');
    assert.equal(body.key, `${key.bare} Alice Liddell (quarry.test)`);
    assert.equal(body.expires_at, null);
    const stored = await t.deps.db.selectFrom('keys').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(stored.key, key.text);
    assert.equal(stored.type, 'Key');
    assert.equal(`SHA256:${stored.fingerprint_sha256}`, key.sha256);
    assert.equal(stored.fingerprint, key.md5);
  });

  test('with expires_at, read as a time in UTC; a form body too', async () => {
    const body = await addKey(alice, { title: 'Expiring', key: sshKey().text, expires_at: '2031-02-03T04:05:06+02:00' });
    expectEntity(body, SshKeyEntity);
    assert.equal(body.expires_at, '2031-02-03T02:05:06.000Z');
    const key = sshKey();
    const form = await t.post('/api/v4/user/keys', { token: alice.token, form: `title=Form&key=${encodeURIComponent(key.text)}&expires_at=2031-01-01` });
    expectStatus(form, 201);
    assert.equal(form.json().expires_at, '2031-01-01T00:00:00.000Z');
  });

  test('a key pasted with its body broken over lines is repaired; one word of comment is kept', async () => {
    const key = sshKey('ecdsa', { bits: 384 });
    const [type, data] = key.bare.split(' ');
    const body = await addKey(alice, { title: 'Pasted', key: `${type} ${data.slice(0, 40)}\n${data.slice(40)} me@host and more\n` });
    const stored = await t.deps.db.selectFrom('keys').select('key').where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(stored.key, `${key.bare} me@host`);
  });

  test('missing and malformed parameters are parameter errors', async () => {
    expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: {} }), 400, { error: 'key is missing, title is missing' });
    expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { key: sshKey().text } }), 400, { error: 'title is missing' });
    expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'x', key: sshKey().text, expires_at: 'soon' } }), 400, {
      error: 'expires_at is invalid',
    });
  });

  describe('bad keys: the model’s refusals', () => {
    const refused = async (body: Record<string, unknown>, message: unknown) => {
      const before = await t.count('keys');
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body }), 400, { message });
      assert.equal(await t.count('keys'), before);
    };
    const { bare } = sshKey();
    const [type, data] = bare.split(' ');

    test('blank', async () => {
      await refused({ title: ' ', key: '' }, { title: ["can't be blank"], key: ["can't be blank", 'is invalid', ANY_TYPE], fingerprint: [NO_FINGERPRINT] });
    });

    test('truncated', async () => {
      await refused({ title: 'Cut', key: `${type} ${data.slice(0, 30)}` }, { fingerprint: [NO_FINGERPRINT], key: [ANY_TYPE] });
    });

    test('wrong type for its body', async () => {
      await refused({ title: 'Wrong', key: `ssh-rsa ${data}` }, { fingerprint: [NO_FINGERPRINT], key: [ANY_TYPE] });
    });

    test('not a public key at all (a private key, a word)', async () => {
      await refused({ title: 'Private', key: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----' }, { key: ['is invalid', ANY_TYPE], fingerprint: [NO_FINGERPRINT] });
      await refused({ title: 'Word', key: 'hello' }, { key: ['is invalid', ANY_TYPE], fingerprint: [NO_FINGERPRINT] });
    });

    test('huge', async () => {
      await refused({ title: 'Huge', key: `ssh-rsa ${'A'.repeat(6000)}` }, { key: ['is too long (maximum is 5000 characters)', ANY_TYPE], fingerprint: [NO_FINGERPRINT] });
      await refused({ title: 'Huger', key: `ssh-rsa ${'AAAA '.repeat(50_000)}` }, { key: ['is too long (maximum is 5000 characters)', ANY_TYPE], fingerprint: [NO_FINGERPRINT] });
    });

    test('a title too long', async () => {
      await refused({ title: 'x'.repeat(256), key: sshKey().text }, { title: ['is too long (maximum is 255 characters)'] });
    });

    test('duplicate: the same key again, with another comment, or for another user', async () => {
      const key = sshKey();
      await addKey(alice, { title: 'Once', key: key.text });
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'Twice', key: key.text } }), 400, TAKEN);
      expectError(await t.post('/api/v4/user/keys', { token: bob.token, body: { title: 'Mine', key: `${key.bare} bob@elsewhere` } }), 400, TAKEN);
    });
  });

  describe('the instance’s key restrictions', () => {
    afterEach(() => setInstanceSettings(t, DEFAULT_RESTRICTIONS));

    test('a minimum size', async () => {
      await setInstanceSettings(t, { rsa_key_restriction: 2048 });
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'Small', key: sshKey('rsa', { bits: 1024 }).text } }), 400, {
        message: { key: ['must be at least 2048 bits'] },
      });
      await setInstanceSettings(t, { ecdsa_key_restriction: 384 });
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'P-256', key: sshKey('ecdsa', { bits: 256 }).text } }), 400, {
        message: { key: ['must be at least 384 bits'] },
      });
      await addKey(alice, { title: 'P-521', key: sshKey('ecdsa', { bits: 521 }).text });
    });

    test('a forbidden type names the types still allowed', async () => {
      await setInstanceSettings(t, { ed25519_key_restriction: -1 });
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'Ed', key: sshKey().text } }), 400, {
        message: { key: ['type is forbidden. Must be RSA, DSA, or ECDSA'] },
      });
      await setInstanceSettings(t, { ecdsa_key_restriction: -1 });
      expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'Ed', key: sshKey().text } }), 400, {
        message: { key: ['type is forbidden. Must be RSA or DSA'] },
      });
      await addKey(alice, { title: 'DSA', key: sshKey('dsa').text });
    });
  });
});

describe('GET /user/keys, GET and DELETE /user/keys/:key_id', () => {
  test('the caller’s own keys, oldest first, in pages', async () => {
    const carol = await t.user({ name: 'Carol' });
    const ids = [];
    for (const title of ['one', 'two', 'three']) ids.push((await addKey(carol, { title, key: sshKey().text })).id);
    const res = await t.get('/api/v4/user/keys', { token: carol.token, query: { per_page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), SshKeyEntity);
    assert.deepEqual(res.json().map((k: { id: number }) => k.id), ids.slice(0, 2));
    assert.equal(res.headers['x-total'], '3');
    assert.equal(res.headers['x-next-page'], '2');
    const one = await t.get(`/api/v4/user/keys/${ids[2]}`, { token: carol.token });
    expectStatus(one, 200);
    expectEntity(one.json(), SshKeyEntity);
    assert.equal(one.json().title, 'three');
    assert.match(one.json().key, / Carol \(quarry\.test\)$/);
  });

  test('another user’s key is not found; deleting one’s own answers 204', async () => {
    const key = await addKey(bob, { title: 'Bob’s', key: sshKey().text });
    expectError(await t.get(`/api/v4/user/keys/${key.id}`, { token: alice.token }), 404, { message: '404 Key Not Found' });
    expectError(await t.del(`/api/v4/user/keys/${key.id}`, { token: alice.token }), 404, { message: '404 Key Not Found' });
    expectError(await t.del(`/api/v4/user/keys/${key.id}`, { token: bob.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } }), 412, {
      message: '412 Precondition Failed',
    });
    expectStatus(await t.del(`/api/v4/user/keys/${key.id}`, { token: bob.token }), 204);
    expectError(await t.get(`/api/v4/user/keys/${key.id}`, { token: bob.token }), 404, { message: '404 Key Not Found' });
  });

  test('read_user tokens read keys but may not add them', async () => {
    const reader = await t.user({}, ['read_user']);
    expectStatus(await t.get('/api/v4/user/keys', { token: reader.token }), 200);
    expectError(await t.post('/api/v4/user/keys', { token: reader.token, body: { title: 'x', key: sshKey().text } }), 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
  });
});

describe('/users/:id/keys', () => {
  test('anyone reads a user’s keys by id or username; anonymous callers not when public is restricted', async () => {
    const dave = await t.user({ username: 'Dave', name: 'Dave' });
    await addKey(dave, { title: 'Dave’s', key: sshKey().text });
    for (const ref of [String(dave.user.id), 'dave', 'DAVE']) {
      const res = await t.get(`/api/v4/users/${ref}/keys`);
      expectStatus(res, 200);
      expectEntities(res.json(), SshKeyEntity);
      assert.deepEqual(res.json().map((k: { title: string }) => k.title), ['Dave’s']);
    }
    const [keyId] = (await t.get(`/api/v4/users/${dave.user.id}/keys`)).json().map((k: { id: number }) => k.id);
    const one = await t.get(`/api/v4/users/dave/keys/${keyId}`);
    expectStatus(one, 200);
    expectEntity(one.json(), SshKeyEntity);
    expectError(await t.get(`/api/v4/users/${alice.user.id}/keys/${keyId}`), 404, { message: '404 Key Not Found' });
    expectError(await t.get('/api/v4/users/nobody-here/keys'), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/999999/keys', { token: alice.token }), 404, { message: '404 User Not Found' });
    await setInstanceSettings(t, { restricted_visibility_levels: ['public'] });
    try {
      expectError(await t.get(`/api/v4/users/${dave.user.id}/keys`), 404, { message: '404 User Not Found' });
      expectError(await t.get(`/api/v4/users/${dave.user.id}/keys/${keyId}`), 404, { message: '404 User Not Found' });
      expectStatus(await t.get(`/api/v4/users/${dave.user.id}/keys`, { token: alice.token }), 200);
    } finally {
      await setInstanceSettings(t, { restricted_visibility_levels: [] });
    }
  });

  test('administrators add and delete a user’s keys; others are refused', async () => {
    const erin = await t.user({ name: 'Erin' });
    const key = sshKey();
    expectError(await t.post(`/api/v4/users/${erin.user.id}/keys`, { token: alice.token, body: { title: 'x', key: key.text } }), 403, { message: '403 Forbidden' });
    expectError(await t.post('/api/v4/users/999999/keys', { token: ROOT_TOKEN, body: { title: 'x', key: key.text } }), 404, { message: '404 User Not Found' });
    const res = await t.post(`/api/v4/users/${erin.user.id}/keys`, { token: ROOT_TOKEN, body: { title: 'Given', key: key.text, expires_at: '2040-01-01T00:00:00Z' } });
    expectStatus(res, 201);
    expectEntity(res.json(), SshKeyEntity);
    assert.equal(res.json().key, `${key.bare} Erin (quarry.test)`);
    assert.equal(res.json().expires_at, '2040-01-01T00:00:00.000Z');
    const id = res.json().id;
    expectError(await t.del(`/api/v4/users/${erin.user.id}/keys/${id}`, { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.del(`/api/v4/users/${alice.user.id}/keys/${id}`, { token: ROOT_TOKEN }), 404, { message: '404 Key Not Found' });
    expectError(await t.del(`/api/v4/users/999999/keys/${id}`, { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectStatus(await t.del(`/api/v4/users/${erin.user.id}/keys/${id}`, { token: ROOT_TOKEN }), 204);
    assert.deepEqual((await t.get(`/api/v4/users/${erin.user.id}/keys`)).json(), []);
  });

  test('a deleted user’s keys go with them', async () => {
    const gone = await t.user();
    const key = sshKey();
    await addKey(gone, { title: 'Soon gone', key: key.text });
    expectStatus(await t.del(`/api/v4/users/${gone.user.id}`, { token: ROOT_TOKEN, body: { hard_delete: true } }), 204);
    expectError(await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint: key.sha256 } }), 404, { message: '404 Key Not Found' });
    await addKey(alice, { title: 'Free again', key: key.text });
  });
});

describe('GET /keys/:id and GET /keys?fingerprint= (administrators)', () => {
  test('a key by id, with its owner in the public form', async () => {
    const key = await addKey(alice, { title: 'Looked up', key: sshKey().text });
    const res = await t.get(`/api/v4/keys/${key.id}`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), SshKeyWithUserEntity);
    assert.equal(res.json().user.username, 'alice');
    assert.equal(res.json().user.email, alice.user.email);
    assert.equal(res.json().key, key.key);
    expectError(await t.get(`/api/v4/keys/${key.id}`, { token: alice.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`/api/v4/keys/${key.id}`), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/keys/999999', { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get('/api/v4/keys/nope', { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  });

  test('a key by its MD5 or SHA256 fingerprint', async () => {
    const key = sshKey('rsa');
    const added = await addKey(bob, { title: 'By fingerprint', key: key.text });
    for (const fingerprint of [key.md5, key.sha256, `sha256:${key.sha256.slice(7)}`]) {
      const res = await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint } });
      expectStatus(res, 200);
      expectEntity(res.json(), SshKeyWithUserEntity);
      assert.equal(res.json().id, added.id);
      assert.equal(res.json().user.id, bob.user.id);
    }
  });

  test('refusals: a malformed fingerprint, none matching, no fingerprint, not an administrator', async () => {
    for (const fingerprint of ['aa:bb', 'SHA256:short', 'nothing']) {
      expectError(await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint } }), 400, { message: 'Failed to return the key' });
    }
    expectError(await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint: sshKey().sha256 } }), 404, { message: '404 Key Not Found' });
    expectError(await t.get('/api/v4/keys', { token: ROOT_TOKEN }), 400, { error: 'fingerprint is missing' });
    expectError(await t.get('/api/v4/keys', { token: bob.token, query: { fingerprint: sshKey().md5 } }), 403, { message: '403 Forbidden' });
  });

  test('a deploy key’s fingerprint shows the projects using it', async () => {
    const project = await createProject(t, { path: 'fp-deploy' });
    const key = sshKey();
    const added = await t.post(`/api/v4/projects/${project.id}/deploy_keys`, { token: ROOT_TOKEN, body: { title: 'Deployer', key: key.text, can_push: true } });
    expectStatus(added, 201);
    expectEntity(added.json(), DeployKeysProjectEntity);
    const res = await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint: key.sha256 } });
    expectStatus(res, 200);
    expectEntity(res.json(), DeployKeyWithUserEntity);
    assert.equal(res.json().user.id, 1);
    assert.equal(res.json().key, `${key.bare} Administrator (quarry.test)`);
    assert.equal(res.json().deploy_keys_projects.length, 1);
    assert.deepEqual(
      { ...res.json().deploy_keys_projects[0], id: 0, created_at: '', updated_at: '' },
      { id: 0, deploy_key_id: added.json().id, project_id: project.id, created_at: '', updated_at: '', can_push: true },
    );
    // One key per fingerprint across both kinds.
    expectError(await t.post('/api/v4/user/keys', { token: alice.token, body: { title: 'Mine?', key: key.text } }), 400, TAKEN);
  });
});

describe('findActiveKey: what a public key signs in as', () => {
  test('a user key, by its OpenSSH line, its wire form or either fingerprint', async () => {
    const key = sshKey();
    const added = await addKey(alice, { title: 'SSH', key: key.text });
    const wire = Buffer.from(key.bare.split(' ')[1], 'base64');
    for (const offered of [key.text, key.bare, wire, key.sha256, key.md5]) {
      const found = await findActiveKey(t.deps.db, offered, new Date());
      assert.equal(found?.kind, 'user');
      assert.equal(found.keyId, added.id);
      assert.equal(found.kind === 'user' && found.user.id, alice.user.id);
    }
    assert.equal(await findActiveKey(t.deps.db, sshKey().text, new Date()), null);
    assert.equal(await findActiveKey(t.deps.db, 'garbage', new Date()), null);
  });

  test('an expired key no longer signs in', async () => {
    const key = sshKey();
    await addKey(alice, { title: 'Expiring', key: key.text, expires_at: '2030-06-01T00:00:00Z' });
    assert.equal((await findActiveKey(t.deps.db, key.text, new Date('2030-05-31T23:59:59Z')))?.kind, 'user');
    assert.equal(await findActiveKey(t.deps.db, key.text, new Date('2030-06-01T00:00:00Z')), null);
  });

  test('a deploy key, with the projects it reaches and whether it may push to each', async () => {
    const [one, two] = [await createProject(t, { path: 'ssh-one' }), await createProject(t, { path: 'ssh-two' })];
    const key = sshKey('ecdsa');
    const added = await t.post(`/api/v4/projects/${one.id}/deploy_keys`, { token: ROOT_TOKEN, body: { title: 'CI', key: key.text, can_push: true } });
    expectStatus(added, 201);
    expectStatus(await t.post(`/api/v4/projects/${two.id}/deploy_keys/${added.json().id}/enable`, { token: ROOT_TOKEN }), 201);
    const found = await findActiveKey(t.deps.db, key.text, new Date());
    assert.deepEqual(found, {
      kind: 'deploy',
      keyId: added.json().id,
      title: 'CI',
      creatorId: 1,
      projects: [
        { projectId: one.id, canPush: true },
        { projectId: two.id, canPush: false },
      ],
    });
  });
});
