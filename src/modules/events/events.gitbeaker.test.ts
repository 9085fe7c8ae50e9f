// A real client against a listening server: @gitbeaker/rest reads the three event lists, follows
// their pagination links, and sends its filters, without noticing it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { createProject } from '../../../test/factories.ts';
import { expectEntities } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { recordEvent } from './events.service.ts';
import { EventEntity } from './events.schemas.ts';
import { atTime, systemContext } from '../../core/context.ts';

let t: TestApp;
let host: string;
let alice: TestUser;
let bob: TestUser;
let pub: ProjectRow;
let priv: ProjectRow;

before(async () => {
  ({ t, host } = await listeningTestApp());
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
  pub = await createProject(t, { visibility: 'public' });
  priv = await createProject(t, { visibility: 'private', members: [[alice.user.id, ACCESS.DEVELOPER]] });
  const day = (d: number) => new Date(Date.UTC(2024, 2, d, 12));
  await recordEvent(atTime(systemContext(t.deps), day(1)), { projectId: priv.id, authorId: alice.user.id, action: 'joined' });
  for (let i = 1; i <= 5; i++) {
    await recordEvent(atTime(systemContext(t.deps), day(1 + i)), { projectId: pub.id, authorId: alice.user.id, action: 'created', targetType: 'Issue', targetId: 100 + i, targetIid: i, targetTitle: `Issue ${i}` });
  }
  await recordEvent(
    atTime(systemContext(t.deps), day(10)),
    {
      projectId: pub.id,
      authorId: alice.user.id,
      action: 'pushed',
      pushData: { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: 'a'.repeat(40), commit_to: 'b'.repeat(40), ref: 'main', commit_title: 'Tidy', ref_count: null },
    },
  );
  await recordEvent(atTime(systemContext(t.deps), day(11)), { projectId: priv.id, authorId: bob.user.id, action: 'left' });
});
after(() => t.close());

const actions = (events: { action_name: unknown }[]) => events.map((e) => e.action_name);

describe('@gitbeaker/rest', () => {
  test('Events.all: the caller’s own events, every page followed', async () => {
    const api = new Gitlab({ host, token: alice.token });
    const events = await api.Events.all({ perPage: 2 });
    expectEntities(events, EventEntity);
    assert.equal(events.length, 7);
    assert.deepEqual(actions(events), ['pushed to', 'opened', 'opened', 'opened', 'opened', 'opened', 'joined']);
    assert.deepEqual(events[0].push_data, { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: 'a'.repeat(40), commit_to: 'b'.repeat(40), ref: 'main', commit_title: 'Tidy', ref_count: null });
  });

  test('Events.all with filters and scope', async () => {
    const api = new Gitlab({ host, token: alice.token });
    const issues = await api.Events.all({ targetType: 'issue', sort: 'asc', after: '2024-03-03', before: '2024-03-06' });
    expectEntities(issues, EventEntity);
    assert.deepEqual(issues.map((e) => e.target_title), ['Issue 3', 'Issue 4']);
    const all = await api.Events.all({ scope: 'all', action: 'left' });
    expectEntities(all, EventEntity);
    assert.deepEqual(all.map((e) => e.author_username), ['bob']);
  });

  test('Events.all with one page and its pagination info', async () => {
    const api = new Gitlab({ host, token: alice.token });
    const { data, paginationInfo } = await api.Events.all({ perPage: 3, page: 2, showExpanded: true, maxPages: 1 });
    expectEntities(data, EventEntity);
    assert.equal(data.length, 3);
    assert.deepEqual({ total: paginationInfo.total, totalPages: paginationInfo.totalPages, current: paginationInfo.current, next: paginationInfo.next, previous: paginationInfo.previous }, { total: 7, totalPages: 3, current: 2, next: 3, previous: 1 });
  });

  test('Users.allEvents and Events.all({ userId }): what another user may see', async () => {
    const api = new Gitlab({ host, token: bob.token });
    const viaUsers = await api.Users.allEvents(alice.user.id);
    expectEntities(viaUsers, EventEntity);
    // The private project's event is not bob's to see.
    assert.equal(viaUsers.length, 6);
    const viaEvents = await api.Events.all({ userId: 'alice', action: 'pushed' });
    expectEntities(viaEvents, EventEntity);
    assert.deepEqual(actions(viaEvents), ['pushed to']);
  });

  test('Events.all({ projectId }): anonymous on a public project, 404 on a private one', async () => {
    const anonymous = new Gitlab({ host, token: '' } as unknown as ConstructorParameters<typeof Gitlab>[0]);
    const events = await anonymous.Events.all({ projectId: pub.id });
    expectEntities(events, EventEntity);
    assert.equal(events.length, 6);
    const byPath = await new Gitlab({ host, token: ROOT_TOKEN }).Events.all({ projectId: priv.full_path });
    expectEntities(byPath, EventEntity);
    assert.deepEqual(actions(byPath), ['left', 'joined']);
    assert.deepEqual(await failureOf(new Gitlab({ host, token: bob.token }).Events.all({ projectId: priv.id })), { status: 404, body: '404 Project Not Found' });
  });
});
