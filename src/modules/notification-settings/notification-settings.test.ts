// Notification settings through the API: the defaults of a setting never changed, levels, the
// events of a custom level, the global notification email, and the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { GlobalNotificationSettingEntity, NOTIFICATION_EVENTS, NotificationSettingEntity } from './notification-settings.schemas.ts';

let t: TestApp;
let me: TestUser;
let other: TestUser;
let project: ProjectRow;
let group: NamespaceRow;

before(async () => {
  t = await createTestApp();
  me = await t.user({ username: 'listener', email: 'listener@example.com' });
  other = await t.user({ username: 'bystander' });
  project = await createProject(t, { members: [[me.user.id, ACCESS.GUEST]] });
  group = await createGroup(t, { members: [[me.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

/** The events of a custom setting nobody chose yet. */
const UNSET = {
  ...Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, null])),
  failed_pipeline: true,
  fixed_pipeline: true,
  moved_project: true,
  merge_when_pipeline_succeeds: false,
};

describe('global', () => {
  test('defaults to participating and the primary email, and changes', async () => {
    const res = await t.get('/api/v4/notification_settings', { token: other.token });
    expectStatus(res, 200);
    expectEntity(res.json(), GlobalNotificationSettingEntity);
    assert.deepEqual(res.json(), { level: 'participating', notification_email: other.user.email });
    const watch = await t.put('/api/v4/notification_settings', { token: me.token, body: { level: 'watch', notification_email: 'Listener@example.com' } });
    expectStatus(watch, 200);
    assert.deepEqual(watch.json(), { level: 'watch', notification_email: 'Listener@example.com' });
    assert.deepEqual((await t.get('/api/v4/notification_settings', { token: me.token })).json(), watch.json());
    // Another user's setting is theirs alone.
    assert.equal((await t.get('/api/v4/notification_settings', { token: other.token })).json().level, 'participating');
    const reset = await t.put('/api/v4/notification_settings', { token: me.token, form: 'notification_email=' });
    assert.deepEqual(reset.json(), { level: 'watch', notification_email: 'listener@example.com' });
  });

  test('a custom level shows its events', async () => {
    const res = await t.put('/api/v4/notification_settings', { token: me.token, body: { level: 'custom', new_note: true, failed_pipeline: false } });
    expectStatus(res, 200);
    expectEntity(res.json(), GlobalNotificationSettingEntity);
    assert.deepEqual(res.json(), { level: 'custom', notification_email: 'listener@example.com', events: { ...UNSET, new_note: true, failed_pipeline: false } });
  });

  test('refusals change nothing', async () => {
    const before = (await t.get('/api/v4/notification_settings', { token: me.token })).json();
    expectError(await t.put('/api/v4/notification_settings', { token: me.token, body: { level: 'loud' } }), 400, { message: "'loud' is not a valid level" });
    expectError(await t.put('/api/v4/notification_settings', { token: me.token, body: { notification_email: 'someone@example.org' } }), 400, {
      message: { notification_email: ['is not an email you own'] },
    });
    expectError(await t.put('/api/v4/notification_settings', { token: me.token, body: { new_note: 'maybe' } }), 400, { error: 'new_note is invalid' });
    assert.deepEqual((await t.get('/api/v4/notification_settings', { token: me.token })).json(), before);
    expectError(await t.get('/api/v4/notification_settings'), 401, { message: '401 Unauthorized' });
    expectError(await t.put('/api/v4/notification_settings', { body: { level: 'watch' } }), 401, { message: '401 Unauthorized' });
  });
});

describe('projects and groups', () => {
  for (const kind of ['projects', 'groups'] as const) {
    const url = () => `/api/v4/${kind}/${kind === 'projects' ? project.id : group.id}/notification_settings`;

    test(`${kind}: defaults to global; levels and custom events persist per user`, async () => {
      const res = await t.get(url(), { token: me.token });
      expectStatus(res, 200);
      expectEntity(res.json(), NotificationSettingEntity);
      assert.deepEqual(res.json(), { level: 'global' });
      const mention = await t.put(url(), { token: me.token, body: { level: 'mention' } });
      assert.deepEqual(mention.json(), { level: 'mention' });
      const custom = await t.put(url(), { token: me.token, form: 'level=custom&new_issue=true&close_merge_request=false' });
      expectStatus(custom, 200);
      expectEntity(custom.json(), NotificationSettingEntity);
      assert.deepEqual(custom.json(), { level: 'custom', events: { ...UNSET, new_issue: true, close_merge_request: false } });
      // Events stay while another level hides them, and come back with custom.
      assert.deepEqual((await t.put(url(), { token: me.token, body: { level: 'disabled' } })).json(), { level: 'disabled' });
      assert.deepEqual((await t.put(url(), { token: me.token, body: { level: 'custom' } })).json(), custom.json());
      assert.deepEqual((await t.get(url(), { token: me.token })).json(), custom.json());
      expectError(await t.put(url(), { token: me.token, body: { level: 'everything' } }), 400, { message: "'everything' is not a valid level" });
    });
  }

  test('a project or group the user cannot see is 404; unknown ones too', async () => {
    expectError(await t.get(`/api/v4/projects/${project.id}/notification_settings`, { token: other.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.put(`/api/v4/groups/${group.id}/notification_settings`, { token: other.token, body: { level: 'watch' } }), 404, { message: '404 Group Not Found' });
    expectError(await t.get('/api/v4/projects/999999/notification_settings', { token: me.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.get(`/api/v4/projects/${project.id}/notification_settings`), 401, { message: '401 Unauthorized' });
  });

  test('settings go with their project, group or user', async () => {
    const doomed = await createProject(t, { members: [[me.user.id, ACCESS.GUEST]] });
    expectStatus(await t.put(`/api/v4/projects/${doomed.id}/notification_settings`, { token: me.token, body: { level: 'watch' } }), 200);
    await t.deps.db.deleteFrom('projects').where('id', '=', doomed.id).execute();
    assert.equal(await t.deps.db.selectFrom('notification_settings').select('id').where('project_id', '=', doomed.id).executeTakeFirst(), undefined);
  });
});
