// Deploy keys (spec part 1 §4.6): the instance's list, a project's keys, adding a key (or joining
// one the caller reaches elsewhere), changing title and push access, enabling, removing (and the
// key's removal from the system with its last project), the key model's refusals through the
// project's join, and keys left behind by a deleted project.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, setInstanceSettings } from '../../../test/factories.ts';
import { sshKey } from '../../../test/fixtures/ssh-keys.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { DeployKeyEntity, DeployKeysProjectEntity } from './deploy-keys.schemas.ts';
import { removeOrphanedDeployKeysTask } from './keys.jobs.ts';

const FINGERPRINT_TAKEN = { message: { 'deploy_key.fingerprint': ['has already been taken'] } };

let t: TestApp;
let mia: TestUser;
let dev: TestUser;
let app: ProjectRow;
let lib: ProjectRow;
let foreign: ProjectRow;

before(async () => {
  t = await createTestApp();
  mia = await t.user({ username: 'mia', name: 'Mia' });
  dev = await t.user({ username: 'dev' });
  // Mia maintains app and lib; on foreign she is only a developer.
  app = await createProject(t, { path: 'app', members: [[mia.user.id, ACCESS.MAINTAINER], [dev.user.id, ACCESS.MAINTAINER]] });
  lib = await createProject(t, { path: 'lib', members: [[mia.user.id, ACCESS.MAINTAINER]] });
  foreign = await createProject(t, { path: 'foreign', members: [[mia.user.id, ACCESS.DEVELOPER]] });
});
after(() => t.close());

const keysOf = (project: ProjectRow) => `/api/v4/projects/${project.id}/deploy_keys`;

async function add(project: ProjectRow, body: Record<string, unknown>, token = mia.token) {
  const res = await t.post(keysOf(project), { token, body });
  expectStatus(res, 201);
  expectEntity(res.json(), DeployKeysProjectEntity);
  return res.json();
}

describe('POST /projects/:id/deploy_keys', () => {
  test('creates a key and enables it: the key as given, comment included; can_push false unless asked', async () => {
    const key = sshKey('ed25519', { comment: 'deployer@ci' });
    const body = await add(app, { title: 'CI', key: key.text });
    assert.equal(body.key, key.text);
    assert.equal(body.title, 'CI');
    assert.equal(body.can_push, false);
    assert.equal(body.expires_at, null);
    const pushing = await add(app, { title: 'Pusher', key: sshKey('rsa').text, can_push: true });
    assert.equal(pushing.can_push, true);
    const stored = await t.deps.db.selectFrom('keys').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.deepEqual([stored.type, stored.user_id, stored.creator_id, stored.public], ['DeployKey', null, mia.user.id, false]);
  });

  test('the key the project already has is answered as it is, push access unchanged', async () => {
    const key = sshKey();
    const first = await add(app, { title: 'Once', key: key.text });
    const [keys, joins] = [await t.count('keys'), await t.count('deploy_keys_projects')];
    const again = await add(app, { title: 'Again', key: `  ${key.text}\n`, can_push: true });
    assert.deepEqual(again, first);
    assert.deepEqual([await t.count('keys'), await t.count('deploy_keys_projects')], [keys, joins]);
  });

  test('a key of a project the caller maintains is joined to this one with the push access asked', async () => {
    const key = sshKey();
    const first = await add(app, { title: 'Shared', key: key.text });
    const joined = await add(lib, { title: 'ignored', key: key.text, can_push: true });
    assert.equal(joined.id, first.id);
    assert.equal(joined.title, 'Shared');
    assert.equal(joined.can_push, true);
    assert.equal((await t.get(`${keysOf(app)}/${first.id}`, { token: mia.token })).json().can_push, false);
  });

  test('a key the caller cannot reach elsewhere is refused on its fingerprint', async () => {
    const key = sshKey();
    // Added to foreign by root: Mia is only a developer there.
    await add(foreign, { title: 'Theirs', key: key.text }, ROOT_TOKEN);
    expectError(await t.post(keysOf(app), { token: mia.token, body: { title: 'Mine?', key: key.text } }), 400, FINGERPRINT_TAKEN);
    // Nor may a user's key become a deploy key.
    const userKey = sshKey();
    expectStatus(await t.post('/api/v4/user/keys', { token: dev.token, body: { title: 'Dev', key: userKey.text } }), 201);
    expectError(await t.post(keysOf(app), { token: mia.token, body: { title: 'Dev’s', key: userKey.text } }), 400, FINGERPRINT_TAKEN);
  });

  test('administrators reach every key', async () => {
    const key = sshKey();
    const theirs = await add(foreign, { title: 'Theirs', key: key.text }, ROOT_TOKEN);
    const joined = await add(lib, { title: 'x', key: key.text }, ROOT_TOKEN);
    assert.equal(joined.id, theirs.id);
  });

  test('the key model’s refusals, reported through the project’s join', async () => {
    expectError(await t.post(keysOf(app), { token: mia.token, body: {} }), 400, { error: 'key is missing, title is missing' });
    expectError(await t.post(keysOf(app), { token: mia.token, body: { title: '', key: sshKey().text } }), 400, { message: { 'deploy_key.title': ["can't be blank"] } });
    expectError(await t.post(keysOf(app), { token: mia.token, body: { title: 'Bad', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5' } }), 400, {
      message: { 'deploy_key.fingerprint': ['cannot be generated'], 'deploy_key.key': ['type is forbidden. Must be RSA, DSA, ECDSA, or ED25519'] },
    });
    await setInstanceSettings(t, { rsa_key_restriction: 2048 });
    try {
      expectError(await t.post(keysOf(app), { token: mia.token, body: { title: 'Small', key: sshKey('rsa').text } }), 400, {
        message: { 'deploy_key.key': ['must be at least 2048 bits'] },
      });
    } finally {
      await setInstanceSettings(t, { rsa_key_restriction: 0 });
    }
  });
});

describe('reading deploy keys', () => {
  test('a project’s keys in the order they were enabled, in pages; one of them; not one of another project', async () => {
    const project = await createProject(t, { path: 'listed', members: [[mia.user.id, ACCESS.MAINTAINER]] });
    const ids = [];
    for (const title of ['a', 'b', 'c']) ids.push((await add(project, { title, key: sshKey().text, can_push: title === 'b' })).id);
    const res = await t.get(keysOf(project), { token: mia.token, query: { per_page: '2', page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), DeployKeysProjectEntity);
    assert.deepEqual(res.json().map((k: { id: number }) => k.id), [ids[2]]);
    assert.equal(res.headers['x-total'], '3');
    const one = await t.get(`${keysOf(project)}/${ids[1]}`, { token: mia.token });
    expectStatus(one, 200);
    expectEntity(one.json(), DeployKeysProjectEntity);
    assert.equal(one.json().can_push, true);
    expectError(await t.get(`${keysOf(lib)}/${ids[1]}`, { token: mia.token }), 404, { message: '404 Not found' });
  });

  test('GET /deploy_keys: every deploy key, without can_push, for administrators only', async () => {
    const key = await add(lib, { title: 'Listed', key: sshKey().text });
    const res = await t.get('/api/v4/deploy_keys', { token: ROOT_TOKEN, query: { per_page: '100' } });
    expectStatus(res, 200);
    expectEntities(res.json(), DeployKeyEntity);
    assert.ok(res.json().some((k: { id: number }) => k.id === key.id));
    // Users' keys are not deploy keys.
    const types = await t.deps.db.selectFrom('keys').select('type').where('id', 'in', res.json().map((k: { id: number }) => k.id)).execute();
    assert.ok(types.every((r) => r.type === 'DeployKey'));
    expectError(await t.get('/api/v4/deploy_keys', { token: mia.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/deploy_keys'), 401, { message: '401 Unauthorized' });
  });
});

describe('PUT /projects/:id/deploy_keys/:key_id', () => {
  test('changes the title and this project’s push access', async () => {
    const key = await add(app, { title: 'Old', key: sshKey().text });
    const joined = await add(lib, { title: 'x', key: key.key });
    const res = await t.put(`${keysOf(app)}/${key.id}`, { token: mia.token, body: { title: 'New', can_push: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), DeployKeysProjectEntity);
    assert.equal(res.json().title, 'New');
    assert.equal(res.json().can_push, true);
    const other = (await t.get(`${keysOf(lib)}/${joined.id}`, { token: mia.token })).json();
    assert.deepEqual([other.title, other.can_push], ['New', false]);
  });

  test('refusals: nothing to change, a blank title, a key the project does not have', async () => {
    const key = await add(app, { title: 'Kept', key: sshKey().text });
    expectError(await t.put(`${keysOf(app)}/${key.id}`, { token: mia.token, body: {} }), 400, { error: 'title, can_push are missing, at least one parameter must be provided' });
    expectError(await t.put(`${keysOf(app)}/${key.id}`, { token: mia.token, body: { title: ' ' } }), 400, { message: { 'deploy_key.title': ["can't be blank"] } });
    expectError(await t.put(`${keysOf(lib)}/${key.id}`, { token: mia.token, body: { can_push: true } }), 404, { message: '404 Not found' });
  });

  test('a public key’s title is the administrators’: a maintainer’s is left as it was, silently', async () => {
    const key = await publicKey('Shared by all');
    await add(app, { title: 'x', key: key.key });
    const res = await t.put(`${keysOf(app)}/${key.id}`, { token: mia.token, body: { title: 'Mine now', can_push: true } });
    expectStatus(res, 200);
    assert.deepEqual([res.json().title, res.json().can_push], ['Shared by all', true]);
    const byAdmin = await t.put(`${keysOf(app)}/${key.id}`, { token: ROOT_TOKEN, body: { title: 'Renamed' } });
    assert.equal(byAdmin.json().title, 'Renamed');
  });
});

/** A public deploy key, which administrators make outside this API: any maintainer may enable it. */
async function publicKey(title: string) {
  const key = await add(await createProject(t, { path: `public-${title.length}-${Date.now()}` }), { title, key: sshKey().text }, ROOT_TOKEN);
  await t.deps.db.updateTable('keys').set({ public: true }).where('id', '=', key.id).execute();
  return key;
}

describe('POST /projects/:id/deploy_keys/:key_id/enable', () => {
  test('enables a key of a project the caller maintains, once: 201 with the key, without can_push', async () => {
    const key = await add(lib, { title: 'To enable', key: sshKey().text });
    for (let i = 0; i < 2; i++) {
      const res = await t.post(`${keysOf(app)}/${key.id}/enable`, { token: mia.token });
      expectStatus(res, 201);
      expectEntity(res.json(), DeployKeyEntity);
      assert.equal(res.json().id, key.id);
    }
    const joins = await t.deps.db.selectFrom('deploy_keys_projects').select('can_push').where('deploy_key_id', '=', key.id).where('project_id', '=', app.id).execute();
    assert.deepEqual(joins, [{ can_push: false }]);
  });

  test('a public key, for any maintainer; a key out of reach or absent is not found', async () => {
    const key = await publicKey('Public');
    expectStatus(await t.post(`${keysOf(app)}/${key.id}/enable`, { token: dev.token }), 201);
    const theirs = await add(foreign, { title: 'Out of reach', key: sshKey().text }, ROOT_TOKEN);
    expectError(await t.post(`${keysOf(app)}/${theirs.id}/enable`, { token: mia.token }), 404, { message: '404 Deploy Key Not Found' });
    expectError(await t.post(`${keysOf(app)}/999999/enable`, { token: mia.token }), 404, { message: '404 Deploy Key Not Found' });
    const userKey = await t.post('/api/v4/user/keys', { token: mia.token, body: { title: 'Mia’s own', key: sshKey().text } });
    expectError(await t.post(`${keysOf(app)}/${userKey.json().id}/enable`, { token: ROOT_TOKEN }), 404, { message: '404 Deploy Key Not Found' });
    expectStatus(await t.post(`${keysOf(app)}/${theirs.id}/enable`, { token: ROOT_TOKEN }), 201);
  });
});

describe('DELETE /projects/:id/deploy_keys/:key_id', () => {
  test('removes the key from the project; from the system with its last project', async () => {
    const key = sshKey();
    const added = await add(app, { title: 'Going', key: key.text });
    await add(lib, { title: 'x', key: key.text });
    expectError(await t.del(`${keysOf(app)}/${added.id}`, { token: mia.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } }), 412, {
      message: '412 Precondition Failed',
    });
    expectStatus(await t.del(`${keysOf(app)}/${added.id}`, { token: mia.token }), 204);
    expectError(await t.del(`${keysOf(app)}/${added.id}`, { token: mia.token }), 404, { message: '404 Deploy Key Not Found' });
    assert.ok(await t.deps.db.selectFrom('keys').select('id').where('id', '=', added.id).executeTakeFirst());
    expectStatus(await t.del(`${keysOf(lib)}/${added.id}`, { token: mia.token }), 204);
    assert.equal(await t.deps.db.selectFrom('keys').select('id').where('id', '=', added.id).executeTakeFirst(), undefined);
    // Its fingerprint is free again.
    await add(app, { title: 'Back', key: key.text });
  });

  test('a public key stays when no project uses it', async () => {
    const key = await publicKey('Stays');
    await t.deps.db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', key.id).execute();
    await add(app, { title: 'x', key: key.key });
    expectStatus(await t.del(`${keysOf(app)}/${key.id}`, { token: mia.token }), 204);
    assert.ok(await t.deps.db.selectFrom('keys').select('id').where('id', '=', key.id).executeTakeFirst());
  });
});

test('a deploy key outlives the user who added it, shown with the ghost user', async () => {
  const temp = await t.user({ username: 'temp' });
  const project = await createProject(t, { path: 'outlived', members: [[temp.user.id, ACCESS.MAINTAINER]] });
  const key = await add(project, { title: 'Outlives', key: sshKey().text }, temp.token);
  expectStatus(await t.del(`/api/v4/users/${temp.user.id}`, { token: ROOT_TOKEN }), 204);
  assert.deepEqual((await t.get(keysOf(project), { token: ROOT_TOKEN })).json().map((k: { id: number }) => k.id), [key.id]);
  const shown = await t.get(`/api/v4/keys/${key.id}`, { token: ROOT_TOKEN });
  expectStatus(shown, 200);
  assert.equal(shown.json().user.username, 'ghost');
  assert.match(shown.json().key, / Ghost User \(quarry\.test\)$/);
});

describe('keys of a deleted project', () => {
  test('count as gone at once, may be added again, and are removed by the periodic task', async () => {
    const doomed = await createProject(t, { path: 'doomed', members: [[mia.user.id, ACCESS.MAINTAINER]] });
    const key = sshKey();
    const lonely = await add(doomed, { title: 'Lonely', key: key.text });
    const kept = await add(doomed, { title: 'Kept', key: sshKey().text });
    await add(lib, { title: 'x', key: kept.key });
    expectStatus(await t.del(`/api/v4/projects/${doomed.id}`, { token: ROOT_TOKEN }), 202);

    const listed = (await t.get('/api/v4/deploy_keys', { token: ROOT_TOKEN, query: { per_page: '100' } })).json().map((k: { id: number }) => k.id);
    assert.ok(!listed.includes(lonely.id) && listed.includes(kept.id));
    expectError(await t.get(`/api/v4/keys/${lonely.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get('/api/v4/keys', { token: ROOT_TOKEN, query: { fingerprint: key.sha256 } }), 404, { message: '404 Key Not Found' });
    // The same key, added again while the orphaned row still stands, replaces it.
    const again = await add(await createProject(t, { path: 'again' }), { title: 'Lonely again', key: key.text }, ROOT_TOKEN);
    assert.notEqual(again.id, lonely.id);

    const orphan = await add(await createProject(t, { path: 'doomed-too', members: [[mia.user.id, ACCESS.MAINTAINER]] }), { title: 'Orphan', key: sshKey().text });
    await t.deps.db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', orphan.id).execute();
    await removeOrphanedDeployKeysTask.run(t.deps);
    const left = await t.deps.db.selectFrom('keys').select('id').where('id', 'in', [lonely.id, orphan.id, kept.id, again.id]).orderBy('id').execute();
    assert.deepEqual(left.map((r) => r.id), [kept.id, again.id]);
  });
});
