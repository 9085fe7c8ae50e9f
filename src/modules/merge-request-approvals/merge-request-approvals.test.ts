// Merge request approvals through the API: a project's settings (defaults, changes, refusals), a
// merge request's approvals as approvers come and go, the platform's refusals (twice, one's own,
// a stale sha, a wrong password, an approval never given), and approvals reset when the source
// branch moves, if the project says so; what an approval and its withdrawal record (event, system
// note, to-dos, the merge request hooks' actions).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, setInstanceSettings } from '../../../test/factories.ts';
import { startHookReceiver } from '../../../test/hook-receiver.ts';
import { AUTHOR } from '../../../test/fixtures/repository.ts';
import { BASE_URL, PASSWORD, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { ApprovalStateEntity, MergeRequestApprovalsEntity, ProjectApprovalSettingsEntity } from './merge-request-approvals.schemas.ts';

let t: TestApp;
let owner: TestUser;
let author: TestUser;
let approver: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: ProjectRow;
let dir: string;
let iid: number;
let mrId: number;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  author = await t.user({ username: 'author', name: 'Ann Author' });
  approver = await t.user({ username: 'approver', name: 'Abe Approver' });
  reporter = await t.user({ username: 'rep' });
  stranger = await t.user({ username: 'stranger' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Approvals', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, author.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, approver.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
  await createCommit(dir, { branch: 'feature', startRevision: 'main', actions: [{ action: 'create', path: 'f.txt', content: 'f\n' }], message: 'Feature', author: AUTHOR });
  const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, { token: author.token, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } });
  expectStatus(mr, 201);
  iid = mr.json().iid;
  mrId = mr.json().id;
});
after(() => t.close());

const settingsUrl = () => `/api/v4/projects/${project.id}/approvals`;
const mrUrl = (suffix: string) => `/api/v4/projects/${project.id}/merge_requests/${iid}/${suffix}`;
const basic = (u: TestUser) => ({ id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', avatar_url: null, web_url: `${BASE_URL}/${u.user.username}` });
const setSettings = async (body: Record<string, unknown>) => expectStatus(await t.post(settingsUrl(), { token: owner.token, body }), 201);

describe('project approval settings', () => {
  test('the defaults, then changes, read back; refusals of bad input and of callers below Maintainer', async () => {
    const res = await t.get(settingsUrl(), { token: owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectApprovalSettingsEntity);
    assert.deepEqual(res.json(), {
      approvers: [],
      approver_groups: [],
      approvals_before_merge: 0,
      reset_approvals_on_push: true,
      disable_overriding_approvers_per_merge_request: false,
      merge_requests_author_approval: false,
      merge_requests_disable_committers_approval: false,
      require_password_to_approve: false,
    });

    const changed = await t.post(settingsUrl(), { token: owner.token, body: { approvals_before_merge: 2, disable_overriding_approvers_per_merge_request: true } });
    expectStatus(changed, 201);
    expectEntity(changed.json(), ProjectApprovalSettingsEntity);
    assert.equal(changed.json().approvals_before_merge, 2);
    assert.equal(changed.json().disable_overriding_approvers_per_merge_request, true);
    assert.equal(changed.json().reset_approvals_on_push, true);
    assert.deepEqual((await t.get(settingsUrl(), { token: owner.token })).json(), changed.json());

    expectError(await t.post(settingsUrl(), { token: owner.token, body: {} }), 400, {
      error:
        'approvals_before_merge, reset_approvals_on_push, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve are missing, at least one parameter must be provided',
    });
    expectError(await t.post(settingsUrl(), { token: owner.token, body: { approvals_before_merge: -1 } }), 400, { message: { approvals_before_merge: ['must be greater than or equal to 0'] } });
    expectError(await t.post(settingsUrl(), { token: owner.token, body: { approvals_before_merge: 'many' } }), 400, { error: 'approvals_before_merge is invalid' });
    expectError(await t.get(settingsUrl(), { token: approver.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(settingsUrl(), { token: approver.token, body: { approvals_before_merge: 0 } }), 403, { message: '403 Forbidden' });
    expectError(await t.get(settingsUrl()), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/projects/999999/approvals', { token: owner.token }), 404, { message: '404 Project Not Found' });
  });
});

describe('merge request approvals', () => {
  test('approving, approving again, one own merge request, a stale sha, and withdrawing', async () => {
    await setSettings({ approvals_before_merge: 2 });
    const none = await t.get(mrUrl('approvals'), { token: approver.token });
    expectStatus(none, 200);
    expectEntity(none.json(), MergeRequestApprovalsEntity);
    const mr = (await t.get(`/api/v4/projects/${project.id}/merge_requests/${iid}`, { token: owner.token })).json();
    assert.deepEqual(none.json(), {
      id: mrId,
      iid,
      project_id: project.id,
      title: 'Feature',
      description: null,
      state: 'opened',
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      merge_status: mr.merge_status,
      approved: false,
      approvals_required: 2,
      approvals_left: 2,
      require_password_to_approve: false,
      approved_by: [],
      suggested_approvers: [],
      approvers: [],
      approver_groups: [],
      user_has_approved: false,
      user_can_approve: true,
      approval_rules_left: [],
      has_approval_rules: false,
      merge_request_approvers_available: true,
      multiple_approval_rules_available: true,
    });

    expectError(await t.post(mrUrl('approve'), { token: approver.token, body: { sha: '0'.repeat(40) } }), 409, { message: `SHA does not match HEAD of source branch: ${mr.sha}` });
    const approved = await t.post(mrUrl('approve'), { token: approver.token, body: { sha: mr.sha } });
    expectStatus(approved, 201);
    expectEntity(approved.json(), MergeRequestApprovalsEntity);
    assert.deepEqual(approved.json().approved_by, [{ user: basic(approver) }]);
    assert.equal(approved.json().approvals_left, 1);
    assert.equal(approved.json().approved, false);
    assert.equal(approved.json().user_has_approved, true);
    assert.equal(approved.json().user_can_approve, false);

    expectError(await t.post(mrUrl('approve'), { token: approver.token }), 401, { message: '401 Unauthorized' });
    // The author may not approve their own merge request until the project allows it.
    expectError(await t.post(mrUrl('approve'), { token: author.token }), 401, { message: '401 Unauthorized' });
    assert.equal((await t.get(mrUrl('approvals'), { token: author.token })).json().user_can_approve, false);
    await setSettings({ merge_requests_author_approval: true });
    const both = await t.post(mrUrl('approve'), { token: author.token });
    expectStatus(both, 201);
    assert.deepEqual(both.json().approved_by, [{ user: basic(approver) }, { user: basic(author) }]);
    assert.equal(both.json().approved, true);
    assert.equal(both.json().approvals_left, 0);

    const withdrawn = await t.post(mrUrl('unapprove'), { token: approver.token });
    expectStatus(withdrawn, 201);
    expectEntity(withdrawn.json(), MergeRequestApprovalsEntity);
    assert.deepEqual(withdrawn.json().approved_by, [{ user: basic(author) }]);
    assert.equal(withdrawn.json().user_has_approved, false);
    expectError(await t.post(mrUrl('unapprove'), { token: approver.token }), 404, { message: '404 Not Found' });

    const state = await t.get(mrUrl('approval_state'), { token: owner.token });
    expectStatus(state, 200);
    expectEntity(state.json(), ApprovalStateEntity);
    assert.deepEqual(state.json(), { approval_rules_overwritten: false, rules: [] });
  });

  test('a project that requires the password: none or a wrong one is refused', async () => {
    await setSettings({ require_password_to_approve: true });
    expectError(await t.post(mrUrl('approve'), { token: approver.token }), 401, { message: '401 Unauthorized' });
    expectError(await t.post(mrUrl('approve'), { token: approver.token, body: { approval_password: 'wrong' } }), 401, { message: '401 Unauthorized' });
    const ok = await t.post(mrUrl('approve'), { token: approver.token, body: { approval_password: PASSWORD } });
    expectStatus(ok, 201);
    assert.equal(ok.json().require_password_to_approve, true);
    await setSettings({ require_password_to_approve: false });
  });

  test('who may approve: Developers and up; readers below get 403, anonymous callers 401; unknown merge requests 404', async () => {
    expectError(await t.post(mrUrl('approve'), { token: reporter.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(mrUrl('unapprove'), { token: stranger.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(mrUrl('approve')), 401, { message: '401 Unauthorized' });
    expectStatus(await t.get(mrUrl('approvals')), 200);
    assert.equal((await t.get(mrUrl('approvals'))).json().user_can_approve, false);
    expectError(await t.get(`/api/v4/projects/${project.id}/merge_requests/999/approvals`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.post(`/api/v4/projects/${project.id}/merge_requests/999/approve`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`/api/v4/projects/${project.id}/merge_requests/abc/approvals`, { token: owner.token }), 400, { error: 'merge_request_iid is invalid' });
  });

  test('a push to the source branch resets the approvals, unless the project keeps them', async () => {
    const approvals = () => t.deps.db.selectFrom('merge_request_approvals').select('user_id').where('merge_request_id', '=', mrId).execute();
    const push = async (file: string) => {
      const res = await t.post(`/api/v4/projects/${project.id}/repository/commits`, {
        token: author.token,
        body: { branch: 'feature', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: 'x' }] },
      });
      expectStatus(res, 201);
      await t.runJobs();
    };
    await setSettings({ reset_approvals_on_push: false });
    assert.ok((await approvals()).length > 0);
    await push('kept.txt');
    assert.ok((await approvals()).length > 0);

    await setSettings({ reset_approvals_on_push: true });
    await push('reset.txt');
    assert.deepEqual(await approvals(), []);
    const res = await t.get(mrUrl('approvals'), { token: owner.token });
    assert.deepEqual(res.json().approved_by, []);
  });
});

describe('what an approval records', () => {
  test('an approved event, the system notes, the approver\'s to-dos done, and the hook actions approval, approved, unapproved, unapproval', async () => {
    const receiver = await startHookReceiver();
    const hookActions = () => receiver.take('/mr').map((hook) => hook.body.object_attributes.action);
    try {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
      const hook = await t.post(`/api/v4/projects/${project.id}/hooks`, {
        token: owner.token,
        body: { url: `${receiver.base}/mr`, merge_requests_events: true, push_events: false },
      });
      expectStatus(hook, 201);
      await setSettings({ approvals_before_merge: 2, require_password_to_approve: false, merge_requests_author_approval: false });
      await createCommit(dir, { branch: 'side', startRevision: 'main', actions: [{ action: 'create', path: 's.txt', content: 's\n' }], message: 'Side', author: AUTHOR });
      const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, {
        token: author.token,
        body: { title: 'Side', source_branch: 'side', target_branch: 'main', reviewer_ids: [approver.user.id] },
      });
      expectStatus(mr, 201);
      const url = (suffix: string) => `/api/v4/projects/${project.id}/merge_requests/${mr.json().iid}/${suffix}`;
      const pendingTodos = async () => (await t.get('/api/v4/todos', { token: approver.token })).json().filter((todo: { target: { id: number } }) => todo.target.id === mr.json().id);
      assert.equal((await pendingTodos()).length, 1);
      await t.runJobs();
      receiver.received.length = 0;

      expectStatus(await t.post(url('approve'), { token: approver.token }), 201);
      assert.deepEqual(await pendingTodos(), []);
      expectStatus(await t.post(url('approve'), { token: owner.token }), 201);
      expectStatus(await t.post(url('unapprove'), { token: approver.token }), 201);
      expectStatus(await t.post(url('unapprove'), { token: owner.token }), 201);
      await t.runJobs();
      assert.deepEqual(hookActions(), ['approval', 'approved', 'unapproved', 'unapproval']);

      const notes = await t.get(url('notes?sort=asc&order_by=created_at'), { token: owner.token });
      const system = notes.json().filter((note: { system: boolean }) => note.system);
      assert.deepEqual(
        system.slice(-4).map((note: { body: string; author: { id: number } }) => [note.author.id, note.body]),
        [
          [approver.user.id, 'approved this merge request'],
          [owner.user.id, 'approved this merge request'],
          [approver.user.id, 'unapproved this merge request'],
          [owner.user.id, 'unapproved this merge request'],
        ],
      );
      const events = await t.get(`/api/v4/projects/${project.id}/events?action=approved`, { token: owner.token });
      expectStatus(events, 200);
      assert.deepEqual(
        events
          .json()
          .filter((event: { target_iid: number }) => event.target_iid === mr.json().iid)
          .map((event: { author_id: number; action_name: string; target_iid: number }) => [event.author_id, event.action_name, event.target_iid]),
        [
          [owner.user.id, 'approved', mr.json().iid],
          [approver.user.id, 'approved', mr.json().iid],
        ],
      );
    } finally {
      receiver.close();
    }
  });
});
