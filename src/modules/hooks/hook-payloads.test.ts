// The payloads of every webhook event as 14.x sends them (Gitlab::DataBuilder::Push, ::Note,
// ::Pipeline, ::Build, ::Release and Gitlab::HookData::*Builder; doc/user/project/integrations/
// webhook_events.md), each delivered by the job queue to a real HTTP receiver started here, with
// exactly the platform's headers. Shapes are checked whole: the keys of each payload and of its
// nested objects, and the values a receiver relies on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { commitConfig } from '../../../test/ci/ci-test-helpers.ts';
import { setInstanceSettings } from '../../../test/factories.ts';
import { type HookReceiver, type ReceivedHook, startHookReceiver } from '../../../test/hook-receiver.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { REPORTED_VERSION } from '../../version.ts';

type Json = Record<string, any>;

let t: TestApp;
let ada: TestUser;
let receiver: HookReceiver;
let base: string;
let received: ReceivedHook[];
let project: Json;

before(async () => {
  receiver = await startHookReceiver();
  ({ base, received } = receiver);
  t = await createTestApp();
  await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
  ada = await t.user({ username: 'ada', name: 'Ada' });
  await t.deps.db.updateTable('users').set({ public_email: 'ada@example.com' }).where('id', '=', ada.user.id).execute();
  const created = await t.post('/api/v4/projects', { token: ada.token, body: { name: 'engine', initialize_with_readme: true } });
  expectStatus(created, 201);
  project = created.json();
});
after(async () => {
  await t.close();
  receiver.close();
});

const take = (path: string) => receiver.take(path);
const keys = (o: Json) => Object.keys(o).sort();
const sorted = (list: string[]) => [...list].sort();

/** A project hook that asks for one kind of event only, delivering to `path`. */
async function hook(path: string, flags: Record<string, boolean>, token?: string) {
  const res = await t.post(`/api/v4/projects/${project.id}/hooks`, { token: ada.token, body: { url: `${base}${path}`, push_events: false, ...flags, ...(token ? { token } : {}) } });
  expectStatus(res, 201);
}

/** The single delivery to `path`, after the queue ran, with the 14.x headers for `event`. */
async function delivered(path: string, event: string, token?: string): Promise<Json[]> {
  await t.runJobs();
  await t.runJobs();
  const got = take(path);
  assert.ok(got.length > 0, `nothing arrived at ${path}`);
  for (const r of got) {
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['user-agent'], `GitLab/${REPORTED_VERSION}`);
    assert.equal(r.headers['x-gitlab-event'], event);
    assert.equal(r.headers['x-gitlab-token'], token);
  }
  return got.map((r) => r.body);
}

const RUBY_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;
const PROJECT_KEYS = sorted(['id', 'name', 'description', 'web_url', 'avatar_url', 'git_ssh_url', 'git_http_url', 'namespace', 'visibility_level', 'path_with_namespace', 'default_branch', 'ci_config_path', 'homepage', 'url', 'ssh_url', 'http_url']);
const COMMIT_KEYS = sorted(['id', 'message', 'title', 'timestamp', 'url', 'author']);
const PUSH_KEYS = sorted(['object_kind', 'event_name', 'before', 'after', 'ref', 'checkout_sha', 'message', 'user_id', 'user_name', 'user_username', 'user_email', 'user_avatar', 'project_id', 'project', 'commits', 'total_commits_count', 'push_options', 'repository']);
const NOTE_ATTRIBUTE_KEYS = sorted([
  'attachment',
  'author_id',
  'change_position',
  'commit_id',
  'created_at',
  'discussion_id',
  'id',
  'line_code',
  'note',
  'noteable_id',
  'noteable_type',
  'original_position',
  'position',
  'project_id',
  'resolved_at',
  'resolved_by_id',
  'resolved_by_push',
  'st_diff',
  'system',
  'type',
  'updated_at',
  'updated_by_id',
  'description',
  'url',
]);
const MR_ATTRIBUTE_KEYS = sorted([
  'assignee_id',
  'author_id',
  'created_at',
  'description',
  'head_pipeline_id',
  'id',
  'iid',
  'last_edited_at',
  'last_edited_by_id',
  'merge_commit_sha',
  'merge_error',
  'merge_params',
  'merge_status',
  'merge_user_id',
  'merge_when_pipeline_succeeds',
  'milestone_id',
  'source_branch',
  'source_project_id',
  'state_id',
  'target_branch',
  'target_project_id',
  'time_estimate',
  'title',
  'updated_at',
  'updated_by_id',
  'url',
  'source',
  'target',
  'last_commit',
  'work_in_progress',
  'total_time_spent',
  'time_change',
  'human_total_time_spent',
  'human_time_change',
  'human_time_estimate',
  'assignee_ids',
  'labels',
  'state',
  'blocking_discussions_resolved',
]);
const ISSUE_ATTRIBUTE_KEYS = sorted([
  'author_id',
  'closed_at',
  'confidential',
  'created_at',
  'description',
  'discussion_locked',
  'due_date',
  'id',
  'iid',
  'last_edited_at',
  'last_edited_by_id',
  'milestone_id',
  'moved_to_id',
  'duplicated_to_id',
  'project_id',
  'relative_position',
  'state_id',
  'time_estimate',
  'title',
  'updated_at',
  'updated_by_id',
  'url',
  'total_time_spent',
  'time_change',
  'human_total_time_spent',
  'human_time_change',
  'human_time_estimate',
  'assignee_ids',
  'assignee_id',
  'labels',
  'state',
  'severity',
]);

function checkProject(hash: Json, backward = true) {
  const expected = backward ? PROJECT_KEYS : PROJECT_KEYS.filter((k) => !['homepage', 'url', 'ssh_url', 'http_url'].includes(k));
  assert.deepEqual(keys(hash), expected);
  assert.equal(hash.id, project.id);
  assert.equal(hash.path_with_namespace, 'ada/engine');
  assert.equal(hash.web_url, project.web_url);
}

const adaHash = () => ({ id: ada.user.id, name: 'Ada', username: 'ada', avatar_url: null, email: 'ada@example.com' });

describe('payloads as 14.x sends them', () => {
  test('tag push: the tagged commit, the annotated tag\'s message', async () => {
    await hook('/tags', { tag_push_events: true }, 'tag-secret');
    const tag = await t.post(`/api/v4/projects/${project.id}/repository/tags`, { token: ada.token, body: { tag_name: 'v1.0', ref: 'main', message: 'First release' } });
    expectStatus(tag, 201);
    const [body] = await delivered('/tags', 'Tag Push Hook', 'tag-secret');
    assert.deepEqual(keys(body), PUSH_KEYS);
    assert.deepEqual(
      [body.object_kind, body.event_name, body.ref, body.before, body.checkout_sha, body.message, body.total_commits_count, body.user_id, body.user_name, body.user_username, body.user_email, body.user_avatar, body.project_id],
      ['tag_push', 'tag_push', 'refs/tags/v1.0', '0'.repeat(40), tag.json().commit.id, 'First release', 1, ada.user.id, 'Ada', 'ada', 'ada@example.com', null, project.id],
    );
    assert.notEqual(body.after, body.checkout_sha, 'an annotated tag names its tag object');
    checkProject(body.project);
    assert.deepEqual(keys(body.repository), sorted(['name', 'url', 'description', 'homepage', 'git_http_url', 'git_ssh_url', 'visibility_level']));
    assert.deepEqual(body.push_options, {});
    const [commit] = body.commits;
    assert.deepEqual(keys(commit), sorted([...COMMIT_KEYS, 'added', 'modified', 'removed']));
    assert.equal(commit.id, tag.json().commit.id);
  });

  test('merge request: the request\'s attributes, its projects, last commit and labels', async () => {
    await hook('/mrs', { merge_requests_events: true });
    expectStatus(await t.post(`/api/v4/projects/${project.id}/repository/branches`, { token: ada.token, query: { branch: 'feature', ref: 'main' } }), 201);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/repository/files/feature.txt`, { token: ada.token, body: { branch: 'feature', content: 'f', commit_message: 'Add feature' } }), 201);
    await t.runJobs();
    const mr = await t.post(`/api/v4/projects/${project.id}/merge_requests`, { token: ada.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Feature', assignee_ids: [ada.user.id] } });
    expectStatus(mr, 201);
    const [body] = await delivered('/mrs', 'Merge Request Hook');
    assert.deepEqual(keys(body), sorted(['object_kind', 'event_type', 'user', 'project', 'object_attributes', 'labels', 'changes', 'repository', 'assignees']));
    assert.deepEqual([body.object_kind, body.event_type], ['merge_request', 'merge_request']);
    assert.deepEqual(body.user, adaHash());
    assert.deepEqual(body.assignees, [adaHash()]);
    checkProject(body.project);
    assert.deepEqual(keys(body.repository), sorted(['name', 'url', 'description', 'homepage']));
    const attrs = body.object_attributes;
    assert.deepEqual(keys(attrs), sorted([...MR_ATTRIBUTE_KEYS, 'action']));
    assert.deepEqual(
      [attrs.action, attrs.iid, attrs.title, attrs.state, attrs.state_id, attrs.source_branch, attrs.target_branch, attrs.work_in_progress, attrs.assignee_ids, attrs.assignee_id],
      ['open', mr.json().iid, 'Feature', 'opened', 1, 'feature', 'main', false, [ada.user.id], ada.user.id],
    );
    assert.match(attrs.created_at, RUBY_TIME);
    assert.equal(attrs.url, mr.json().web_url);
    checkProject(attrs.source);
    checkProject(attrs.target);
    assert.deepEqual(keys(attrs.last_commit), COMMIT_KEYS);
    assert.equal(attrs.last_commit.id, mr.json().sha);
  });

  test('notes on an issue, a merge request, a commit and a snippet', async () => {
    await hook('/notes', { note_events: true }, 'note-secret');
    const issue = (await t.post(`/api/v4/projects/${project.id}/issues`, { token: ada.token, body: { title: 'Bug' } })).json();
    const mr = (await t.get(`/api/v4/projects/${project.id}/merge_requests`, { token: ada.token })).json()[0];
    const sha = (await t.get(`/api/v4/projects/${project.id}/repository/commits/main`, { token: ada.token })).json().id;
    const snippet = (await t.post(`/api/v4/projects/${project.id}/snippets`, { token: ada.token, body: { title: 'Snip', file_name: 'snip.rb', content: "puts 'hi'", visibility: 'public' } })).json();
    await t.runJobs();
    received.length = 0;
    const onIssue = (await t.post(`/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, { token: ada.token, body: { body: 'On the issue' } })).json();
    const onMr = (await t.post(`/api/v4/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: ada.token, body: { body: 'On the MR' } })).json();
    expectStatus(await t.post(`/api/v4/projects/${project.id}/repository/commits/${sha}/comments`, { token: ada.token, body: { note: 'On the commit' } }), 201);
    const onSnippet = (await t.post(`/api/v4/projects/${project.id}/snippets/${snippet.id}/notes`, { token: ada.token, body: { body: 'On the snippet' } })).json();
    const bodies = await delivered('/notes', 'Note Hook', 'note-secret');
    const of = (type: string) => bodies.find((b) => b.object_attributes.noteable_type === type) as Json;
    const common = ['object_kind', 'event_type', 'user', 'project_id', 'project', 'object_attributes', 'repository'];
    for (const [type, extra] of [
      ['Issue', 'issue'],
      ['MergeRequest', 'merge_request'],
      ['Commit', 'commit'],
      ['Snippet', 'snippet'],
    ]) {
      const body = of(type);
      assert.ok(body, `a note on a ${type} arrived`);
      assert.deepEqual(keys(body), sorted([...common, extra]), type);
      assert.deepEqual([body.object_kind, body.event_type, body.project_id], ['note', 'note', project.id]);
      assert.deepEqual(body.user, adaHash());
      checkProject(body.project);
      assert.deepEqual(keys(body.repository), sorted(['name', 'url', 'description', 'homepage']));
      assert.deepEqual(keys(body.object_attributes), NOTE_ATTRIBUTE_KEYS, type);
      assert.match(body.object_attributes.created_at, RUBY_TIME);
      assert.equal(body.object_attributes.description, body.object_attributes.note);
    }
    const issueNote = of('Issue');
    assert.deepEqual([issueNote.object_attributes.id, issueNote.object_attributes.url], [onIssue.id, `${issue.web_url}#note_${onIssue.id}`]);
    assert.deepEqual(keys(issueNote.issue), ISSUE_ATTRIBUTE_KEYS);
    assert.equal(issueNote.issue.iid, issue.iid);
    const mrNote = of('MergeRequest');
    assert.deepEqual([mrNote.object_attributes.id, mrNote.object_attributes.url], [onMr.id, `${mr.web_url}#note_${onMr.id}`]);
    assert.deepEqual(keys(mrNote.merge_request), MR_ATTRIBUTE_KEYS);
    const commitNote = of('Commit');
    assert.deepEqual([commitNote.object_attributes.commit_id, commitNote.object_attributes.noteable_id], [sha, null]);
    assert.equal(commitNote.object_attributes.url, `${project.web_url}/-/commit/${sha}#note_${commitNote.object_attributes.id}`);
    assert.deepEqual(keys(commitNote.commit), COMMIT_KEYS);
    assert.equal(commitNote.commit.id, sha);
    const snippetNote = of('Snippet');
    assert.deepEqual([snippetNote.object_attributes.id, snippetNote.object_attributes.noteable_id], [onSnippet.id, snippet.id]);
    assert.equal(snippetNote.object_attributes.url, `${snippet.web_url}#note_${onSnippet.id}`);
    assert.deepEqual(snippetNote.snippet, {
      id: snippet.id,
      title: 'Snip',
      description: null,
      content: "puts 'hi'",
      author_id: ada.user.id,
      project_id: project.id,
      created_at: snippetNote.snippet.created_at,
      updated_at: snippetNote.snippet.updated_at,
      file_name: 'snip.rb',
      type: 'ProjectSnippet',
      visibility_level: 20,
      url: snippet.web_url,
    });
    assert.match(snippetNote.snippet.created_at, RUBY_TIME);
  });

  test('pipeline and job: the pipeline with its latest jobs; each job\'s status', async () => {
    await hook('/pipelines', { pipeline_events: true });
    await hook('/jobs', { job_events: true });
    await commitConfig(t, ada, project.id, 'build:\n  stage: build\n  script: [make]\n');
    const bodies = await delivered('/pipelines', 'Pipeline Hook');
    const body = bodies.at(-1) as Json;
    assert.deepEqual(keys(body), sorted(['object_kind', 'object_attributes', 'merge_request', 'user', 'project', 'commit', 'builds']));
    assert.equal(body.object_kind, 'pipeline');
    assert.equal(body.merge_request, null);
    assert.deepEqual(body.user, adaHash());
    checkProject(body.project, false);
    assert.deepEqual(keys(body.commit), COMMIT_KEYS);
    const attrs = body.object_attributes;
    assert.deepEqual(
      keys(attrs),
      sorted(['id', 'ref', 'tag', 'sha', 'before_sha', 'source', 'status', 'detailed_status', 'stages', 'created_at', 'finished_at', 'duration', 'queued_duration', 'variables']),
    );
    assert.deepEqual([attrs.ref, attrs.tag, attrs.source, attrs.stages, attrs.variables, attrs.sha], ['main', false, 'push', ['build'], [], body.commit.id]);
    assert.match(attrs.created_at, RUBY_TIME);
    const [build] = body.builds;
    assert.deepEqual(
      keys(build),
      sorted(['id', 'stage', 'name', 'status', 'created_at', 'started_at', 'finished_at', 'duration', 'queued_duration', 'when', 'manual', 'allow_failure', 'user', 'runner', 'artifacts_file', 'environment']),
    );
    assert.deepEqual([build.stage, build.name, build.when, build.manual, build.allow_failure, build.runner, build.environment], ['build', 'build', 'on_success', false, false, null, null]);
    assert.deepEqual(build.artifacts_file, { filename: null, size: null });

    const jobs = await delivered('/jobs', 'Job Hook');
    const job = jobs.at(-1) as Json;
    assert.deepEqual(
      keys(job),
      sorted([
        'object_kind',
        'ref',
        'tag',
        'before_sha',
        'sha',
        'build_id',
        'build_name',
        'build_stage',
        'build_status',
        'build_created_at',
        'build_started_at',
        'build_finished_at',
        'build_duration',
        'build_queued_duration',
        'build_allow_failure',
        'build_failure_reason',
        'pipeline_id',
        'runner',
        'project_id',
        'project_name',
        'user',
        'commit',
        'repository',
        'environment',
      ]),
    );
    assert.deepEqual([job.object_kind, job.build_id, job.build_name, job.build_stage, job.pipeline_id, job.project_id, job.project_name], ['build', build.id, 'build', 'build', attrs.id, project.id, 'Ada / engine']);
    assert.deepEqual(job.user, adaHash());
    assert.deepEqual(keys(job.commit), sorted(['id', 'sha', 'message', 'author_name', 'author_email', 'author_url', 'status', 'duration', 'started_at', 'finished_at']));
    assert.equal(job.commit.id, attrs.id, 'the commit hash carries the pipeline id');
    assert.deepEqual(keys(job.repository), sorted(['name', 'url', 'description', 'homepage', 'git_http_url', 'git_ssh_url', 'visibility_level']));
  });

  test('release: the release, its assets and commit', async () => {
    await hook('/releases', { releases_events: true });
    const release = await t.post(`/api/v4/projects/${project.id}/releases`, { token: ada.token, body: { tag_name: 'v1.0', name: 'One', description: 'Notes', assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] } } });
    expectStatus(release, 201);
    const [body] = await delivered('/releases', 'Release Hook');
    assert.deepEqual(keys(body), sorted(['id', 'created_at', 'description', 'name', 'released_at', 'tag', 'object_kind', 'project', 'url', 'action', 'assets', 'commit']));
    assert.deepEqual([body.object_kind, body.action, body.name, body.tag, body.description, body.url], ['release', 'create', 'One', 'v1.0', 'Notes', `${project.web_url}/-/releases/v1.0`]);
    assert.match(body.created_at, RUBY_TIME);
    checkProject(body.project);
    assert.deepEqual(keys(body.assets), ['count', 'links', 'sources']);
    assert.equal(body.assets.count, 5);
    assert.deepEqual(keys(body.assets.links[0]), sorted(['id', 'external', 'link_type', 'name', 'url']));
    assert.deepEqual(body.assets.sources.map((s: Json) => s.format), ['zip', 'tar.gz', 'tar.bz2', 'tar']);
    assert.deepEqual(keys(body.commit), COMMIT_KEYS);
  });

  test('member: a group member added, changed and removed', async () => {
    const group = (await t.post('/api/v4/groups', { token: ada.token, body: { name: 'Crew', path: 'crew' } })).json();
    expectStatus(await t.post(`/api/v4/groups/${group.id}/hooks`, { token: ada.token, body: { url: `${base}/members`, member_events: true, push_events: false, token: 'm' } }), 201);
    const bo = await t.user({ username: 'bo', name: 'Bo' });
    expectStatus(await t.post(`/api/v4/groups/${group.id}/members`, { token: ada.token, body: { user_id: bo.user.id, access_level: ACCESS.DEVELOPER, expires_at: '2099-12-31' } }), 201);
    expectStatus(await t.put(`/api/v4/groups/${group.id}/members/${bo.user.id}`, { token: ada.token, body: { access_level: ACCESS.MAINTAINER } }), 200);
    expectStatus(await t.del(`/api/v4/groups/${group.id}/members/${bo.user.id}`, { token: ada.token }), 204);
    const bodies = await delivered('/members', 'Member Hook', 'm');
    assert.deepEqual(bodies.map((b) => [b.event_name, b.group_access]), [
      ['user_add_to_group', 'Developer'],
      ['user_update_for_group', 'Maintainer'],
      ['user_remove_from_group', 'Maintainer'],
    ]);
    const email = (await t.deps.db.selectFrom('users').select('email').where('id', '=', bo.user.id).executeTakeFirstOrThrow()).email;
    const [added] = bodies;
    assert.deepEqual(added, {
      created_at: added.created_at,
      updated_at: added.updated_at,
      expires_at: '2099-12-31T00:00:00Z',
      group_name: 'Crew',
      group_path: 'crew',
      group_id: group.id,
      user_username: 'bo',
      user_name: 'Bo',
      user_email: email,
      user_id: bo.user.id,
      group_access: 'Developer',
      group_plan: null,
      event_name: 'user_add_to_group',
    });
    assert.match(added.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
