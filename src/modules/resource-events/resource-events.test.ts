// Resource label, state and milestone events: recorded by the writers of issues and merge requests
// (creation, edits, closing, reopening, merging), read as notes are.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, unprotectDefaultBranch } from '../../../test/factories.ts';
import { AUTHOR } from '../../../test/fixtures/repository.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { ResourceLabelEventEntity, ResourceMilestoneEventEntity, ResourceStateEventEntity } from './resource-events.schemas.ts';

let t: TestApp;
let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: ProjectRow;
let milestone: { id: number };

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'ev-owner' });
  guest = await t.user({ username: 'ev-guest' });
  outsider = await t.user({ username: 'ev-outsider' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Events', initialize_with_readme: true, visibility: 'private' } });
  await unprotectDefaultBranch(t, res.json());
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, guest.user.id, ACCESS.GUEST);
  milestone = (await t.post(`/api/v4/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'v1' } })).json();
});
after(() => t.close());

describe('issues', () => {
  const issues = () => `/api/v4/projects/${project.id}/issues`;

  test('labels, state and milestone changes, in order, with their entities', async () => {
    const created = await t.post(issues(), { token: owner.token, body: { title: 'Tracked', labels: 'bug', milestone_id: milestone.id } });
    expectStatus(created, 201);
    const { iid, id } = created.json();
    await t.put(`${issues()}/${iid}`, { token: owner.token, body: { labels: 'feature', state_event: 'close', milestone_id: 0 } });
    await t.put(`${issues()}/${iid}`, { token: owner.token, body: { state_event: 'reopen' } });

    const labels = await t.get(`${issues()}/${iid}/resource_label_events`, { token: guest.token });
    expectStatus(labels, 200);
    expectEntities(labels.json(), ResourceLabelEventEntity);
    assert.deepEqual(labels.json().map((e: { label: { name: string }; action: string }) => [e.label.name, e.action]), [['bug', 'add'], ['feature', 'add'], ['bug', 'remove']]);
    assert.equal(labels.headers['x-total'], '3');
    const first = labels.json()[0];
    assert.deepEqual([first.resource_type, first.resource_id, first.user.username], ['Issue', id, 'ev-owner']);
    const one = await t.get(`${issues()}/${iid}/resource_label_events/${first.id}`, { token: guest.token });
    expectEntity(one.json(), ResourceLabelEventEntity);
    assert.deepEqual(one.json(), first);

    const states = await t.get(`${issues()}/${iid}/resource_state_events`, { token: guest.token });
    expectEntities(states.json(), ResourceStateEventEntity);
    assert.deepEqual(states.json().map((e: { state: string }) => e.state), ['closed', 'reopened']);
    const state = await t.get(`${issues()}/${iid}/resource_state_events/${states.json()[0].id}`, { token: guest.token });
    expectEntity(state.json(), ResourceStateEventEntity);

    const milestones = await t.get(`${issues()}/${iid}/resource_milestone_events`, { token: guest.token });
    expectEntities(milestones.json(), ResourceMilestoneEventEntity);
    assert.deepEqual(milestones.json().map((e: { milestone: { id: number }; action: string; state: string }) => [e.milestone.id, e.action, e.state]), [
      [milestone.id, 'add', 'opened'],
      [milestone.id, 'remove', 'closed'],
    ]);
    expectEntity((await t.get(`${issues()}/${iid}/resource_milestone_events/${milestones.json()[0].id}`, { token: guest.token })).json(), ResourceMilestoneEventEntity);

    // A deleted label leaves its events, naming no label.
    const bug = (await t.get(`/api/v4/projects/${project.id}/labels?search=bug`, { token: owner.token })).json()[0];
    expectStatus(await t.del(`/api/v4/projects/${project.id}/labels/${bug.id}`, { token: owner.token }), 204);
    const after = (await t.get(`${issues()}/${iid}/resource_label_events`, { token: owner.token })).json();
    assert.deepEqual(after.map((e: { label: unknown }) => e.label === null), [true, false, true]);
  });

  test('refusals', async () => {
    const { iid } = (await t.post(issues(), { token: owner.token, body: { title: 'Other' } })).json();
    expectError(await t.get(`${issues()}/${iid}/resource_label_events/abc`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`${issues()}/${iid}/resource_state_events/99999`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`${issues()}/${iid}/resource_milestone_events/abc`, { token: owner.token }), 400, { error: 'event_id is invalid' });
    expectError(await t.get(`${issues()}/999/resource_state_events`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`${issues()}/${iid}/resource_state_events`, { token: outsider.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.get(`${issues()}/${iid}/resource_state_events`), 401, { message: '401 Unauthorized' });
    const secret = (await t.post(issues(), { token: owner.token, body: { title: 'Secret', confidential: true } })).json();
    expectError(await t.get(`${issues()}/${secret.iid}/resource_label_events`, { token: guest.token }), 404, { message: '404 Issue Not Found' });
  });
});

describe('merge requests', () => {
  test('labels, milestone, closing, reopening and merging', async () => {
    const dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
    await createCommit(dir, { branch: 'ev-topic', startRevision: 'main', actions: [{ action: 'create', path: 'ev.txt', content: 'x\n' }], message: 'Add', author: AUTHOR });
    const mrs = `/api/v4/projects/${project.id}/merge_requests`;
    const created = await t.post(mrs, { token: owner.token, body: { title: 'Topic', source_branch: 'ev-topic', target_branch: 'main', labels: 'review', milestone_id: milestone.id } });
    expectStatus(created, 201);
    const { iid, id } = created.json();
    await t.put(`${mrs}/${iid}`, { token: owner.token, body: { state_event: 'close' } });
    await t.put(`${mrs}/${iid}`, { token: owner.token, body: { state_event: 'reopen' } });
    for (let i = 0; i < 50 && (await t.get(`${mrs}/${iid}`, { token: owner.token })).json().merge_status !== 'can_be_merged'; i++) await new Promise((r) => setTimeout(r, 100));
    expectStatus(await t.put(`${mrs}/${iid}/merge`, { token: owner.token }), 200);

    const labels = (await t.get(`${mrs}/${iid}/resource_label_events`, { token: owner.token })).json();
    expectEntities(labels, ResourceLabelEventEntity);
    assert.deepEqual(labels.map((e: { resource_type: string; resource_id: number; action: string }) => [e.resource_type, e.resource_id, e.action]), [['MergeRequest', id, 'add']]);
    const states = (await t.get(`${mrs}/${iid}/resource_state_events`, { token: owner.token })).json();
    expectEntities(states, ResourceStateEventEntity);
    assert.deepEqual(states.map((e: { state: string }) => e.state), ['closed', 'reopened', 'merged']);
    const milestones = (await t.get(`${mrs}/${iid}/resource_milestone_events`, { token: owner.token })).json();
    expectEntities(milestones, ResourceMilestoneEventEntity);
    assert.deepEqual(milestones.map((e: { action: string }) => e.action), ['add']);
    // Guests read no merge requests of a private project.
    expectError(await t.get(`${mrs}/${iid}/resource_state_events`, { token: guest.token }), 404, { message: '404 Not found' });
  });
});
