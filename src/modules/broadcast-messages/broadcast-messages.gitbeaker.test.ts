// A real client against a listening server: @gitbeaker/rest creates, lists, shows, edits and removes
// broadcast messages as an administrator; a regular user reads them but may not write them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { BroadcastMessageEntity } from './broadcast-messages.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: BroadcastMessages.create, all, show, edit, remove', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const created = await api.BroadcastMessages.create({
    message: 'Maintenance tonight',
    startsAt: '2026-12-01T20:00:00.000Z',
    endsAt: '2026-12-01T22:00:00.000Z',
    broadcastType: 'notification',
    targetAccessLevels: [30, 40],
    dismissable: true,
  });
  expectEntity(created, BroadcastMessageEntity);
  assert.equal(created.message, 'Maintenance tonight');
  assert.deepEqual(created.target_access_levels, [30, 40]);
  assert.equal(created.broadcast_type, 'notification');

  const listed = await api.BroadcastMessages.all();
  expectEntities(listed, BroadcastMessageEntity);
  assert.deepEqual(listed.map((m) => m.id), [created.id]);
  expectEntity(await api.BroadcastMessages.show(created.id as number), BroadcastMessageEntity);

  const edited = await api.BroadcastMessages.edit(created.id as number, { message: 'Maintenance moved', color: '#e75e40' });
  expectEntity(edited, BroadcastMessageEntity);
  assert.deepEqual([edited.message, edited.color], ['Maintenance moved', '#e75e40']);

  const user = await t.user({ username: 'reader' });
  const asUser = new Gitlab({ host, token: user.token });
  assert.equal((await asUser.BroadcastMessages.all()).length, 1);
  await assert.rejects(asUser.BroadcastMessages.remove(created.id as number), (error: Error & { cause?: { response?: Response } }) => {
    assert.equal(error.cause?.response?.status, 403);
    return true;
  });

  await api.BroadcastMessages.remove(created.id as number);
  await assert.rejects(api.BroadcastMessages.show(created.id as number), (error: Error & { cause?: { response?: Response } }) => {
    assert.equal(error.cause?.response?.status, 404);
    return true;
  });
});
