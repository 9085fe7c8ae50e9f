// Issue boards through the API: a project's boards (the whole entity with its project, lists and
// scope), their label lists (created at the end, moved, removed, positions kept 0…n-1), a group's
// boards, and the platform's refusals (blank names, labels from elsewhere or listed twice, moves
// out of range, unknown boards and lists, callers below Reporter).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup } from '../../../test/factories.ts';
import { BASE_URL, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { BoardEntity, BoardListEntity } from './boards.schemas.ts';

let t: TestApp;
let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: NamespaceRow;
let projectId: number;
const labels: Record<string, number> = {};

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  reporter = await t.user({ username: 'rep', name: 'Rita Reporter' });
  guest = await t.user({ username: 'guest' });
  stranger = await t.user({ username: 'stranger' });
  group = await createGroup(t, { path: 'team', name: 'Team', visibility: 'public', members: [[owner.user.id, ACCESS.OWNER], [reporter.user.id, ACCESS.REPORTER], [guest.user.id, ACCESS.GUEST]] });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Boards', namespace_id: group.id, visibility: 'public' } });
  expectStatus(res, 201);
  projectId = res.json().id;
  for (const name of ['Doing', 'Review', 'Done']) {
    const label = await t.post(`/api/v4/projects/${projectId}/labels`, { token: owner.token, body: { name, color: '#FF0000', description: `${name} work` } });
    expectStatus(label, 201);
    labels[name] = label.json().id;
  }
  const groupLabel = await t.post(`/api/v4/groups/${group.id}/labels`, { token: owner.token, body: { name: 'Team-wide', color: '#EEEEEE' } });
  expectStatus(groupLabel, 201);
  labels.group = groupLabel.json().id;
  const elsewhere = await t.post('/api/v4/projects', { token: stranger.token, body: { name: 'Elsewhere' } });
  labels.elsewhere = (await t.post(`/api/v4/projects/${elsewhere.json().id}/labels`, { token: stranger.token, body: { name: 'Foreign', color: '#000000' } })).json().id;
});
after(() => t.close());

const boards = (suffix = '') => `/api/v4/projects/${projectId}/boards${suffix}`;
const labelJson = (name: string, color = '#FF0000', description: string | null = `${name} work`) => ({
  id: labels[name === 'Team-wide' ? 'group' : name],
  name,
  color,
  description,
  description_html: description,
  text_color: color === '#EEEEEE' ? '#333333' : '#FFFFFF',
});

describe('project boards', () => {
  test('created with a name, read whole, renamed and scoped, listed with paging headers', async () => {
    expectStatus(await t.get(boards(), { token: owner.token }), 200);
    assert.deepEqual((await t.get(boards(), { token: owner.token })).json(), []);
    const created = await t.post(boards(), { token: reporter.token, body: { name: 'Development' } });
    expectStatus(created, 201);
    expectEntity(created.json(), BoardEntity);
    const id = created.json().id;
    assert.deepEqual(created.json(), {
      id,
      name: 'Development',
      hide_backlog_list: false,
      hide_closed_list: false,
      project: created.json().project,
      lists: [],
      group: null,
      milestone: null,
      assignee: null,
      labels: [],
      weight: null,
    });

    assert.equal(created.json().project.id, projectId);
    assert.equal(created.json().project.path_with_namespace, 'team/boards');
    assert.equal('_links' in created.json().project, false);
    const milestone = await t.post(`/api/v4/projects/${projectId}/milestones`, { token: owner.token, body: { title: '1.0' } });
    const updated = await t.put(boards(`/${id}`), { token: owner.token, body: { name: 'Dev', hide_closed_list: true, milestone_id: milestone.json().id, assignee_id: reporter.user.id, weight: 3 } });
    expectStatus(updated, 200);
    expectEntity(updated.json(), BoardEntity);
    assert.equal(updated.json().name, 'Dev');
    assert.equal(updated.json().hide_closed_list, true);
    assert.deepEqual(updated.json().milestone, milestone.json());
    assert.deepEqual(updated.json().assignee, { id: reporter.user.id, username: 'rep', name: 'Rita Reporter', state: 'active', avatar_url: null, web_url: `${BASE_URL}/rep` });
    assert.equal(updated.json().weight, 3);
    // A milestone the board may not use is dropped, as the platform filters it.
    const elsewhere = await t.put(boards(`/${id}`), { token: owner.token, body: { milestone_id: 999999 } });
    assert.equal(elsewhere.json().milestone, null);

    const second = await t.post(boards(), { token: owner.token, body: { name: 'Second' } });
    const page = await t.get(boards(), { token: guest.token, query: { per_page: '1', page: '2' } });
    expectStatus(page, 200);
    expectEntities(page.json(), BoardEntity);
    assert.deepEqual(page.json().map((b: { id: number }) => b.id), [second.json().id]);
    assert.equal(page.headers['x-total'], '2');
    assert.equal(page.headers['x-page'], '2');
    const one = await t.get(boards(`/${id}`), { token: guest.token });
    expectStatus(one, 200);
    assert.deepEqual(one.json(), { ...updated.json(), milestone: null });

    expectStatus(await t.del(boards(`/${second.json().id}`), { token: owner.token }), 204);
    expectError(await t.get(boards(`/${second.json().id}`), { token: owner.token }), 404, { message: '404 Not found' });
    // The last board stays, though the answer is the same.
    expectStatus(await t.del(boards(`/${id}`), { token: owner.token }), 204);
    expectStatus(await t.get(boards(`/${id}`), { token: owner.token }), 200);
  });

  test('refusals: blank names, unknown boards, callers below Reporter, anonymous callers', async () => {
    const id = (await t.get(boards(), { token: owner.token })).json()[0].id;
    expectError(await t.post(boards(), { token: owner.token, body: {} }), 400, { error: 'name is missing' });
    expectError(await t.post(boards(), { token: owner.token, body: { name: ' ' } }), 400, { message: { name: ["can't be blank"] } });
    expectError(await t.put(boards(`/${id}`), { token: owner.token, body: { name: '' } }), 400, { message: '400 Bad request - Failed to save board {:name=>["can\'t be blank"]}' });
    expectError(await t.post(boards(), { token: owner.token, body: { name: 'x'.repeat(256) } }), 400, { error: 'name is invalid' });
    expectError(await t.put(boards(`/${id}`), { token: owner.token, body: { name: 'x'.repeat(256) } }), 400, { error: 'name is invalid' });
    expectError(await t.get(boards('/999999'), { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(boards('/abc'), { token: owner.token }), 400, { error: 'board_id is invalid' });
    expectError(await t.post(boards(), { token: guest.token, body: { name: 'No' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(boards(`/${id}`), { token: stranger.token, body: { name: 'No' } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(boards(`/${id}`), { token: guest.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(boards()), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/projects/999999/boards', { token: owner.token }), 404, { message: '404 Project Not Found' });
  });
});

describe('board lists', () => {
  test('label lists at the end, moved and removed with positions kept in order', async () => {
    const board = (await t.post(boards(), { token: owner.token, body: { name: 'Flow' } })).json().id;
    const lists = boards(`/${board}/lists`);
    const ids: Record<string, number> = {};
    for (const name of ['Doing', 'Review', 'Done']) {
      const res = await t.post(lists, { token: reporter.token, body: { label_id: labels[name] } });
      expectStatus(res, 201);
      expectEntity(res.json(), BoardListEntity);
      ids[name] = res.json().id;
    }
    const groupList = await t.post(lists, { token: owner.token, body: { label_id: labels.group } });
    expectStatus(groupList, 201);
    assert.deepEqual(groupList.json(), { id: groupList.json().id, label: labelJson('Team-wide', '#EEEEEE', null), position: 3, max_issue_count: 0, max_weight: 0, limit_metric: null });

    const all = await t.get(lists, { token: guest.token });
    expectStatus(all, 200);
    expectEntities(all.json(), BoardListEntity);
    assert.deepEqual(all.json()[0], { id: ids.Doing, label: labelJson('Doing'), position: 0, max_issue_count: 0, max_weight: 0, limit_metric: null });
    assert.equal(all.headers['x-total'], '4');

    const moved = await t.put(`${lists}/${ids.Done}`, { token: reporter.token, body: { position: 0 } });
    expectStatus(moved, 200);
    expectEntity(moved.json(), BoardListEntity);
    assert.equal(moved.json().position, 0);
    const order = async () => (await t.get(lists, { token: owner.token })).json().map((l: { label: { name: string }; position: number }) => `${l.position}:${l.label.name}`);
    assert.deepEqual(await order(), ['0:Done', '1:Doing', '2:Review', '3:Team-wide']);
    await t.put(`${lists}/${ids.Done}`, { token: reporter.token, body: { position: 2 } });
    assert.deepEqual(await order(), ['0:Doing', '1:Review', '2:Done', '3:Team-wide']);

    expectStatus(await t.del(`${lists}/${ids.Review}`, { token: reporter.token }), 204);
    assert.deepEqual(await order(), ['0:Doing', '1:Done', '2:Team-wide']);
    const one = await t.get(`${lists}/${ids.Done}`, { token: guest.token });
    expectStatus(one, 200);
    assert.equal(one.json().position, 1);

    // The board shows its lists.
    assert.deepEqual((await t.get(boards(`/${board}`), { token: owner.token })).json().lists, (await t.get(lists, { token: owner.token })).json());

    // A deleted label takes its list with it.
    expectStatus(await t.del(`/api/v4/projects/${projectId}/labels/${labels.Doing}`, { token: owner.token }), 204);
    assert.deepEqual((await order()).map((s: string) => s.split(':')[1]), ['Done', 'Team-wide']);
  });

  test('refusals: foreign or missing labels, labels listed twice, moves out of range, unknown lists, callers below Reporter', async () => {
    const board = (await t.post(boards(), { token: owner.token, body: { name: 'Refusals' } })).json().id;
    const lists = boards(`/${board}/lists`);
    const list = (await t.post(lists, { token: owner.token, body: { label_id: labels.Review } })).json().id;
    expectError(await t.post(lists, { token: owner.token, body: { label_id: labels.elsewhere } }), 400, { message: { error: 'Label not found!' } });
    expectError(await t.post(lists, { token: owner.token, body: { label_id: 999999 } }), 400, { message: { error: 'Label not found!' } });
    expectError(await t.post(lists, { token: owner.token, body: {} }), 400, { error: 'label_id is missing' });
    expectError(await t.post(lists, { token: owner.token, body: { label_id: labels.Review } }), 400, { message: { label: ['has already been taken'] } });
    expectError(await t.put(`${lists}/${list}`, { token: owner.token, body: { position: 5 } }), 400, { message: { error: 'List could not be moved!' } });
    expectError(await t.put(`${lists}/${list}`, { token: owner.token, body: { position: -1 } }), 400, { message: { error: 'List could not be moved!' } });
    expectError(await t.put(`${lists}/${list}`, { token: owner.token, body: {} }), 400, { error: 'position is missing' });
    expectError(await t.get(`${lists}/999999`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.del(`${lists}/999999`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(boards('/999999/lists'), { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.post(lists, { token: guest.token, body: { label_id: labels.Done } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(`${lists}/${list}`, { token: guest.token, body: { position: 0 } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(`${lists}/${list}`, { token: stranger.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(lists), 401, { message: '401 Unauthorized' });
  });
});

describe('group boards', () => {
  test('a group board with the group, its lists of group labels; refusals', async () => {
    const base = `/api/v4/groups/${group.id}/boards`;
    const created = await t.post(base, { token: reporter.token, body: { name: 'Team board' } });
    expectStatus(created, 201);
    expectEntity(created.json(), BoardEntity);
    const id = created.json().id;
    assert.deepEqual(created.json().group, { id: group.id, web_url: `${BASE_URL}/groups/team`, name: 'Team' });
    assert.equal(created.json().project, null);
    const list = await t.post(`${base}/${id}/lists`, { token: reporter.token, body: { label_id: labels.group } });
    expectStatus(list, 201);
    assert.deepEqual(list.json().label, labelJson('Team-wide', '#EEEEEE', null));
    // A project's label is no group's.
    expectError(await t.post(`${base}/${id}/lists`, { token: reporter.token, body: { label_id: labels.Done } }), 400, { message: { error: 'Label not found!' } });
    const all = await t.get(base, { token: stranger.token });
    expectStatus(all, 200);
    expectEntities(all.json(), BoardEntity);
    assert.deepEqual(all.json()[0].lists, [list.json()]);
    expectError(await t.post(base, { token: guest.token, body: { name: 'No' } }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`/api/v4/groups/${group.id}/boards/${(await t.get(boards(), { token: owner.token })).json()[0].id}`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get('/api/v4/groups/999999/boards', { token: owner.token }), 404, { message: '404 Group Not Found' });
    expectStatus(await t.del(`${base}/${id}/lists/${list.json().id}`, { token: reporter.token }), 204);
  });
});
