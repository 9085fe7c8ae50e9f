// A release's asset links through the API: listing (newest first, paged), reading, creating,
// changing and deleting them, the model's validation messages by field, the platform's
// "404 Not found" for an absent release or link, and protected tags.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { updateRef } from '../../git/refs.ts';
import { LinkEntity, ReleaseEntity } from './releases.schemas.ts';

let t: TestApp;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;
let head: string;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  developer = await t.user({ username: 'dev' });
  reporter = await t.user({ username: 'rep' });
  project = await createProject(t, { path: 'linked', visibility: 'private', members: [[developer.user.id, ACCESS.DEVELOPER], [reporter.user.id, ACCESS.REPORTER]] });
  ({ dir, head } = await giveRepository(t, project));
});
after(() => t.close());

const webUrl = `${BASE_URL}/root/linked`;

/** A release of a tag of its own. */
async function release(tag = `v${++sequence}`): Promise<string> {
  await updateRef(dir, `refs/tags/${tag}`, head);
  expectStatus(await t.post(`/api/v4/projects/${project.id}/releases`, { token: developer.token, body: { tag_name: tag } }), 201);
  return tag;
}
const links = (tag: string, suffix = '') => `/api/v4/projects/${project.id}/releases/${encodeURIComponent(tag)}/assets/links${suffix}`;
const add = (tag: string, body: Record<string, unknown>, token = developer.token) => t.post(links(tag), { token, body });

describe('release links', () => {
  test('created, read, listed newest first and paged, changed and deleted; the release shows them', async () => {
    const tag = await release();
    const created = await add(tag, { name: 'app.dmg', url: 'https://example.com/app.dmg', filepath: '/bin/app.dmg', link_type: 'image' });
    expectStatus(created, 201);
    expectEntity(created.json(), LinkEntity);
    const id = created.json().id;
    assert.deepEqual(created.json(), {
      id,
      name: 'app.dmg',
      url: 'https://example.com/app.dmg',
      direct_asset_url: `${webUrl}/-/releases/${tag}/downloads/bin/app.dmg`,
      external: true,
      link_type: 'image',
    });
    const second = await add(tag, { name: 'runbook', url: `${webUrl}/-/wikis/runbook` });
    expectStatus(second, 201);
    assert.deepEqual({ external: second.json().external, link_type: second.json().link_type, direct: second.json().direct_asset_url }, { external: false, link_type: 'other', direct: `${webUrl}/-/wikis/runbook` });

    const list = await t.get(links(tag), { token: reporter.token });
    expectStatus(list, 200);
    expectEntities(list.json(), LinkEntity);
    assert.deepEqual(list.json().map((l: { name: string }) => l.name), ['runbook', 'app.dmg']);
    const paged = await t.get(links(tag), { token: reporter.token, query: { per_page: '1', page: '2' } });
    assert.deepEqual(paged.json().map((l: { name: string }) => l.name), ['app.dmg']);
    assert.equal(paged.headers['x-total'], '2');

    const one = await t.get(links(tag, `/${id}`), { token: reporter.token });
    expectStatus(one, 200);
    assert.deepEqual(one.json(), created.json());

    const changed = await t.put(links(tag, `/${id}`), { token: developer.token, body: { name: 'app-1.dmg', link_type: 'package' } });
    expectStatus(changed, 200);
    expectEntity(changed.json(), LinkEntity);
    assert.deepEqual([changed.json().name, changed.json().url, changed.json().link_type], ['app-1.dmg', 'https://example.com/app.dmg', 'package']);

    const shown = (await t.get(`/api/v4/projects/${project.id}/releases/${tag}`, { token: reporter.token })).json();
    expectEntity(shown, ReleaseEntity);
    assert.equal(shown.assets.count, 6);
    assert.deepEqual(shown.assets.links.map((l: { name: string }) => l.name), ['runbook', 'app-1.dmg']);

    const deleted = await t.del(links(tag, `/${id}`), { token: developer.token });
    expectStatus(deleted, 200);
    assert.deepEqual(deleted.json(), changed.json());
    expectError(await t.get(links(tag, `/${id}`), { token: reporter.token }), 404, { message: '404 Not found' });
  });

  test('validation messages by field, as the model gives them', async () => {
    const tag = await release();
    expectStatus(await add(tag, { name: 'taken', url: 'https://example.com/taken', filepath: '/bin/taken' }), 201);
    expectError(await add(tag, { name: 'taken', url: 'https://example.com/taken', filepath: '/bin/taken' }), 400, {
      message: { url: ['has already been taken'], name: ['has already been taken'], filepath: ['has already been taken'] },
    });
    expectError(await add(tag, { name: '', url: '' }), 400, { message: { url: ["can't be blank", 'must be a valid URL'], name: ["can't be blank"] } });
    expectError(await add(tag, { name: 'x', url: 'ssh://example.com/x' }), 400, { message: { url: ['is blocked: Only allowed schemes are http, https, ftp'] } });
    expectError(await add(tag, { name: 'x', url: 'ftp://example.com/x', filepath: '/a//b' }), 400, { message: { filepath: ['is in an invalid format'] } });
    expectError(await add(tag, { name: 'x', url: 'ftp://example.com/x', filepath: `/${'a'.repeat(128)}` }), 400, { message: { filepath: ['is too long (maximum is 128 characters)'] } });
    expectError(await add(tag, { name: 'x' }), 400, { error: 'url is missing' });
    expectError(await add(tag, { name: 'x', url: 'https://example.com/x', link_type: 'binary' }), 400, { error: 'link_type does not have a valid value' });
    const other = await add(tag, { name: 'other', url: '  https://example.com/other  ' });
    expectStatus(other, 201);
    assert.equal(other.json().url, 'https://example.com/other');
    expectError(await t.put(links(tag, `/${other.json().id}`), { token: developer.token, body: { url: 'https://example.com/taken' } }), 400, { message: { url: ['has already been taken'] } });
    expectError(await t.put(links(tag, `/${other.json().id}`), { token: developer.token, body: { link_type: 'image' } }), 400, {
      error: 'name, url are missing, at least one parameter must be provided',
    });
    // Its own values are no clash.
    expectStatus(await t.put(links(tag, `/${other.json().id}`), { token: developer.token, body: { name: 'other', url: 'https://example.com/other' } }), 200);
  });

  test('absent release or link: "404 Not found"; reporters read, developers write; a protected tag keeps developers out', async () => {
    const tag = await release();
    expectError(await t.get(links('nope'), { token: reporter.token }), 404, { message: '404 Not found' });
    expectError(await add('nope', { name: 'a', url: 'https://example.com/a' }), 404, { message: '404 Not found' });
    for (const id of ['999999', 'abc']) expectError(await t.get(links(tag, `/${id}`), { token: reporter.token }), 404, { message: '404 Not found' });
    expectError(await add(tag, { name: 'a', url: 'https://example.com/a' }, reporter.token), 403, { message: '403 Forbidden' });
    expectError(await t.put(links(tag, '/999999'), { token: reporter.token, body: { name: 'b' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(links(tag, '/999999'), { token: developer.token, body: { name: 'b' } }), 404, { message: '404 Not found' });

    const guarded = await release('prod-1');
    expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_tags`, { token: ROOT_TOKEN, body: { name: 'prod-*', create_access_level: ACCESS.MAINTAINER } }), 201);
    expectError(await add(guarded, { name: 'a', url: 'https://example.com/a' }), 403, { message: '403 Forbidden' });
    expectStatus(await add(guarded, { name: 'a', url: 'https://example.com/a' }, ROOT_TOKEN), 201);
    expectStatus(await t.get(links(guarded), { token: reporter.token }), 200);
  });
});
