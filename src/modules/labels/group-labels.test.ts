// Group labels through the API: the entity, the list's scope (ancestors, descendants the caller
// may read, the projects' labels), lookups, creation and its conflicts, updates and deletion with
// the deprecated forms, and subscriptions at the group's level.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { GroupLabelEntity } from './labels.schemas.ts';

let t: TestApp;
let reporter: TestUser;
let guest: TestUser;
let projectReporter: TestUser;
let top: NamespaceRow;
let middle: NamespaceRow;
let openChild: NamespaceRow;
let secretChild: NamespaceRow;
let project: ProjectRow;

type Label = { id: number; name: string; subscribed?: boolean; color?: string; description?: string | null };
const names = (res: { json(): unknown }) => (res.json() as Label[]).map((l) => l.name);
const url = (group: NamespaceRow, suffix = '') => `/api/v4/groups/${group.id}/labels${suffix}`;
let sequence = 0;
const fresh = (prefix = 'label') => `${prefix}-${++sequence}`;

async function create(group: NamespaceRow, name: string, token = ROOT_TOKEN, color = '#00ff00'): Promise<Label> {
  const res = await t.post(url(group), { token, body: { name, color } });
  expectStatus(res, 201);
  return res.json() as Label;
}

before(async () => {
  t = await createTestApp();
  reporter = await t.user({ username: 'rep' });
  guest = await t.user({ username: 'gus' });
  projectReporter = await t.user({ username: 'prep' });
  top = await createGroup(t, { path: 'top', visibility: 'public' });
  middle = await createGroup(t, { path: 'middle', visibility: 'public', parent: top, members: [[reporter.user.id, ACCESS.REPORTER], [guest.user.id, ACCESS.GUEST]] });
  openChild = await createGroup(t, { path: 'open', visibility: 'public', parent: middle });
  secretChild = await createGroup(t, { path: 'secret', visibility: 'private', parent: middle });
  project = await createProject(t, { visibility: 'public', namespace: middle, members: [[projectReporter.user.id, ACCESS.REPORTER]] });
  await create(top, 'top-label');
  await create(middle, 'middle-label');
  await create(openChild, 'open-label');
  await create(secretChild, 'secret-label');
  const res = await t.post(`/api/v4/projects/${project.id}/labels`, { token: ROOT_TOKEN, body: { name: 'project-label', color: '#000' } });
  expectStatus(res, 201);
});
after(() => t.close());

describe('GET /groups/:id/labels', () => {
  test('its own and its ancestors’ by default, strict entities without counts', async () => {
    const res = await t.get(url(middle), { token: guest.token });
    expectStatus(res, 200);
    expectEntities(res.json(), GroupLabelEntity);
    assert.deepEqual(names(res), ['middle-label', 'top-label']);
  });

  test('include_ancestor_groups=false, include_descendant_groups=true (the readable ones), only_group_labels=false', async () => {
    const list = (token: string, query: Record<string, string>) => t.get(url(middle), { token, query });
    assert.deepEqual(names(await list(guest.token, { include_ancestor_groups: 'false' })), ['middle-label']);
    // A member of the group reads its private subgroup, a stranger does not.
    assert.deepEqual(names(await list(guest.token, { include_descendant_groups: 'true' })), ['middle-label', 'open-label', 'secret-label', 'top-label']);
    const stranger = await t.user({ username: fresh('stranger') });
    assert.deepEqual(names(await list(stranger.token, { include_descendant_groups: 'true' })), ['middle-label', 'open-label', 'top-label']);
    assert.deepEqual(names(await list(stranger.token, { only_group_labels: 'false' })), ['middle-label', 'project-label', 'top-label']);
  });

  test('search, and a group the caller may not read: 404', async () => {
    assert.deepEqual(names(await t.get(url(middle), { token: guest.token, query: { search: 'top' } })), ['top-label']);
    const stranger = await t.user({ username: fresh('stranger') });
    expectError(await t.get(url(secretChild), { token: stranger.token }), 404, { message: '404 Group Not Found' });
  });
});

describe('GET /groups/:id/labels/:label_id', () => {
  test('by id or title, in the scope asked for', async () => {
    const top1 = ((await t.get(url(top, '/top-label'), { token: guest.token })).json() as Label).id;
    const res = await t.get(url(middle, `/${top1}`), { token: guest.token });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupLabelEntity);
    expectError(await t.get(url(middle, '/top-label'), { token: guest.token, query: { include_ancestor_groups: 'false' } }), 404, { message: '404 Label Not Found' });
    expectError(await t.get(url(middle, '/open-label'), { token: guest.token }), 404, { message: '404 Label Not Found' });
    expectStatus(await t.get(url(middle, '/open-label'), { token: guest.token, query: { include_descendant_groups: 'true' } }), 200);
  });
});

describe('POST /groups/:id/labels', () => {
  test('the group’s reporters create; the whole entity', async () => {
    const res = await t.post(url(middle), { token: reporter.token, body: { name: 'feature', color: 'gold', description: 'New things' } });
    expectStatus(res, 201);
    expectEntity(res.json(), GroupLabelEntity);
    const body = res.json() as Label;
    assert.deepEqual(body, {
      id: body.id,
      name: 'feature',
      color: '#FFD700',
      description: 'New things',
      description_html: 'New things',
      text_color: '#FFFFFF',
      subscribed: false,
    });
  });

  test('refusals: guests and project reporters 403, a title of the group or above 409, the model’s failures 400', async () => {
    expectError(await t.post(url(middle), { token: guest.token, body: { name: fresh(), color: '#000' } }), 403, { message: '403 Forbidden' });
    expectError(await t.post(url(middle), { token: projectReporter.token, body: { name: fresh(), color: '#000' } }), 403, { message: '403 Forbidden' });
    expectError(await t.post(url(middle), { token: reporter.token, body: { name: 'top-label', color: '#000' } }), 409, { message: 'Label already exists' });
    expectError(await t.post(url(middle), { token: reporter.token, body: { name: 'x,y', color: 'nope' } }), 400, {
      message: { color: ['must be a valid color code'], title: ['is invalid'] },
    });
    // Groups have no priorities: the parameter is not theirs, and is ignored.
    expectStatus(await t.post(url(middle), { token: reporter.token, body: { name: fresh(), color: '#000', priority: 1 } }), 201);
  });
});

describe('PUT and DELETE /groups/:id/labels/:label_id', () => {
  test('renames and recolours; a taken title 400; nothing to change 400; the deprecated forms', async () => {
    const label = await create(middle, fresh());
    const other = await create(middle, fresh());
    const renamed = await t.put(url(middle, `/${label.id}`), { token: reporter.token, body: { new_name: fresh('renamed'), color: '#abc' } });
    expectStatus(renamed, 200);
    expectEntity(renamed.json(), GroupLabelEntity);
    assert.equal((renamed.json() as Label).color, '#abc');
    expectError(await t.put(url(middle, `/${label.id}`), { token: reporter.token, body: { new_name: other.name } }), 400, { message: { title: ['has already been taken'] } });
    expectError(await t.put(url(middle, `/${label.id}`), { token: reporter.token, body: { priority: 1 } }), 400, {
      error: 'new_name, color, description are missing, at least one parameter must be provided',
    });
    expectError(await t.put(url(middle, `/${label.id}`), { token: guest.token, body: { color: '#fff' } }), 403, { message: '403 Forbidden' });
    const byName = await t.put(url(middle), { token: reporter.token, body: { name: other.name, description: 'Named' } });
    expectStatus(byName, 200);
    assert.equal((byName.json() as Label).description, 'Named');
    expectStatus(await t.del(url(middle), { token: reporter.token, body: { name: other.name } }), 204);
    expectError(await t.del(url(middle), { token: reporter.token }), 400, { error: 'name is missing' });
  });

  test('deletion: the group’s reporters, not its guests; an ancestor’s label is out of reach', async () => {
    const label = await create(middle, fresh());
    expectError(await t.del(url(middle, `/${label.id}`), { token: guest.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(url(middle, `/${label.id}`), { token: reporter.token }), 204);
    expectError(await t.del(url(middle, '/top-label'), { token: ROOT_TOKEN }), 404, { message: '404 Label Not Found' });
  });
});

describe('POST /groups/:id/labels/:label_id/subscribe and unsubscribe', () => {
  test('at the group’s level: 201, then 304; a subscription in a project is turned off', async () => {
    const label = await create(middle, fresh());
    expectStatus(await t.post(`/api/v4/projects/${project.id}/labels/${label.id}/subscribe`, { token: guest.token }), 201);
    const res = await t.post(url(middle, `/${label.id}/subscribe`), { token: guest.token });
    expectStatus(res, 201);
    expectEntity(res.json(), GroupLabelEntity);
    assert.equal((res.json() as Label).subscribed, true);
    expectStatus(await t.post(url(middle, `/${encodeURIComponent(label.name)}/subscribe`), { token: guest.token }), 304);
    const inProject = (await t.get(`/api/v4/projects/${project.id}/labels/${label.id}`, { token: guest.token })).json() as Label;
    assert.equal(inProject.subscribed, false);
    expectStatus(await t.post(url(middle, `/${label.id}/unsubscribe`), { token: guest.token }), 201);
    expectStatus(await t.post(url(middle, `/${label.id}/unsubscribe`), { token: guest.token }), 304);
  });
});
