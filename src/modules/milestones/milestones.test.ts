// Project milestones through the API: creation with the dates clients send and the model's
// refusals, the list's filters and order, updates with state events, deletion and what it does to
// issues, merge requests and events, a milestone's issues and merge requests, and burndown events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { IssueBasicEntity } from '../issues/issues.schemas.ts';
import { MergeRequestBasicEntity } from '../merge-requests/merge-requests.schemas.ts';
import { BurndownEventEntity, MilestoneEntity } from './milestones.schemas.ts';

let clock = new Date('2026-03-02T09:00:00.000Z');
let t: TestApp;
let developer: TestUser;
let reporter: TestUser;
let group: NamespaceRow;
let project: ProjectRow;

type Milestone = { id: number; iid: number; title: string; description: string | null; state: string; due_date: string | null; start_date: string | null; expired: boolean | null; updated_at: string };

before(async () => {
  t = await createTestApp({}, { now: () => clock });
  developer = await t.user({ username: 'ms-dev' });
  reporter = await t.user({ username: 'ms-rep' });
  group = await createGroup(t, { path: 'ms-group', visibility: 'public', members: [[developer.user.id, ACCESS.DEVELOPER]] });
  project = await createProject(t, { path: 'ms-project', visibility: 'public', namespace: group, members: [[reporter.user.id, ACCESS.REPORTER]] });
});
after(() => t.close());

const url = (suffix = '', p: { id: number } = project) => `/api/v4/projects/${p.id}/milestones${suffix}`;
let sequence = 0;
const fresh = (prefix = 'v') => `${prefix}${++sequence}`;

async function create(body: Record<string, unknown>, p: { id: number } = project): Promise<Milestone> {
  const res = await t.post(url('', p), { token: developer.token, body });
  expectStatus(res, 201);
  expectEntity(res.json(), MilestoneEntity);
  return res.json() as Milestone;
}

const failed = (action: 'create' | 'update', errors: string) => ({ message: `Failed to ${action} milestone ${errors}` });

async function milestoneEvents(targetId: number | null, projectId = project.id) {
  const q = t.deps.db.selectFrom('events').selectAll().where('project_id', '=', projectId).where('target_type', '=', 'Milestone').orderBy('id');
  return (targetId === null ? q : q.where('target_id', '=', targetId)).execute();
}

describe('POST /projects/:id/milestones', () => {
  test('a title alone: the strict entity, active, without dates, and a created event', async () => {
    const m = await create({ title: 'First' });
    assert.deepEqual(
      { ...m, id: 0, created_at: '', updated_at: '' },
      {
        id: 0,
        iid: m.iid,
        project_id: project.id,
        title: 'First',
        description: null,
        state: 'active',
        created_at: '',
        updated_at: '',
        due_date: null,
        start_date: null,
        expired: null,
        web_url: `http://quarry.test/ms-group/ms-project/-/milestones/${m.iid}`,
      },
    );
    const [event] = await milestoneEvents(m.id);
    assert.deepEqual([event.action, event.target_iid, event.target_title, event.author_id], ['created', m.iid, 'First', developer.user.id]);
    const feed = await t.get(`/api/v4/projects/${project.id}/events`, { token: developer.token, query: { target_type: 'milestone' } });
    assert.equal(feed.json()[0].action_name, 'opened');
  });

  test('dates as YYYY-MM-DD or ISO date-times, answered as dates; markup and white space leave the title', async () => {
    const m = await create({ title: '  <b>Release</b> &amp; more ', description: 'the *first*', start_date: '2026-03-01', due_date: '2026-04-01T23:30:00-05:00' });
    assert.deepEqual([m.title, m.description, m.start_date, m.due_date, m.expired], ['Release & more', 'the *first*', '2026-03-01', '2026-04-01', false]);
  });

  test('iids count up and are never handed out twice', async () => {
    const a = await create({ title: fresh() });
    expectStatus(await t.del(url(`/${a.id}`), { token: developer.token }), 204);
    const b = await create({ title: fresh() });
    assert.equal(b.iid, a.iid + 1);
  });

  test('the model’s refusals, in its words', async () => {
    const post = (body: Record<string, unknown>) => t.post(url(), { token: developer.token, body });
    expectError(await post({}), 400, { error: 'title is missing' });
    expectError(await post({ title: '   ' }), 400, failed('create', '{:title=>["can\'t be blank"]}'));
    expectError(await post({ title: null }), 400, failed('create', '{:title=>["can\'t be blank"]}'));
    expectError(await post({ title: '<i></i>' }), 400, failed('create', '{:title=>["can\'t be blank"]}'));
    expectError(await post({ title: 'x'.repeat(256) }), 400, failed('create', '{:title=>["is too long (maximum is 255 characters)"]}'));
    expectError(await post({ title: fresh(), start_date: '2026-05-01', due_date: '2026-05-01' }), 400, failed('create', '{:due_date=>["must be greater than start date"]}'));
    expectError(await post({ title: fresh(), start_date: '2026-05-02', due_date: '2026-05-01' }), 400, failed('create', '{:due_date=>["must be greater than start date"]}'));
    expectError(
      await post({ title: '', start_date: '10000-01-01', due_date: '10001-01-01' }),
      400,
      failed('create', '{:title=>["can\'t be blank"], :start_date=>["date must not be after 9999-12-31"], :due_date=>["date must not be after 9999-12-31"]}'),
    );
    expectError(await post({ title: fresh(), due_date: '2026-02-30' }), 400, { error: 'due_date is invalid' });
    expectError(await post({ title: fresh(), start_date: 'tomorrow' }), 400, { error: 'start_date is invalid' });
    expectError(await post({ title: fresh(), due_date: '03/01/2026' }), 400, { error: 'due_date is invalid' });
  });

  test('a title is unique among the project’s milestones and its group’s', async () => {
    const title = fresh('taken');
    await create({ title });
    const taken = failed('create', '{:title=>["already being used for another group or project milestone."]}');
    expectError(await t.post(url(), { token: developer.token, body: { title } }), 400, taken);
    const groupTitle = fresh('group');
    expectStatus(await t.post(`/api/v4/groups/${group.id}/milestones`, { token: developer.token, body: { title: groupTitle } }), 201);
    expectError(await t.post(url(), { token: developer.token, body: { title: groupTitle } }), 400, taken);
    // Another project's title is free; titles compare with their case.
    const other = await createProject(t, { path: 'ms-other', namespace: await createGroup(t, { path: 'ms-elsewhere' }) });
    expectStatus(await t.post(url('', other), { token: ROOT_TOKEN, body: { title } }), 201);
    expectStatus(await t.post(url(), { token: developer.token, body: { title: title.toUpperCase() } }), 201);
  });
});

describe('GET /projects/:id/milestones', () => {
  let p: ProjectRow;
  const made: Record<string, Milestone> = {};

  before(async () => {
    p = await createProject(t, { path: 'ms-list', visibility: 'public', namespace: group });
    const make = async (title: string, extra: Record<string, unknown> = {}) => {
      made[title] = await create({ title, ...extra }, p);
    };
    await make('alpha', { due_date: '2026-05-01', description: 'the first one' });
    await make('beta');
    await make('gamma', { due_date: '2026-04-01' });
    await make('delta', { description: 'a crash fix' });
    expectStatus(await t.put(url(`/${made.beta.id}`, p), { token: developer.token, body: { state_event: 'close' } }), 200);
  });

  const titles = async (query: Record<string, string | string[]> = {}, projectId = p.id) => {
    const res = await t.get(url('', { id: projectId }), { token: reporter.token, query });
    expectStatus(res, 200);
    expectEntities(res.json(), MilestoneEntity);
    return (res.json() as Milestone[]).map((m) => m.title);
  };

  test('by due date, those without one last and newest first; by state', async () => {
    assert.deepEqual(await titles(), ['gamma', 'alpha', 'delta', 'beta']);
    assert.deepEqual(await titles({ state: 'active' }), ['gamma', 'alpha', 'delta']);
    assert.deepEqual(await titles({ state: 'closed' }), ['beta']);
    assert.deepEqual(await titles({ state: 'all' }), ['gamma', 'alpha', 'delta', 'beta']);
    expectError(await t.get(url('', p), { token: reporter.token, query: { state: 'opened' } }), 400, { error: 'state does not have a valid value' });
  });

  test('iids (an array or a comma list), an exact title, a search of titles and descriptions', async () => {
    assert.deepEqual(await titles({ 'iids[]': [String(made.alpha.iid), String(made.delta.iid)] }), ['alpha', 'delta']);
    assert.deepEqual(await titles({ iids: `${made.beta.iid},${made.gamma.iid}` }), ['gamma', 'beta']);
    assert.deepEqual(await titles({ title: 'alpha' }), ['alpha']);
    assert.deepEqual(await titles({ title: 'Alpha' }), []);
    assert.deepEqual(await titles({ search: 'CRASH' }), ['delta']);
    assert.deepEqual(await titles({ search: 'ga' }), ['gamma']);
    assert.deepEqual(await titles({ search: 'first one' }), ['alpha']);
    expectError(await t.get(url('', p), { token: reporter.token, query: { iids: 'one' } }), 400, { error: 'iids is invalid' });
  });

  test('include_parent_milestones: the group’s and the groups’ above, iids ignored', async () => {
    const top = await createGroup(t, { path: 'ms-top', visibility: 'public' });
    const sub = await createGroup(t, { path: 'ms-sub', visibility: 'public', parent: top });
    const deep = await createProject(t, { path: 'ms-deep', visibility: 'public', namespace: sub });
    for (const [where, title] of [[`/api/v4/groups/${top.id}/milestones`, 'top'], [`/api/v4/groups/${sub.id}/milestones`, 'sub'], [url('', deep), 'own']]) {
      expectStatus(await t.post(where, { token: ROOT_TOKEN, body: { title } }), 201);
    }
    assert.deepEqual(await titles({}, deep.id), ['own']);
    const res = await t.get(url('', deep), { token: reporter.token, query: { include_parent_milestones: 'true', iids: '99' } });
    expectEntities(res.json(), MilestoneEntity);
    const byTitle = Object.fromEntries((res.json() as (Milestone & { group_id?: number; project_id?: number; web_url: string })[]).map((m) => [m.title, m]));
    assert.deepEqual(Object.keys(byTitle), ['own', 'sub', 'top']);
    assert.equal(byTitle.top.group_id, top.id);
    assert.equal(byTitle.top.web_url, 'http://quarry.test/groups/ms-top/-/milestones/1');
    assert.equal(byTitle.sub.web_url, 'http://quarry.test/groups/ms-top/ms-sub/-/milestones/1');
    assert.equal(byTitle.own.project_id, deep.id);
  });

  test('pages, counted in the database', async () => {
    const res = await t.get(url('', p), { token: reporter.token, query: { per_page: '3', page: '2' } });
    expectStatus(res, 200);
    assert.deepEqual([res.headers['x-total'], res.headers['x-total-pages'], res.json().length], ['4', '2', 1]);
  });
});

describe('GET /projects/:id/milestones/:milestone_id', () => {
  test('one of the project’s, by id; another project’s or a group’s is not found', async () => {
    const m = await create({ title: fresh() });
    const res = await t.get(url(`/${m.id}`), { token: reporter.token });
    expectStatus(res, 200);
    expectEntity(res.json(), MilestoneEntity);
    assert.equal(res.json().title, m.title);
    const other = await createProject(t, { visibility: 'public' });
    expectError(await t.get(url(`/${m.id}`, other), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    const groupMilestone = await t.post(`/api/v4/groups/${group.id}/milestones`, { token: ROOT_TOKEN, body: { title: fresh() } });
    expectError(await t.get(url(`/${groupMilestone.json().id}`), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get(url('/999999'), { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get(url('/first'), { token: ROOT_TOKEN }), 400, { error: 'milestone_id is invalid' });
  });

  test('expired: a due date before today (the server’s), not today’s', async () => {
    const yesterday = await create({ title: fresh(), due_date: '2026-03-01' });
    const todays = await create({ title: fresh(), due_date: '2026-03-02' });
    assert.deepEqual([yesterday.expired, todays.expired], [true, false]);
  });
});

describe('PUT /projects/:id/milestones/:milestone_id', () => {
  const put = (m: Milestone, body: unknown) => t.put(url(`/${m.id}`), { token: developer.token, body });

  test('the fields given change; a blank title changes nothing; blank or null dates clear', async () => {
    const m = await create({ title: fresh('edit'), start_date: '2026-03-01', due_date: '2026-03-20' });
    clock = new Date(clock.getTime() + 1000);
    let res = await put(m, { title: ' <em>Renamed</em> ', description: 'now described', due_date: '2026-03-25T08:00:00Z' });
    expectStatus(res, 200);
    expectEntity(res.json(), MilestoneEntity);
    assert.deepEqual([res.json().title, res.json().description, res.json().start_date, res.json().due_date], ['Renamed', 'now described', '2026-03-01', '2026-03-25']);
    assert.notEqual(res.json().updated_at, m.updated_at);
    res = await put(m, { title: '', start_date: '', due_date: null });
    assert.deepEqual([res.json().title, res.json().start_date, res.json().due_date], ['Renamed', null, null]);
    // A key given blank is a parameter given (Grape's at_least_one_of counts keys).
    res = await put(m, { description: '' });
    assert.equal(res.json().description, '');
  });

  test('state_event: close and activate, each once, with their events', async () => {
    const m = await create({ title: fresh('state') });
    const closed = await put(m, { state_event: 'close' });
    expectStatus(closed, 200);
    assert.equal(closed.json().state, 'closed');
    const again = await put(m, { state_event: 'close' });
    assert.deepEqual([again.json().state, again.json().updated_at], ['closed', closed.json().updated_at]);
    assert.equal((await put(m, { state_event: 'activate' })).json().state, 'active');
    assert.deepEqual(
      (await milestoneEvents(m.id)).map((e) => e.action),
      ['created', 'closed', 'reopened'],
    );
    const feed = await t.get(`/api/v4/projects/${project.id}/events`, { token: developer.token, query: { target_type: 'milestone', per_page: '2' } });
    assert.deepEqual(
      feed.json().map((e: { action_name: string }) => e.action_name),
      ['opened', 'closed'],
    );
  });

  test('refusals: nothing to change, a bad state event, dates out of order, a taken title; nothing is written', async () => {
    const m = await create({ title: fresh('refused'), start_date: '2026-03-10' });
    const other = await create({ title: fresh('other') });
    expectError(await put(m, {}), 400, { error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' });
    expectError(await put(m, { state_event: 'reopen' }), 400, { error: 'state_event does not have a valid value' });
    expectError(await put(m, { due_date: '2026-03-10', state_event: 'close' }), 400, failed('update', '{:due_date=>["must be greater than start date"]}'));
    expectError(await put(m, { title: other.title }), 400, failed('update', '{:title=>["already being used for another group or project milestone."]}'));
    expectError(await put(m, { start_date: '2026-13-01' }), 400, { error: 'start_date is invalid' });
    expectError(await put(m, { title: '<b> </b>' }), 400, failed('update', '{:title=>["can\'t be blank"]}'));
    const now = await t.get(url(`/${m.id}`), { token: developer.token });
    assert.deepEqual([now.json().state, now.json().title, now.json().due_date], ['active', m.title, null]);
    // Its own title is no conflict.
    expectStatus(await put(m, { title: m.title }), 200);
  });
});

describe('DELETE /projects/:id/milestones/:milestone_id', () => {
  test('its issues and merge requests lose it with a note, its destroyed event is recorded, its events name it no more', async () => {
    const p = await createProject(t, { path: 'ms-delete', visibility: 'public', namespace: group });
    const { dir } = await giveRepository(t, p);
    const m = await create({ title: 'doomed' }, p);
    expectStatus(await t.put(url(`/${m.id}`, p), { token: developer.token, body: { state_event: 'close' } }), 200);
    const issue = (await t.post(`/api/v4/projects/${p.id}/issues`, { token: developer.token, body: { title: 'planned', milestone_id: m.id } })).json();
    await commitOn(dir, 'topic', { from: 'main' });
    const mr = await t.post(`/api/v4/projects/${p.id}/merge_requests`, { token: developer.token, body: { title: 'work', source_branch: 'topic', target_branch: 'main', milestone_id: m.id } });
    expectStatus(mr, 201);
    clock = new Date(clock.getTime() + 1000);

    expectStatus(await t.del(url(`/${m.id}`, p), { token: developer.token }), 204);
    expectError(await t.get(url(`/${m.id}`, p), { token: developer.token }), 404, { message: '404 Not found' });
    expectError(await t.del(url(`/${m.id}`, p), { token: developer.token }), 404, { message: '404 Not found' });
    const issueNow = (await t.get(`/api/v4/projects/${p.id}/issues/${issue.iid}`, { token: developer.token })).json();
    assert.deepEqual([issueNow.milestone, issueNow.updated_at], [null, clock.toISOString()]);
    const mrNow = (await t.get(`/api/v4/projects/${p.id}/merge_requests/${mr.json().iid}`, { token: developer.token })).json();
    assert.equal(mrNow.milestone, null);
    for (const notes of [`issues/${issue.iid}/notes`, `merge_requests/${mr.json().iid}/notes`]) {
      const bodies = (await t.get(`/api/v4/projects/${p.id}/${notes}`, { token: developer.token })).json().map((n: { body: string }) => n.body);
      assert.ok(bodies.includes('removed milestone'), bodies.join(' | '));
    }
    const events = await milestoneEvents(null, p.id);
    assert.deepEqual(
      events.map((e) => [e.action, e.target_id, e.target_iid, e.target_title]),
      [
        ['created', null, null, null],
        ['closed', null, null, null],
        ['destroyed', null, null, null],
      ],
    );
    const feed = await t.get(`/api/v4/projects/${p.id}/events`, { token: developer.token, query: { target_type: 'milestone' } });
    assert.deepEqual(feed.json()[0].action_name, 'destroyed');
  });
});

describe('GET …/milestones/:milestone_id/issues and merge_requests', () => {
  test('those the caller may read, highest label priority first, then newest first', async () => {
    const p = await createProject(t, { path: 'ms-issuables', visibility: 'public', namespace: group });
    const { dir } = await giveRepository(t, p);
    const m = await create({ title: 'listed' }, p);
    const other = await create({ title: 'elsewhere' }, p);
    for (const [name, priority] of [['p1', 1], ['p2', 2]] as const) {
      expectStatus(await t.post(`/api/v4/projects/${p.id}/labels`, { token: ROOT_TOKEN, body: { name, color: '#ff0000', priority } }), 201);
    }
    const issue = async (title: string, extra: Record<string, unknown> = {}) =>
      (await t.post(`/api/v4/projects/${p.id}/issues`, { token: ROOT_TOKEN, body: { title, milestone_id: m.id, ...extra } })).json().iid as number;
    const plain = await issue('plain');
    const second = await issue('second', { labels: 'p2' });
    const first = await issue('first', { labels: 'p1,p2' });
    const newer = await issue('newer');
    await issue('secret', { confidential: true });
    await issue('not this one', { milestone_id: other.id });
    await issue('none', { milestone_id: null });

    const res = await t.get(url(`/${m.id}/issues`, p), { token: reporter.token });
    expectStatus(res, 200);
    expectEntities(res.json(), IssueBasicEntity);
    assert.deepEqual(
      res.json().map((i: { iid: number }) => i.iid),
      [first, second, newer, plain],
      'a non-member does not see the confidential issue',
    );
    assert.equal(res.json()[0].milestone.title, 'listed');
    const admin = await t.get(url(`/${m.id}/issues`, p), { token: ROOT_TOKEN, query: { per_page: '2' } });
    assert.deepEqual([admin.headers['x-total'], admin.json().length], ['5', 2]);

    for (const [branch, labels] of [['one', ''], ['two', 'p1']]) {
      await commitOn(dir, branch, { from: 'main' });
      expectStatus(await t.post(`/api/v4/projects/${p.id}/merge_requests`, { token: ROOT_TOKEN, body: { title: branch, source_branch: branch, target_branch: 'main', milestone_id: m.id, labels } }), 201);
    }
    const mrs = await t.get(url(`/${m.id}/merge_requests`, p), { token: reporter.token });
    expectStatus(mrs, 200);
    expectEntities(mrs.json(), MergeRequestBasicEntity);
    assert.deepEqual(
      mrs.json().map((r: { title: string }) => r.title),
      ['two', 'one'],
    );
    const none = await t.get(url(`/${other.id}/merge_requests`, p), { token: reporter.token });
    assert.deepEqual(none.json(), []);
    expectError(await t.get(url('/999999/issues', p), { token: reporter.token }), 404, { message: '404 Not found' });
  });
});

describe('GET …/milestones/:milestone_id/burndown_events', () => {
  test('405 without both dates', async () => {
    for (const dates of [{}, { due_date: '2026-04-01' }, { start_date: '2026-04-01' }]) {
      const m = await create({ title: fresh('nochart'), ...dates });
      expectError(await t.get(url(`/${m.id}/burndown_events`), { token: reporter.token }), 405, { message: 'Milestone does not support burndown chart' });
    }
  });

  test('each issue’s creation, closings and reopenings up to the due date, with its weight; a closing without record at the start', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const p = await createProject(t, { path: 'ms-burndown', visibility: 'public', namespace: group });
    const m = await create({ title: 'sprint', start_date: '2026-03-01', due_date: '2026-03-04' }, p);
    const issues = `/api/v4/projects/${p.id}/issues`;
    const a = (await t.post(issues, { token: ROOT_TOKEN, body: { title: 'a', milestone_id: m.id, weight: 3 } })).json();
    const b = (await t.post(issues, { token: ROOT_TOKEN, body: { title: 'b', milestone_id: m.id } })).json();
    const at = async (time: string, event: 'close' | 'reopen', iid = a.iid) => {
      clock = new Date(time);
      expectStatus(await t.put(`${issues}/${iid}`, { token: ROOT_TOKEN, body: { state_event: event } }), 200);
    };
    await at('2026-03-03T10:00:00.000Z', 'close');
    // A second closing on record (a commit and a merge request both closed it) counts once.
    await t.deps.db
      .insertInto('events')
      .values({ project_id: p.id, author_id: 1, action: 'closed', target_type: 'Issue', target_id: a.id, target_iid: a.iid, target_title: 'a', push_data: null, created_at: '2026-03-03T10:30:00.000Z', updated_at: '2026-03-03T10:30:00.000Z' })
      .execute();
    await at('2026-03-04T11:00:00.000Z', 'reopen');
    await at('2026-03-04T12:00:00.000Z', 'close');
    // Closed before events were kept: it counts as closed when the milestone started.
    await t.deps.db.updateTable('issues').set({ state: 'closed' }).where('id', '=', b.id).execute();
    // After the due date: neither the reopening nor the new issue counts.
    await at('2026-03-05T08:00:00.000Z', 'reopen');
    await t.post(issues, { token: ROOT_TOKEN, body: { title: 'late', milestone_id: m.id } });

    const res = await t.get(url(`/${m.id}/burndown_events`, p), { token: reporter.token });
    expectStatus(res, 200);
    expectEntities(res.json(), BurndownEventEntity);
    assert.deepEqual(res.json(), [
      { created_at: '2026-03-02T09:00:00.000Z', weight: null, action: 'created' },
      { created_at: '2026-03-01T00:00:00.000Z', weight: null, action: 'closed' },
      { created_at: '2026-03-02T09:00:00.000Z', weight: 3, action: 'created' },
      { created_at: '2026-03-03T10:00:00.000Z', weight: 3, action: 'closed' },
      { created_at: '2026-03-04T11:00:00.000Z', weight: 3, action: 'reopened' },
      { created_at: '2026-03-04T12:00:00.000Z', weight: 3, action: 'closed' },
    ]);
  });
});

test('archived projects keep their milestones readable and unchangeable', async () => {
  const archived = await createProject(t, { path: 'ms-archived', visibility: 'public', namespace: group, archived: true });
  await addMember(t, archived, reporter.user.id, ACCESS.MAINTAINER);
  expectStatus(await t.get(url('', archived), { token: reporter.token }), 200);
  expectError(await t.post(url('', archived), { token: reporter.token, body: { title: 'no' } }), 403, { message: '403 Forbidden' });
});
