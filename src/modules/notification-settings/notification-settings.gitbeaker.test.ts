// A real client against a listening server: @gitbeaker/rest reads and changes notification settings.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { GlobalNotificationSettingEntity, NotificationSettingEntity } from './notification-settings.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: NotificationSettings, global, of a project and of a group', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const global = await api.NotificationSettings.show();
  expectEntity(global, GlobalNotificationSettingEntity);
  assert.equal(global.level, 'participating');
  const watched = await api.NotificationSettings.edit({ level: 'watch' });
  expectEntity(watched, GlobalNotificationSettingEntity);
  assert.equal(watched.level, 'watch');

  const project = await api.Projects.create({ name: 'beaker-notified' });
  assert.deepEqual(await api.NotificationSettings.show({ projectId: project.id }), { level: 'global' });
  const custom = await api.NotificationSettings.edit({ projectId: project.id, level: 'custom', newNote: true, failedPipeline: false });
  expectEntity(custom, NotificationSettingEntity);
  const events = custom.events as Record<string, unknown>;
  assert.deepEqual([custom.level, events.new_note, events.failed_pipeline], ['custom', true, false]);

  const group = await api.Groups.create('beaker-notified', 'beaker-notified');
  const mention = await api.NotificationSettings.edit({ groupId: group.id, level: 'mention' });
  assert.deepEqual(mention, { level: 'mention' });
  assert.deepEqual(await failureOf(api.NotificationSettings.edit({ groupId: group.id, level: 'loud' as 'watch' })), { status: 400, body: "'loud' is not a valid level" });
});
