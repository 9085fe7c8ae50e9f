// Badges through the API: a project's own and its groups' (oldest first, rendered with the
// project's placeholders), a group's own (rendered as given), previews, changes, the platform's
// refusals (invalid URLs, unknown badges, a group badge removed through a project).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createGroup } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { BadgeEntity, BasicBadgeEntity } from './badges.schemas.ts';

let t: TestApp;
let owner: TestUser;
let parent: NamespaceRow;
let group: NamespaceRow;
let project: ProjectRow;
let sha: string;

const LINK = 'https://ci.example.com/%{project_path}/-/commits/%{default_branch}';
const IMAGE = 'https://ci.example.com/%{project_id}/badges/%{commit_sha}/pipeline.svg';

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'badger' });
  parent = await createGroup(t, { path: 'outer', members: [[owner.user.id, ACCESS.OWNER]] });
  group = await createGroup(t, { path: 'inner', parent });
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'app', path: 'app', namespace_id: group.id, initialize_with_readme: true } });
  assert.equal(res.statusCode, 201, res.body);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  const branch = await t.get(`/api/v4/projects/${project.id}/repository/branches/main`, { token: ROOT_TOKEN });
  sha = branch.json().commit.id;
});
after(() => t.close());

const projectUrl = (suffix = '') => `/api/v4/projects/${project.id}/badges${suffix}`;
const groupUrl = (g: NamespaceRow, suffix = '') => `/api/v4/groups/${g.id}/badges${suffix}`;

async function add(url: string, body: Record<string, unknown>): Promise<{ id: number }> {
  const res = await t.post(url, { token: owner.token, body });
  expectStatus(res, 201);
  return res.json();
}

describe('project badges', () => {
  test('creates one and renders its placeholders with the project', async () => {
    const res = await t.post(projectUrl(), { token: owner.token, body: { link_url: LINK, image_url: IMAGE, name: 'pipeline' } });
    expectStatus(res, 201);
    expectEntity(res.json(), BadgeEntity);
    assert.deepEqual(res.json(), {
      id: res.json().id,
      name: 'pipeline',
      link_url: LINK,
      image_url: IMAGE,
      rendered_link_url: 'https://ci.example.com/outer/inner/app/-/commits/main',
      rendered_image_url: `https://ci.example.com/${project.id}/badges/${sha}/pipeline.svg`,
      kind: 'project',
    });
    const shown = await t.get(projectUrl(`/${res.json().id}`), { token: owner.token });
    expectStatus(shown, 200);
    assert.deepEqual(shown.json(), res.json());
  });

  test("lists its own badges and its groups' (kind group, rendered for the project), oldest first, by name", async () => {
    const fresh = await createGroup(t, { path: 'solo', members: [[owner.user.id, ACCESS.OWNER]] });
    const made = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'lone', namespace_id: fresh.id } });
    expectStatus(made, 201);
    const lone = made.json().id;
    const fromGroup = await add(groupUrl(fresh), { link_url: 'https://x.example/%{project_path}', image_url: 'https://x.example/i.svg', name: 'g' });
    const own = await add(`/api/v4/projects/${lone}/badges`, { link_url: 'https://y.example/%{project_id}', image_url: 'https://y.example/i.svg' });
    const res = await t.get(`/api/v4/projects/${lone}/badges`, { token: owner.token });
    expectStatus(res, 200);
    expectEntities(res.json(), BadgeEntity);
    assert.deepEqual(res.json(), [
      { id: fromGroup.id, name: 'g', link_url: 'https://x.example/%{project_path}', image_url: 'https://x.example/i.svg', rendered_link_url: 'https://x.example/solo/lone', rendered_image_url: 'https://x.example/i.svg', kind: 'group' },
      { id: own.id, name: null, link_url: 'https://y.example/%{project_id}', image_url: 'https://y.example/i.svg', rendered_link_url: `https://y.example/${lone}`, rendered_image_url: 'https://y.example/i.svg', kind: 'project' },
    ]);
    assert.equal(res.headers['x-total'], '2');
    const named = await t.get(`/api/v4/projects/${lone}/badges`, { token: owner.token, query: { name: 'g' } });
    assert.deepEqual(named.json().map((b: { id: number }) => b.id), [fromGroup.id]);
    // A parent group's badge reaches the projects of its subgroups.
    const outer = await add(groupUrl(parent), { link_url: 'https://outer.example', image_url: 'https://outer.example/i.png' });
    const deep = await t.get(projectUrl(), { token: owner.token, query: { per_page: '100' } });
    assert.ok(deep.json().some((b: { id: number; kind: string }) => b.id === outer.id && b.kind === 'group'));
  });

  test('renders a preview; an empty repository renders its commit empty', async () => {
    const res = await t.get(projectUrl('/render'), { token: owner.token, query: { link_url: LINK, image_url: IMAGE } });
    expectStatus(res, 200);
    expectEntity(res.json(), BasicBadgeEntity);
    assert.deepEqual(res.json(), {
      name: null,
      link_url: LINK,
      image_url: IMAGE,
      rendered_link_url: 'https://ci.example.com/outer/inner/app/-/commits/main',
      rendered_image_url: `https://ci.example.com/${project.id}/badges/${sha}/pipeline.svg`,
    });
    const empty = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'bare', namespace_id: group.id } });
    const bare = await t.get(`/api/v4/projects/${empty.json().id}/badges/render`, { token: owner.token, query: { link_url: 'https://a.example/%{commit_sha}/%{unknown}', image_url: 'https://a.example/%{default_branch}' } });
    expectStatus(bare, 200);
    assert.deepEqual([bare.json().rendered_link_url, bare.json().rendered_image_url], ['https://a.example//%{unknown}', 'https://a.example/']);
    expectError(await t.get(projectUrl('/render'), { token: owner.token, query: { link_url: 'ftp://a', image_url: 'nope' } }), 400, {
      message: { link_url: ['must be a valid URL'], image_url: ['must be a valid URL'] },
    });
    expectError(await t.get(projectUrl('/render'), { token: owner.token, query: { link_url: 'https://a.example' } }), 400, { error: 'image_url is missing' });
  });

  test('updates, keeping what is not given; refuses bad URLs and unknown badges', async () => {
    const badge = await add(projectUrl(), { link_url: 'https://a.example', image_url: 'https://a.example/i.svg', name: 'first' });
    const res = await t.put(projectUrl(`/${badge.id}`), { token: owner.token, body: { image_url: 'https://b.example/%{project_id}.svg' } });
    expectStatus(res, 200);
    expectEntity(res.json(), BadgeEntity);
    assert.deepEqual([res.json().name, res.json().link_url, res.json().rendered_image_url], ['first', 'https://a.example', `https://b.example/${project.id}.svg`]);
    const before = await t.deps.db.selectFrom('badges').selectAll().where('id', '=', badge.id).executeTakeFirstOrThrow();
    expectError(await t.put(projectUrl(`/${badge.id}`), { token: owner.token, body: { link_url: 'javascript:alert(1)' } }), 400, { message: { link_url: ['must be a valid URL'] } });
    assert.deepEqual(await t.deps.db.selectFrom('badges').selectAll().where('id', '=', badge.id).executeTakeFirstOrThrow(), before);
    expectError(await t.put(projectUrl('/999999'), { token: owner.token, body: { name: 'x' } }), 404, { message: '404 Not found' });
    expectError(await t.get(projectUrl('/999999'), { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(projectUrl('/abc'), { token: owner.token }), 400, { error: 'badge_id is invalid' });
  });

  test('creation refusals write nothing', async () => {
    const count = await t.count('badges');
    expectError(await t.post(projectUrl(), { token: owner.token, body: {} }), 400, { error: 'link_url is missing, image_url is missing' });
    expectError(await t.post(projectUrl(), { token: owner.token, body: { link_url: 'example.com', image_url: 'https://a.example/i.svg' } }), 400, { message: { link_url: ['must be a valid URL'] } });
    assert.equal(await t.count('badges'), count);
  });

  test('deletes its own; a group badge only through the group', async () => {
    const badge = await add(projectUrl(), { link_url: 'https://a.example', image_url: 'https://a.example/i.svg' });
    expectStatus(await t.del(projectUrl(`/${badge.id}`), { token: owner.token }), 204);
    expectError(await t.del(projectUrl(`/${badge.id}`), { token: owner.token }), 404, { message: '404 Not found' });
    const groupBadge = await add(groupUrl(group), { link_url: 'https://g.example', image_url: 'https://g.example/i.svg' });
    expectError(await t.del(projectUrl(`/${groupBadge.id}`), { token: owner.token }), 403, { error: 'To delete a Group badge please use the Group endpoint' });
    expectStatus(await t.del(groupUrl(group, `/${groupBadge.id}`), { token: owner.token }), 204);
  });
});

describe('group badges', () => {
  test('are listed, shown and previewed as given, without placeholders filled in', async () => {
    const badge = await add(groupUrl(group), { link_url: LINK, image_url: IMAGE, name: 'g' });
    const list = await t.get(groupUrl(group), { token: owner.token });
    expectStatus(list, 200);
    expectEntities(list.json(), BadgeEntity);
    assert.deepEqual(list.json(), [{ id: badge.id, name: 'g', link_url: LINK, image_url: IMAGE, rendered_link_url: LINK, rendered_image_url: IMAGE, kind: 'group' }]);
    const render = await t.get(groupUrl(group, '/render'), { token: owner.token, query: { link_url: LINK, image_url: IMAGE } });
    assert.deepEqual(render.json(), { name: null, link_url: LINK, image_url: IMAGE, rendered_link_url: LINK, rendered_image_url: IMAGE });
    // The parent's badges are not the subgroup's.
    const outer = await t.get(groupUrl(parent), { token: owner.token });
    assert.equal(outer.json().some((b: { id: number }) => b.id === badge.id), false);
    const updated = await t.put(groupUrl(group, `/${badge.id}`), { token: owner.token, body: { name: 'renamed' } });
    expectEntity(updated.json(), BadgeEntity);
    assert.equal(updated.json().name, 'renamed');
    expectError(await t.get(groupUrl(parent, `/${badge.id}`), { token: owner.token }), 404, { message: '404 Not found' });
  });

  test('go with their group; a project takes its badges with it', async () => {
    const doomed = await createGroup(t, { path: 'doomed', members: [[owner.user.id, ACCESS.OWNER]] });
    const badge = await add(groupUrl(doomed), { link_url: 'https://a.example', image_url: 'https://a.example/i.svg' });
    await t.deps.db.deleteFrom('namespaces').where('id', '=', doomed.id).execute();
    assert.equal(await t.deps.db.selectFrom('badges').select('id').where('id', '=', badge.id).executeTakeFirst(), undefined);
  });
});
