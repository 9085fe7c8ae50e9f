// Following issues: subscribing and unsubscribing answer 201 with the issue when that changes and
// 304 without a body when it does not; an explicit choice outweighs being a participant; the
// errors of the platform for unknown, unreadable and badly named issues.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createProject, personalNamespace } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { IssueEntity } from './issues.schemas.ts';

let t: TestApp;
let project: ProjectRow;
let guest: TestUser;
let reader: TestUser;

before(async () => {
  t = await createTestApp();
  guest = await t.user({ username: 'gwen' });
  reader = await t.user({ username: 'rudi' });
  const owner = await t.user({ username: 'oona' });
  project = await createProject(t, { path: 'followed', visibility: 'public', namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id, members: [[guest.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

const base = () => `/api/v4/projects/${project.id}/issues`;
const issue = async (body: Record<string, unknown> = {}, token = ROOT_TOKEN) => (await t.post(base(), { token, body: { title: 'Followed', ...body } })).json();
const subscribe = (iid: number | string, token: string, action = 'subscribe') => t.post(`${base()}/${iid}/${action}`, { token });
const subscribedAs = async (iid: number, token: string) => (await t.get(`${base()}/${iid}`, { token })).json().subscribed;

test('subscribe then unsubscribe: 201 with the issue on a change, 304 without a body otherwise', async () => {
  const { iid } = await issue();
  const first = await subscribe(iid, reader.token);
  expectStatus(first, 201);
  expectEntity(first.json(), IssueEntity);
  assert.equal(first.json().iid, iid);
  assert.equal(first.json().subscribed, true);
  assert.equal(await subscribedAs(iid, reader.token), true);
  const again = await subscribe(iid, reader.token);
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  const off = await subscribe(iid, reader.token, 'unsubscribe');
  expectStatus(off, 201);
  expectEntity(off.json(), IssueEntity);
  assert.equal(off.json().subscribed, false);
  assert.equal((await subscribe(iid, reader.token, 'unsubscribe')).statusCode, 304);
  assert.equal(await subscribedAs(iid, reader.token), false);
  const rows = await t.deps.db.selectFrom('subscriptions').selectAll().where('subscribable_type', '=', 'Issue').where('user_id', '=', reader.user.id).execute();
  assert.deepEqual(
    rows.map((r) => [Number(r.project_id), Boolean(r.subscribed)]),
    [[project.id, false]],
    'one row per user and issue',
  );
});

test('participants follow without choosing; unsubscribing outweighs it, subscribing again restores it', async () => {
  const { iid } = await issue({ assignee_ids: [guest.user.id] });
  assert.equal(await subscribedAs(iid, guest.token), true, 'an assignee follows');
  assert.equal((await subscribe(iid, guest.token)).statusCode, 304);
  assert.equal((await subscribe(iid, guest.token, 'unsubscribe')).json().subscribed, false);
  assert.equal(await subscribedAs(iid, guest.token), false);
  assert.equal((await subscribe(iid, guest.token)).json().subscribed, true);
});

test('errors: unknown, unreadable and badly named issues, unknown projects, anonymous callers', async () => {
  const { iid } = await issue({ confidential: true });
  for (const action of ['subscribe', 'unsubscribe']) {
    expectError(await subscribe(9999, reader.token, action), 404, { message: '404 Not found' });
    expectError(await subscribe('abc', reader.token, action), 404, { message: '404 Not found' });
    // A confidential issue is for Reporters and up, its author and assignees.
    expectError(await subscribe(iid, guest.token, action), 404, { message: '404 Not found' });
    expectError(await t.post(`/api/v4/projects/999999/issues/${iid}/${action}`, { token: reader.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.post(`${base()}/${iid}/${action}`), 401, { message: '401 Unauthorized' });
  }
});
