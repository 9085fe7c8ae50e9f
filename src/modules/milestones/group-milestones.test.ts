// Group milestones through the API, and promoting a project's milestone to its group: the entity
// and the group's own iids, titles unique among the group's and its projects' milestones, the
// list with the groups above, updates and deletion without activity events, the issues and merge
// requests of the projects directly in the group, burndown events across subgroups, and the
// promotion's merge of every same-titled milestone of the group's projects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { IssueBasicEntity } from '../issues/issues.schemas.ts';
import { MergeRequestBasicEntity } from '../merge-requests/merge-requests.schemas.ts';
import { BurndownEventEntity, MilestoneEntity } from './milestones.schemas.ts';

let t: TestApp;
let developer: TestUser;
let reporter: TestUser;
let group: NamespaceRow;
let sub: NamespaceRow;
let project: ProjectRow;
let subProject: ProjectRow;

type Milestone = { id: number; iid: number; title: string; state: string; group_id?: number; project_id?: number; web_url: string; description: string | null; due_date: string | null; start_date: string | null };

before(async () => {
  t = await createTestApp();
  developer = await t.user({ username: 'gm-dev' });
  reporter = await t.user({ username: 'gm-rep' });
  group = await createGroup(t, { path: 'gm-group', visibility: 'public', members: [[developer.user.id, ACCESS.DEVELOPER], [reporter.user.id, ACCESS.REPORTER]] });
  sub = await createGroup(t, { path: 'gm-sub', visibility: 'public', parent: group });
  project = await createProject(t, { path: 'gm-project', visibility: 'public', namespace: group });
  subProject = await createProject(t, { path: 'gm-sub-project', visibility: 'public', namespace: sub });
});
after(() => t.close());

const groupUrl = (suffix = '', g: { id: number } = group) => `/api/v4/groups/${g.id}/milestones${suffix}`;
const projectUrl = (p: { id: number }, suffix = '') => `/api/v4/projects/${p.id}/milestones${suffix}`;
let sequence = 0;
const fresh = (prefix = 'g') => `${prefix}${++sequence}`;

async function post(where: string, body: Record<string, unknown>, token = developer.token): Promise<Milestone> {
  const res = await t.post(where, { token, body });
  expectStatus(res, 201);
  expectEntity(res.json(), MilestoneEntity);
  return res.json() as Milestone;
}

const milestoneEvents = () => t.deps.db.selectFrom('events').select('action').where('target_type', '=', 'Milestone').execute();

describe('group milestones', () => {
  test('created with the group’s own iids and web address, changed and deleted, recording no activity', async () => {
    const before = (await milestoneEvents()).length;
    const a = await post(groupUrl(), { title: 'Q1', description: 'plans', start_date: '2026-01-01', due_date: '2026-03-31T18:00:00Z' });
    await post(projectUrl(project), { title: fresh() });
    const b = await post(groupUrl(), { title: fresh() });
    assert.deepEqual([a.group_id, a.project_id, a.web_url, a.due_date], [group.id, undefined, `http://quarry.test/groups/gm-group/-/milestones/${a.iid}`, '2026-03-31']);
    assert.equal(b.iid, a.iid + 1);
    const closed = await t.put(groupUrl(`/${a.id}`), { token: developer.token, body: { state_event: 'close', title: 'Q1 (done)' } });
    expectStatus(closed, 200);
    expectEntity(closed.json(), MilestoneEntity);
    assert.deepEqual([closed.json().state, closed.json().title], ['closed', 'Q1 (done)']);
    const one = await t.get(groupUrl(`/${a.id}`), { token: reporter.token });
    expectEntity(one.json(), MilestoneEntity);
    assert.equal(one.json().state, 'closed');
    expectStatus(await t.del(groupUrl(`/${b.id}`), { token: developer.token }), 204);
    expectError(await t.get(groupUrl(`/${b.id}`), { token: reporter.token }), 404, { message: '404 Not found' });
    assert.equal((await milestoneEvents()).length, before + 1, 'only the project milestone’s creation');
  });

  test('a title is unique among the group’s and those of the projects directly in it', async () => {
    const taken = { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' };
    const own = await post(groupUrl(), { title: fresh() });
    expectError(await t.post(groupUrl(), { token: developer.token, body: { title: own.title } }), 400, taken);
    const projects = await post(projectUrl(project), { title: fresh() });
    expectError(await t.post(groupUrl(), { token: developer.token, body: { title: projects.title } }), 400, taken);
    const below = await post(projectUrl(subProject), { title: fresh() }, ROOT_TOKEN);
    await post(groupUrl(), { title: below.title });
    const renamed = await t.put(groupUrl(`/${own.id}`), { token: developer.token, body: { title: projects.title } });
    expectError(renamed, 400, { message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}' });
  });

  test('the list holds the group’s own; include_parent_milestones adds those of the groups above the caller may read', async () => {
    const secret = await createGroup(t, { path: 'gm-secret', visibility: 'private' });
    const open = await createGroup(t, { path: 'gm-open', visibility: 'public', parent: secret });
    await post(groupUrl('', secret), { title: 'hidden' }, ROOT_TOKEN);
    const mine = await post(groupUrl('', open), { title: 'shown', due_date: '2030-01-01' }, ROOT_TOKEN);
    await post(groupUrl('', open), { title: 'later' }, ROOT_TOKEN);
    const titles = async (token: string, query: Record<string, string> = {}) => {
      const res = await t.get(groupUrl('', open), { token, query });
      expectStatus(res, 200);
      expectEntities(res.json(), MilestoneEntity);
      return res.json().map((m: Milestone) => m.title);
    };
    assert.deepEqual(await titles(reporter.token), ['shown', 'later']);
    assert.deepEqual(await titles(reporter.token, { include_parent_milestones: 'true' }), ['shown', 'later']);
    assert.deepEqual(await titles(ROOT_TOKEN, { include_parent_milestones: 'true' }), ['shown', 'later', 'hidden']);
    assert.deepEqual(await titles(reporter.token, { iids: String(mine.iid) }), ['shown']);
    assert.deepEqual(await titles(reporter.token, { search: 'late', state: 'active' }), ['later']);
    const projectMilestone = await post(projectUrl(project), { title: fresh() });
    expectError(await t.get(groupUrl(`/${projectMilestone.id}`), { token: reporter.token }), 404, { message: '404 Not found' });
  });

  test('its issues and merge requests: those of the projects directly in the group; deletion takes it off all of them', async () => {
    const { dir } = await giveRepository(t, project);
    const m = await post(groupUrl(), { title: fresh('shared'), start_date: '2020-01-01', due_date: '2020-02-01' });
    const here = (await t.post(`/api/v4/projects/${project.id}/issues`, { token: ROOT_TOKEN, body: { title: 'here', milestone_id: m.id } })).json();
    const below = (await t.post(`/api/v4/projects/${subProject.id}/issues`, { token: ROOT_TOKEN, body: { title: 'below', milestone_id: m.id } })).json();
    await commitOn(dir, 'gm-topic', { from: 'main' });
    const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'mr', source_branch: 'gm-topic', target_branch: 'main', milestone_id: m.id } });
    expectStatus(mr, 201);

    const issues = await t.get(groupUrl(`/${m.id}/issues`), { token: reporter.token });
    expectStatus(issues, 200);
    expectEntities(issues.json(), IssueBasicEntity);
    assert.deepEqual(
      issues.json().map((i: { title: string }) => i.title),
      ['here'],
    );
    const mrs = await t.get(groupUrl(`/${m.id}/merge_requests`), { token: reporter.token });
    expectStatus(mrs, 200);
    expectEntities(mrs.json(), MergeRequestBasicEntity);
    assert.deepEqual(
      mrs.json().map((r: { title: string }) => r.title),
      ['mr'],
    );
    // The chart counts the milestone's issues in subgroups too.
    const chart = await t.get(groupUrl(`/${m.id}/burndown_events`), { token: reporter.token });
    expectStatus(chart, 200);
    expectEntities(chart.json(), BurndownEventEntity);
    assert.equal(chart.json().length, 0, 'created after the due date');

    expectStatus(await t.del(groupUrl(`/${m.id}`), { token: developer.token }), 204);
    for (const [p, iid] of [[project, here.iid], [subProject, below.iid]] as const) {
      const issue = (await t.get(`/api/v4/projects/${p.id}/issues/${iid}`, { token: ROOT_TOKEN })).json();
      assert.equal(issue.milestone, null);
    }
    assert.equal((await t.get(`/api/v4/projects/${project.id}/merge_requests/${mr.json().iid}`, { token: ROOT_TOKEN })).json().milestone, null);
  });
});

describe('POST /projects/:id/milestones/:milestone_id/promote', () => {
  test('one group milestone replaces every milestone of the title in the group’s projects, their issues and merge requests moved', async () => {
    const home = await createGroup(t, { path: 'promo', visibility: 'public', members: [[developer.user.id, ACCESS.DEVELOPER]] });
    const [first, second] = [await createProject(t, { path: 'promo-a', visibility: 'public', namespace: home }), await createProject(t, { path: 'promo-b', visibility: 'public', namespace: home })];
    const elsewhere = await createProject(t, { path: 'promo-elsewhere', visibility: 'public', namespace: await createGroup(t, { path: 'promo-other' }) });
    const { dir } = await giveRepository(t, second);
    const a = await post(projectUrl(first), { title: 'v2.0', description: 'the release', start_date: '2026-01-01', due_date: '2026-02-01' });
    expectStatus(await t.put(projectUrl(first, `/${a.id}`), { token: developer.token, body: { state_event: 'close' } }), 200);
    const b = await post(projectUrl(second), { title: 'v2.0' });
    const unrelated = await post(projectUrl(second), { title: 'v3.0' });
    const far = await post(projectUrl(elsewhere), { title: 'v2.0' }, ROOT_TOKEN);
    const issueA = (await t.post(`/api/v4/projects/${first.id}/issues`, { token: ROOT_TOKEN, body: { title: 'a', milestone_id: a.id } })).json();
    const issueB = (await t.post(`/api/v4/projects/${second.id}/issues`, { token: ROOT_TOKEN, body: { title: 'b', milestone_id: b.id } })).json();
    const issueC = (await t.post(`/api/v4/projects/${second.id}/issues`, { token: ROOT_TOKEN, body: { title: 'c', milestone_id: unrelated.id } })).json();
    await commitOn(dir, 'promo-topic', { from: 'main' });
    const mr = (await t.post(`/api/v4/projects/${second.id}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'mr', source_branch: 'promo-topic', target_branch: 'main', milestone_id: b.id } })).json();

    const res = await t.post(projectUrl(first, `/${a.id}/promote`), { token: developer.token });
    expectStatus(res, 200);
    assert.equal(res.json(), 200);

    const list = await t.get(groupUrl('', home), { token: developer.token });
    expectEntities(list.json(), MilestoneEntity);
    assert.equal(list.json().length, 1);
    const promoted = list.json()[0] as Milestone;
    assert.deepEqual(
      [promoted.title, promoted.description, promoted.start_date, promoted.due_date, promoted.state, promoted.group_id],
      ['v2.0', 'the release', '2026-01-01', '2026-02-01', 'active', home.id],
    );
    for (const [p, iid, want] of [[first, issueA.iid, promoted.id], [second, issueB.iid, promoted.id], [second, issueC.iid, unrelated.id]] as const) {
      const issue = (await t.get(`/api/v4/projects/${p.id}/issues/${iid}`, { token: ROOT_TOKEN })).json();
      assert.equal(issue.milestone.id, want);
    }
    assert.equal((await t.get(`/api/v4/projects/${second.id}/merge_requests/${mr.iid}`, { token: ROOT_TOKEN })).json().milestone.id, promoted.id);
    for (const [p, id] of [[first, a.id], [second, b.id]] as const) expectError(await t.get(projectUrl(p, `/${id}`), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectStatus(await t.get(projectUrl(elsewhere, `/${far.id}`), { token: ROOT_TOKEN }), 200);
    const gone = await t.deps.db.selectFrom('events').select('id').where('target_type', '=', 'Milestone').where('target_id', 'in', [a.id, b.id]).execute();
    assert.deepEqual(gone, []);
    // The project lists the group's milestone among its parents'.
    const parents = await t.get(projectUrl(first), { token: developer.token, query: { include_parent_milestones: 'true' } });
    assert.deepEqual(
      parents.json().map((m: Milestone) => m.id),
      [promoted.id],
    );
  });

  test('refusals: a personal project, a caller below Developer in the group, a missing milestone, a title the group has', async () => {
    const personal = await createProject(t, { path: 'promo-personal', visibility: 'public', namespace: await t.deps.db.selectFrom('namespaces').selectAll().where('owner_id', '=', developer.user.id).executeTakeFirstOrThrow() });
    const mine = await post(projectUrl(personal), { title: fresh() });
    expectError(await t.post(projectUrl(personal, `/${mine.id}/promote`), { token: developer.token }), 403, { message: '403 Forbidden' });

    const home = await createGroup(t, { path: 'promo-refusals', visibility: 'public', members: [[reporter.user.id, ACCESS.REPORTER], [developer.user.id, ACCESS.DEVELOPER]] });
    const p = await createProject(t, { path: 'promo-r', visibility: 'public', namespace: home, members: [[reporter.user.id, ACCESS.DEVELOPER]] });
    const m = await post(projectUrl(p), { title: 'dup' });
    expectError(await t.post(projectUrl(p, `/${m.id}/promote`), { token: reporter.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(projectUrl(p, '/999999/promote'), { token: developer.token }), 404, { message: '404 Not found' });
    // Titles cannot meet this way through the API; a group milestone that has the title anyway refuses the promotion.
    const at = new Date().toISOString();
    await t.deps.db.insertInto('milestones').values({ project_id: null, group_id: home.id, iid: 99, title: 'dup', description: null, due_date: null, start_date: null, created_at: at, updated_at: at }).execute();
    expectError(await t.post(projectUrl(p, `/${m.id}/promote`), { token: developer.token }), 400, { message: 'Promotion failed - Title already being used for another group or project milestone.' });
    expectStatus(await t.get(projectUrl(p, `/${m.id}`), { token: developer.token }), 200);
  });
});
