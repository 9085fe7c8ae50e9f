// The payloads webhooks carry, as the platform (14.x) builds them: Gitlab::DataBuilder::Push,
// ::Note, ::Pipeline, ::Build, ::Release and Gitlab::HookData::IssueBuilder, MergeRequestBuilder
// and GroupMemberBuilder, with the project's, user's, label's and commit's hook_attrs. Built by
// the worker from the rows as they are when it runs (the writer recorded only what changed).
//
// Times read as the platform's payloads show them: a database time passes through its job queue
// as Ruby's Time#to_s ("2021-07-22 10:04:52 UTC"); a commit's timestamp and a member's times are
// ISO 8601 (xmlschema) with the offset kept.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { ZERO_OID } from '../../git/args.ts';
import { commitChanges, countCommits, logCommitIds, readCommits } from '../../git/history.ts';
import { type Commit, openRepository, readTagObject } from '../../git/objects.ts';
import { secretBox } from '../../core/secret-box.ts';
import { resolveCommit, resolveRef } from '../../git/refs.ts';
import { existingProjectRepository, readDefaultBranch } from '../../git/repository.ts';
import { readBlob } from '../../git/commits.ts';
import { existingSnippetRepository } from '../../domain/snippet-repositories.ts';
import { commitWebUrl, projectWebUrl } from '../../domain/urls.ts';
import { rubyTime as webHookTime } from '../../jobs/web-hooks.ts';
import { detailedStatus } from '../pipelines/pipelines.presenter.ts';
import { WIKI_DEFAULT_BRANCH, projectWikiPageAt } from '../wikis/index.ts';

export type Json = Record<string, unknown>;

/** A database time as payloads show it; null stays null. */
const rubyTime = (iso: string | null | undefined): string | null => (iso ? (webHookTime(iso) as string) : null);

/** xmlschema of a UTC time, without fractions: "2020-12-11T04:57:22Z". */
function xmlschema(iso: string | null): string | null {
  if (!iso) return null;
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** A git signature's date as Time#xmlschema shows it: seconds, with the signer's offset. */
function commitTimestamp(date: string): string {
  return date.replace(/\.\d+(?=[+-]\d{2}:\d{2}$|Z$)/, '').replace(/Z$/, '+00:00');
}

/** "1h 30m" as the platform's human time (Gitlab::TimeTrackingFormatter); null for none. */
function humanTime(seconds: number): string | null {
  if (!seconds) return null;
  const units: [string, number][] = [['mo', 4 * 5 * 8 * 3600], ['w', 5 * 8 * 3600], ['d', 8 * 3600], ['h', 3600], ['m', 60], ['s', 1]];
  let rest = Math.abs(seconds);
  const parts: string[] = [];
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return `${seconds < 0 ? '-' : ''}${parts.join(' ')}`;
}

// ---- Shared attributes ---------------------------------------------------------------------------

export interface Subject {
  project: ProjectRow;
  namespace: NamespaceRow;
  ciConfigPath: string | null;
}

export async function loadSubject(db: Kysely<DB>, projectId: number): Promise<Subject | null> {
  const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
  if (!project) return null;
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const ci = await db.selectFrom('project_ci_cd_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  const ciConfigPath = typeof ci?.ci_config_path === 'string' && ci.ci_config_path !== '' ? ci.ci_config_path : null;
  return { project, namespace, ciConfigPath };
}

/** Project#hook_attrs; `backward` adds the deprecated homepage, url, ssh_url and http_url. */
export function projectAttrs(config: Config, { project, namespace, ciConfigPath }: Subject, backward = true): Json {
  const webUrl = projectWebUrl(config.externalUrl, project);
  const ssh = `${config.sshUrlPrefix}${project.full_path}.git`;
  const attrs: Json = {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: webUrl,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: `${webUrl}.git`,
    namespace: namespace.name,
    visibility_level: project.visibility_level,
    path_with_namespace: project.full_path,
    default_branch: project.default_branch,
    ci_config_path: ciConfigPath,
  };
  if (backward) Object.assign(attrs, { homepage: webUrl, url: ssh, ssh_url: ssh, http_url: `${webUrl}.git` });
  return attrs;
}

/** The deprecated `repository` of issue, merge request and note payloads. */
function repositoryAttrs(config: Config, subject: Subject): Json {
  const attrs = projectAttrs(config, subject);
  return { name: attrs.name, url: attrs.url, description: attrs.description, homepage: attrs.homepage };
}

export type HookUser = Pick<UserRow, 'id' | 'name' | 'username' | 'public_email'>;

/** User#hook_attrs: the public email only, "[REDACTED]" when there is none. */
export function userAttrs(user: HookUser): Json {
  return { id: user.id, name: user.name, username: user.username, avatar_url: null, email: user.public_email || '[REDACTED]' };
}

async function loadUsers(db: Kysely<DB>, ids: readonly (number | null)[]): Promise<Map<number, HookUser>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'name', 'username', 'public_email']).where('id', 'in', wanted).execute();
  return new Map(rows.map((u) => [u.id, u]));
}

export async function loadUser(db: Kysely<DB>, id: number): Promise<HookUser | null> {
  return (await loadUsers(db, [id])).get(id) ?? null;
}

/** Commit#hook_attrs, with the paths it changed when given. */
function commitAttrs(webUrl: string, commit: Commit, changes?: { added: string[]; modified: string[]; removed: string[] }): Json {
  const newline = commit.message.indexOf('\n');
  return {
    id: commit.id,
    message: commit.message,
    title: (newline === -1 ? commit.message : commit.message.slice(0, newline)).trim(),
    timestamp: commitTimestamp(commit.committer.date),
    url: commitWebUrl(webUrl, commit.id),
    author: { name: commit.author.name, email: commit.author.email },
    ...(changes ? { added: changes.added, modified: changes.modified, removed: changes.removed } : {}),
  };
}

async function commitOf(config: Config, subject: Subject, sha: string | null): Promise<Json | null> {
  if (!sha || sha === ZERO_OID) return null;
  const gitDir = existingProjectRepository(config.repositoryStorages, subject.project);
  if (gitDir === null) return null;
  const [commit] = await readCommits(gitDir, [sha]).catch(() => []);
  return commit ? commitAttrs(projectWebUrl(config.externalUrl, subject.project), commit) : null;
}

type Target = 'Issue' | 'MergeRequest';

/** Label#hook_attrs of the labels of an issue or merge request, by title. */
async function labelsOf(db: Kysely<DB>, type: Target, id: number): Promise<Json[]> {
  const rows = await db
    .selectFrom('label_links')
    .innerJoin('labels', 'labels.id', 'label_links.label_id')
    .select(['labels.id', 'labels.title', 'labels.color', 'labels.project_id', 'labels.group_id', 'labels.description', 'labels.created_at', 'labels.updated_at'])
    .where('label_links.target_type', '=', type)
    .where('label_links.target_id', '=', id)
    .orderBy('labels.title')
    .execute();
  return rows.map((l) => ({
    id: l.id,
    title: l.title,
    color: l.color,
    project_id: l.project_id,
    created_at: rubyTime(l.created_at),
    updated_at: rubyTime(l.updated_at),
    template: false,
    description: l.description,
    type: l.project_id === null ? 'GroupLabel' : 'ProjectLabel',
    group_id: l.group_id,
  }));
}

// ---- Push and tag push ---------------------------------------------------------------------------

/** At most this many commits are listed, the latest (Gitlab::DataBuilder::Push). */
const PUSH_COMMITS = 20;

export interface PushInput {
  ref: string;
  before: string;
  after: string;
  pushOptions?: Record<string, unknown>;
}

/** Gitlab::DataBuilder::Push.build, as Git::BranchHooksService and TagHooksService call it. */
export async function pushData(config: Config, subject: Subject, user: HookUser, input: PushInput, userEmail: string | null): Promise<Json> {
  const { project } = subject;
  const gitDir = existingProjectRepository(config.repositoryStorages, project);
  const tag = input.ref.startsWith('refs/tags/');
  const webUrl = projectWebUrl(config.externalUrl, project);
  let commits: Json[] = [];
  let total = 0;
  let checkoutSha: string | null = null;
  let message: string | null = null;
  if (gitDir !== null && input.after !== ZERO_OID) {
    if (tag) {
      checkoutSha = (await resolveRef(gitDir, input.ref)) === null ? null : await resolveCommit(gitDir, input.after);
      // A tag push lists the tagged commit (TagHooksService); an annotated tag carries a message.
      if (checkoutSha !== null) {
        const [commit] = await readCommits(gitDir, [checkoutSha]);
        if (commit) {
          commits = [commitAttrs(webUrl, commit, (await commitChanges(gitDir, [commit])).get(commit.id))];
          total = 1;
        }
      }
      message = await tagMessage(gitDir, input.after);
    } else {
      checkoutSha = input.after;
      const branch = input.ref.slice('refs/heads/'.length);
      const exclude = input.before !== ZERO_OID ? input.before : project.default_branch && project.default_branch !== branch ? await resolveRef(gitDir, `refs/heads/${project.default_branch}`) : null;
      const revisions = exclude ? [input.after, `^${exclude}`] : [input.after];
      total = await countCommits(gitDir, { revisions });
      // Oldest first, the latest twenty.
      const ids = (await logCommitIds(gitDir, { revisions }, { skip: 0, limit: PUSH_COMMITS })).reverse();
      const read = await readCommits(gitDir, ids);
      const changes = await commitChanges(gitDir, read);
      commits = read.map((c) => commitAttrs(webUrl, c, changes.get(c.id)));
    }
  }
  const projectHash = projectAttrs(config, subject);
  const kind = tag ? 'tag_push' : 'push';
  return {
    object_kind: kind,
    event_name: kind,
    before: input.before,
    after: input.after,
    ref: input.ref,
    checkout_sha: checkoutSha,
    message,
    user_id: user.id,
    user_name: user.name,
    user_username: user.username,
    user_email: userEmail,
    user_avatar: null,
    project_id: project.id,
    project: projectHash,
    commits,
    total_commits_count: total,
    push_options: input.pushOptions ?? {},
    repository: {
      name: projectHash.name,
      url: projectHash.url,
      description: projectHash.description,
      homepage: projectHash.homepage,
      git_http_url: projectHash.git_http_url,
      git_ssh_url: projectHash.git_ssh_url,
      visibility_level: projectHash.visibility_level,
    },
  };
}

/** An annotated tag's message; null for a lightweight tag. */
async function tagMessage(gitDir: string, id: string): Promise<string | null> {
  const tag = await readTagObject(openRepository(gitDir), id).catch(() => null);
  return tag ? tag.message.replace(/\n-----BEGIN (PGP|SSH) SIGNATURE-----[\s\S]*$/, '\n').trimEnd() || null : null;
}

/** The system hook's repository_update event (SystemHooksService for post-receive). */
export function repositoryUpdateData(config: Config, subject: Subject, user: HookUser, userEmail: string | null, updates: readonly PushInput[]): Json {
  return {
    event_name: 'repository_update',
    user_id: user.id,
    user_name: user.name,
    user_email: userEmail,
    user_avatar: null,
    project_id: subject.project.id,
    project: projectAttrs(config, subject),
    changes: updates.map((u) => ({ before: u.before, after: u.after, ref: u.ref })),
    refs: updates.map((u) => u.ref),
  };
}

// ---- Issues and merge requests ------------------------------------------------------------------

const ISSUE_STATE_IDS: Record<string, number> = { opened: 1, closed: 2 };
const MR_STATE_IDS: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

export async function issueAttrs(db: Kysely<DB>, config: Config, issueId: number): Promise<{ attrs: Json; confidential: boolean; projectId: number; assignees: number[] } | null> {
  const issue = await db.selectFrom('issues').selectAll().where('id', '=', issueId).executeTakeFirst();
  if (!issue) return null;
  const project = await db.selectFrom('projects').select(['full_path']).where('id', '=', issue.project_id).executeTakeFirstOrThrow();
  const assignees = (await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute()).map((r) => r.user_id);
  const labels = await labelsOf(db, 'Issue', issueId);
  const attrs: Json = {
    author_id: issue.author_id,
    closed_at: rubyTime(issue.closed_at),
    confidential: issue.confidential,
    created_at: rubyTime(issue.created_at),
    description: issue.description,
    discussion_locked: issue.discussion_locked,
    due_date: issue.due_date,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: rubyTime(issue.last_edited_at),
    last_edited_by_id: issue.last_edited_by_id,
    milestone_id: issue.milestone_id,
    moved_to_id: issue.moved_to_id,
    duplicated_to_id: issue.duplicated_to_id,
    project_id: issue.project_id,
    relative_position: null,
    state_id: ISSUE_STATE_IDS[issue.state] ?? 1,
    time_estimate: issue.time_estimate,
    title: issue.title,
    updated_at: rubyTime(issue.updated_at),
    updated_by_id: issue.updated_by_id,
    url: `${config.externalUrl}/${project.full_path}/-/issues/${issue.iid}`,
    total_time_spent: 0,
    time_change: 0,
    human_total_time_spent: null,
    human_time_change: null,
    human_time_estimate: humanTime(issue.time_estimate),
    assignee_ids: assignees,
    assignee_id: assignees[0] ?? null,
    labels,
    state: issue.state,
    severity: 'unknown',
  };
  return { attrs, confidential: issue.confidential, projectId: issue.project_id, assignees };
}

export async function mergeRequestAttrs(db: Kysely<DB>, config: Config, mergeRequestId: number): Promise<{ attrs: Json; projectId: number; assignees: number[]; reviewers: number[] } | null> {
  const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst();
  if (!mr) return null;
  const subject = await loadSubject(db, mr.project_id);
  if (!subject) return null;
  const [assignees, reviewers, labels, pipeline] = await Promise.all([
    db.selectFrom('merge_request_assignees').select('user_id').where('merge_request_id', '=', mr.id).orderBy('user_id').execute(),
    db.selectFrom('merge_request_reviewers').select('user_id').where('merge_request_id', '=', mr.id).orderBy('user_id').execute(),
    labelsOf(db, 'MergeRequest', mr.id),
    mr.sha === null
      ? undefined
      : db.selectFrom('ci_pipelines').select('id').where('project_id', '=', mr.project_id).where('sha', '=', mr.sha).where((eb) => eb.or([eb('ref', '=', mr.source_branch), eb('merge_request_id', '=', mr.id)])).orderBy('id', 'desc').limit(1).executeTakeFirst(),
  ]);
  const assigneeIds = assignees.map((r) => r.user_id);
  const projectHash = projectAttrs(config, subject);
  const attrs: Json = {
    assignee_id: assigneeIds[0] ?? null,
    author_id: mr.author_id,
    created_at: rubyTime(mr.created_at),
    description: mr.description,
    head_pipeline_id: pipeline?.id ?? null,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: rubyTime(mr.last_edited_at),
    last_edited_by_id: mr.last_edited_by_id,
    merge_commit_sha: mr.merge_commit_sha,
    merge_error: mr.merge_error,
    merge_params: mr.merge_params ? safeJson(mr.merge_params) : {},
    merge_status: mr.merge_status,
    merge_user_id: mr.merge_user_id,
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds,
    milestone_id: mr.milestone_id,
    source_branch: mr.source_branch,
    source_project_id: mr.project_id,
    state_id: MR_STATE_IDS[mr.state] ?? 1,
    target_branch: mr.target_branch,
    target_project_id: mr.project_id,
    time_estimate: 0,
    title: mr.title,
    updated_at: rubyTime(mr.updated_at),
    updated_by_id: mr.updated_by_id,
    url: `${config.externalUrl}/${subject.project.full_path}/-/merge_requests/${mr.iid}`,
    source: projectHash,
    target: projectHash,
    last_commit: await commitOf(config, subject, mr.sha),
    work_in_progress: mr.draft,
    total_time_spent: 0,
    time_change: 0,
    human_total_time_spent: null,
    human_time_change: null,
    human_time_estimate: null,
    assignee_ids: assigneeIds,
    labels,
    state: mr.state,
    blocking_discussions_resolved: true,
  };
  return { attrs, projectId: mr.project_id, assignees: assigneeIds, reviewers: reviewers.map((r) => r.user_id) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Gitlab::HookData::IssuableBuilder: the issue or merge request with its user, project, labels and changes. */
export async function issuableData(
  db: Kysely<DB>,
  config: Config,
  kind: 'issue' | 'merge_request',
  found: { attrs: Json; projectId: number; assignees: number[]; reviewers?: number[]; confidential?: boolean },
  user: HookUser,
  action: string,
  changes: Json,
  oldrev?: string,
): Promise<Json | null> {
  const subject = await loadSubject(db, found.projectId);
  if (!subject) return null;
  const users = await loadUsers(db, [...found.assignees, ...(found.reviewers ?? [])]);
  const present = (ids: readonly number[]) => ids.flatMap((id) => (users.has(id) ? [userAttrs(users.get(id) as HookUser)] : []));
  const data: Json = {
    object_kind: kind,
    event_type: kind === 'issue' && found.confidential ? 'confidential_issue' : kind,
    user: userAttrs(user),
    project: projectAttrs(config, subject),
    object_attributes: { ...found.attrs, action, ...(oldrev ? { oldrev } : {}) },
    labels: found.attrs.labels,
    changes,
    repository: repositoryAttrs(config, subject),
  };
  if (found.assignees.length > 0) data.assignees = present(found.assignees);
  if (found.reviewers && found.reviewers.length > 0) data.reviewers = present(found.reviewers);
  return data;
}

// ---- Notes ---------------------------------------------------------------------------------------

export async function noteData(db: Kysely<DB>, config: Config, noteId: number, user: HookUser): Promise<{ data: Json; confidential: boolean; projectId: number } | null> {
  const note = await db.selectFrom('notes').selectAll().where('id', '=', noteId).executeTakeFirst();
  if (!note) return null;
  const subject = await loadSubject(db, note.project_id);
  if (!subject) return null;
  const webUrl = projectWebUrl(config.externalUrl, subject.project);
  const data: Json = {
    object_kind: 'note',
    event_type: 'note',
    user: userAttrs(user),
    project_id: subject.project.id,
    project: projectAttrs(config, subject),
    object_attributes: {},
    repository: repositoryAttrs(config, subject),
  };
  let url = webUrl;
  let confidential = note.confidential;
  if (note.noteable_type === 'Issue' && note.noteable_id !== null) {
    const issue = await issueAttrs(db, config, note.noteable_id);
    if (issue) {
      data.issue = issue.attrs;
      url = issue.attrs.url as string;
      confidential ||= issue.confidential;
    }
  } else if (note.noteable_type === 'MergeRequest' && note.noteable_id !== null) {
    const mr = await mergeRequestAttrs(db, config, note.noteable_id);
    if (mr) {
      data.merge_request = mr.attrs;
      url = mr.attrs.url as string;
    }
  } else if (note.noteable_type === 'Snippet' && note.noteable_id !== null) {
    const snippet = await snippetAttrs(db, config, note.noteable_id, webUrl);
    if (snippet) {
      data.snippet = snippet;
      url = snippet.url as string;
    }
  } else if (note.commit_id) {
    data.commit = await commitOf(config, subject, note.commit_id);
    url = commitWebUrl(webUrl, note.commit_id);
  }
  data.event_type = confidential ? 'confidential_note' : 'note';
  data.object_attributes = {
    attachment: null,
    author_id: note.author_id,
    change_position: null,
    commit_id: note.commit_id,
    created_at: rubyTime(note.created_at),
    discussion_id: note.discussion_id,
    id: note.id,
    line_code: null,
    note: note.body,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    original_position: null,
    position: null,
    project_id: note.project_id,
    resolved_at: rubyTime(note.resolved_at),
    resolved_by_id: note.resolved_by_id,
    resolved_by_push: null,
    st_diff: null,
    system: note.system,
    type: note.type,
    updated_at: rubyTime(note.updated_at),
    updated_by_id: note.updated_by_id,
    description: note.body,
    url: `${url}#note_${note.id}`,
  };
  return { data, confidential, projectId: note.project_id };
}

/**
 * Snippet#hook_attrs of a project's snippet: its record, with the content of its first file (the
 * legacy single-file `content`), and its web page.
 */
async function snippetAttrs(db: Kysely<DB>, config: Config, snippetId: number, projectUrl: string): Promise<Json | null> {
  const snippet = await db.selectFrom('snippets').selectAll().where('id', '=', snippetId).executeTakeFirst();
  if (!snippet) return null;
  const gitDir = existingSnippetRepository(config, snippet);
  const branch = gitDir === null ? null : await readDefaultBranch(gitDir);
  const blob = gitDir !== null && branch !== null && snippet.file_name ? await readBlob(gitDir, `refs/heads/${branch}`, snippet.file_name).catch(() => null) : null;
  return {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    content: blob ? blob.content.toString('utf8') : '',
    author_id: snippet.author_id,
    project_id: snippet.project_id,
    created_at: rubyTime(snippet.created_at),
    updated_at: rubyTime(snippet.updated_at),
    file_name: snippet.file_name,
    type: snippet.project_id === null ? 'PersonalSnippet' : 'ProjectSnippet',
    visibility_level: snippet.visibility_level,
    url: `${projectUrl}/-/snippets/${snippet.id}`,
  };
}

// ---- Pipelines and jobs --------------------------------------------------------------------------

const seconds = (from: string | null, to: string | null): number | null => (from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : null);

async function runnerAttrs(db: Kysely<DB>, runnerId: number | null): Promise<Json | null> {
  if (runnerId === null) return null;
  const runner = await db.selectFrom('ci_runners').selectAll().where('id', '=', runnerId).executeTakeFirst();
  if (!runner) return null;
  return { id: runner.id, description: runner.description, runner_type: runner.runner_type, active: runner.active, is_shared: runner.runner_type === 'instance_type', tags: safeJson(runner.tag_list) };
}

function environmentOf(raw: string | null): Json | null {
  if (!raw) return null;
  const env = safeJson(raw) as { name?: string; action?: string } | string;
  if (typeof env === 'string') return { name: env, action: 'start' };
  return env && typeof env === 'object' && env.name ? { name: env.name, action: env.action ?? 'start' } : { name: raw, action: 'start' };
}

/** Gitlab::DataBuilder::Pipeline.build (the latest jobs, retried ones left out). */
export async function pipelineData(db: Kysely<DB>, config: Config, pipelineId: number): Promise<{ data: Json; projectId: number } | null> {
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst();
  if (!pipeline) return null;
  const subject = await loadSubject(db, pipeline.project_id);
  if (!subject) return null;
  const [builds, variables, mr] = await Promise.all([
    db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline.id).where('retried', '=', false).where('type', '!=', 'generic').orderBy('stage_idx').orderBy('id').execute(),
    db.selectFrom('ci_pipeline_variables').select(['key', 'value_encrypted']).where('pipeline_id', '=', pipeline.id).orderBy('id').execute(),
    pipeline.merge_request_id === null ? undefined : db.selectFrom('merge_requests').selectAll().where('id', '=', pipeline.merge_request_id).executeTakeFirst(),
  ]);
  const users = await loadUsers(db, [pipeline.user_id, ...builds.map((b) => b.user_id)]);
  const userOf = (id: number | null) => (id !== null && users.has(id) ? userAttrs(users.get(id) as HookUser) : null);
  const box = secretBox(config.dataDir);
  const stages = [...new Set(builds.map((b) => b.stage))];
  const buildList: Json[] = [];
  for (const b of builds) {
    buildList.push({
      id: b.id,
      stage: b.stage,
      name: b.name,
      status: b.status,
      created_at: rubyTime(b.created_at),
      started_at: rubyTime(b.started_at),
      finished_at: rubyTime(b.finished_at),
      duration: seconds(b.started_at, b.finished_at),
      queued_duration: seconds(b.queued_at, b.started_at),
      when: b.when,
      manual: b.when === 'manual',
      allow_failure: b.allow_failure,
      user: userOf(b.user_id),
      runner: await runnerAttrs(db, b.runner_id),
      artifacts_file: { filename: null, size: null },
      environment: environmentOf(b.environment),
    });
  }
  const data: Json = {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id,
      ref: pipeline.ref,
      tag: pipeline.tag,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      source: pipeline.source,
      status: pipeline.status,
      detailed_status: detailedStatus(pipeline.status, '').label,
      stages,
      created_at: rubyTime(pipeline.created_at),
      finished_at: rubyTime(pipeline.finished_at),
      duration: pipeline.duration,
      queued_duration: seconds(pipeline.created_at, pipeline.started_at),
      variables: variables.map((v) => ({ key: v.key, value: box.open(v.value_encrypted) })),
    },
    merge_request: mr
      ? {
          id: mr.id,
          iid: mr.iid,
          title: mr.title,
          source_branch: mr.source_branch,
          source_project_id: mr.project_id,
          target_branch: mr.target_branch,
          target_project_id: mr.project_id,
          state: mr.state,
          merge_status: mr.merge_status,
          url: `${config.externalUrl}/${subject.project.full_path}/-/merge_requests/${mr.iid}`,
        }
      : null,
    user: userOf(pipeline.user_id),
    project: projectAttrs(config, subject, false),
    commit: await commitOf(config, subject, pipeline.sha),
    builds: buildList,
  };
  if (pipeline.source_pipeline_id !== null && pipeline.source_project_id !== null) {
    const source = await db.selectFrom('projects').select(['id', 'full_path']).where('id', '=', pipeline.source_project_id).executeTakeFirst();
    if (source) {
      data.source_pipeline = {
        project: { id: source.id, web_url: projectWebUrl(config.externalUrl, source), path_with_namespace: source.full_path },
        job_id: pipeline.source_job_id,
        pipeline_id: pipeline.source_pipeline_id,
      };
    }
  }
  return { data, projectId: pipeline.project_id };
}

/** Gitlab::DataBuilder::Build.build. */
export async function jobData(db: Kysely<DB>, config: Config, buildId: number): Promise<{ data: Json; projectId: number } | null> {
  const build = await db.selectFrom('ci_builds').selectAll().where('id', '=', buildId).executeTakeFirst();
  if (!build || build.type === 'generic') return null;
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', build.pipeline_id).executeTakeFirstOrThrow();
  const subject = await loadSubject(db, build.project_id);
  if (!subject) return null;
  const user = build.user_id === null ? null : await loadUser(db, build.user_id);
  const gitDir = existingProjectRepository(config.repositoryStorages, subject.project);
  const [commit] = gitDir === null ? [] : await readCommits(gitDir, [pipeline.sha]).catch(() => []);
  const author = commit ? await db.selectFrom('users').select('username').where((eb) => eb(eb.fn('lower', ['email']), '=', commit.author.email.toLowerCase())).executeTakeFirst() : undefined;
  const project = projectAttrs(config, subject);
  return {
    projectId: build.project_id,
    data: {
      object_kind: 'build',
      ref: build.ref,
      tag: build.tag,
      before_sha: pipeline.before_sha,
      sha: pipeline.sha,
      build_id: build.id,
      build_name: build.name,
      build_stage: build.stage,
      build_status: build.status,
      build_created_at: rubyTime(build.created_at),
      build_started_at: rubyTime(build.started_at),
      build_finished_at: rubyTime(build.finished_at),
      build_duration: seconds(build.started_at, build.finished_at),
      build_queued_duration: seconds(build.queued_at, build.started_at),
      build_allow_failure: build.allow_failure,
      build_failure_reason: build.failure_reason ?? 'unknown_failure',
      pipeline_id: pipeline.id,
      runner: await runnerAttrs(db, build.runner_id),
      project_id: build.project_id,
      project_name: subject.project.name_with_namespace,
      user: user ? userAttrs(user) : null,
      commit: {
        id: pipeline.id,
        sha: pipeline.sha,
        message: commit?.message ?? null,
        author_name: commit?.author.name ?? null,
        author_email: commit?.author.email ?? null,
        author_url: author ? `${config.externalUrl}/${author.username}` : `mailto:${commit?.author.email ?? ''}`,
        status: pipeline.status,
        duration: pipeline.duration,
        started_at: rubyTime(pipeline.started_at),
        finished_at: rubyTime(pipeline.finished_at),
      },
      repository: {
        name: project.name,
        url: project.url,
        description: project.description,
        homepage: project.homepage,
        git_http_url: project.git_http_url,
        git_ssh_url: project.git_ssh_url,
        visibility_level: project.visibility_level,
      },
      environment: environmentOf(build.environment),
    },
  };
}

// ---- Releases ------------------------------------------------------------------------------------

/** Gitlab::DataBuilder::Release.build. */
export async function releaseData(db: Kysely<DB>, config: Config, releaseId: number, action: string): Promise<{ data: Json; projectId: number } | null> {
  const release = await db.selectFrom('releases').selectAll().where('id', '=', releaseId).executeTakeFirst();
  if (!release) return null;
  const subject = await loadSubject(db, release.project_id);
  if (!subject) return null;
  const links = await db.selectFrom('release_links').selectAll().where('release_id', '=', release.id).orderBy('id').execute();
  const webUrl = projectWebUrl(config.externalUrl, subject.project);
  const tagPath = encodeURIComponent(release.tag);
  const sources = ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({
    format,
    url: `${webUrl}/-/archive/${tagPath}/${subject.project.path}-${tagPath}.${format}`,
  }));
  return {
    projectId: release.project_id,
    data: {
      id: release.id,
      created_at: rubyTime(release.created_at),
      description: release.description ?? '',
      name: release.name ?? release.tag,
      released_at: rubyTime(release.released_at),
      tag: release.tag,
      object_kind: 'release',
      project: projectAttrs(config, subject),
      url: `${webUrl}/-/releases/${tagPath}`,
      action,
      assets: {
        count: links.length + sources.length,
        links: links.map((l) => ({ id: l.id, external: true, link_type: l.link_type, name: l.name, url: l.url })),
        sources,
      },
      commit: await commitOf(config, subject, release.sha),
    },
  };
}

// ---- Group members -------------------------------------------------------------------------------

const ACCESS_NAMES: Record<number, string> = { 5: 'Minimal Access', 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };
const MEMBER_EVENTS = { create: 'user_add_to_group', update: 'user_update_for_group', destroy: 'user_remove_from_group' } as const;

export interface MemberInput {
  groupId: number;
  userId: number;
  event: keyof typeof MEMBER_EVENTS;
  accessLevel: number;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Gitlab::HookData::GroupMemberBuilder.build. */
export async function memberData(db: Kysely<DB>, input: MemberInput): Promise<Json | null> {
  const [group, user] = await Promise.all([
    db.selectFrom('namespaces').select(['id', 'name', 'path']).where('id', '=', input.groupId).executeTakeFirst(),
    db.selectFrom('users').select(['id', 'username', 'name', 'email']).where('id', '=', input.userId).executeTakeFirst(),
  ]);
  if (!group || !user) return null;
  return {
    created_at: xmlschema(input.createdAt),
    updated_at: xmlschema(input.updatedAt),
    group_name: group.name,
    group_path: group.path,
    group_id: group.id,
    user_username: user.username,
    user_name: user.name,
    user_email: user.email,
    user_id: user.id,
    group_access: ACCESS_NAMES[input.accessLevel] ?? String(input.accessLevel),
    group_plan: null,
    expires_at: xmlschema(input.expiresAt),
    event_name: MEMBER_EVENTS[input.event],
  };
}

// ---- Wiki pages ----------------------------------------------------------------------------------

/**
 * Gitlab::DataBuilder::WikiPage.build of a project wiki's page as one commit wrote it: the page
 * read at that commit (a deleted page, at the commit before), with the wiki's hook_attrs.
 */
export async function wikiPageData(
  db: Kysely<DB>,
  config: Config,
  event: { projectId: number; userId: number; action: string; path: string; message: string; versionId: string },
): Promise<Json | null> {
  const [subject, user] = await Promise.all([loadSubject(db, event.projectId), loadUser(db, event.userId)]);
  if (!subject || !user) return null;
  const page = await projectWikiPageAt(db, config, subject.project, event.action === 'delete' ? `${event.versionId}~1` : event.versionId, event.path);
  if (!page) return null;
  const webUrl = projectWebUrl(config.externalUrl, subject.project);
  const url = `${webUrl}/-/wikis/${page.slug}`;
  return {
    object_kind: 'wiki_page',
    user: userAttrs(user),
    project: projectAttrs(config, subject),
    wiki: {
      web_url: `${webUrl}/-/wikis/home`,
      git_ssh_url: `${config.sshUrlPrefix}${subject.project.full_path}.wiki.git`,
      git_http_url: `${webUrl}.wiki.git`,
      path_with_namespace: `${subject.project.full_path}.wiki`,
      default_branch: WIKI_DEFAULT_BRANCH,
    },
    object_attributes: {
      slug: page.slug,
      title: page.title,
      format: page.format,
      message: event.message,
      version_id: event.versionId,
      content: page.content,
      url,
      action: event.action,
      diff_url: `${url}/diff?version_id=${event.versionId}`,
    },
  };
}
