// Table types. Columns keep the wire's snake_case. Timestamps are ISO 8601 UTC text with
// milliseconds and dates are YYYY-MM-DD text, in both dialects, so they sort and compare as text.
// Booleans are true/false in both dialects (SQLite stores 0/1; its adapter converts columns declared
// `boolean`).
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Bool = boolean;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  encrypted_password: string | null;
  state: string;
  admin: Bool;
  external: Bool;
  user_type: string;
  bio: string;
  location: string;
  public_email: string | null;
  commit_email: string | null;
  skype: string;
  linkedin: string;
  twitter: string;
  website_url: string;
  organization: string;
  job_title: string;
  note: string | null;
  private_profile: Bool;
  projects_limit: Generated<number>;
  can_create_group: Bool;
  theme_id: number;
  color_scheme_id: number;
  two_factor_enabled: Bool;
  confirmed_at: string | null;
  /** Digest of the token the confirmation mail carries, until the email is confirmed (0026). */
  confirmation_token: string | null;
  password_expires_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_sign_in_ip: string | null;
  current_sign_in_ip: string | null;
  sign_in_count: number;
  last_activity_on: string | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** When the user accepted the instance's terms of service (enforce_terms); null: not yet. */
  terms_accepted_at: string | null;
}

export interface IdentitiesTable {
  id: Generated<number>;
  user_id: number;
  provider: string;
  extern_uid: string;
  created_at: string;
}

export interface UserCustomAttributesTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  /** JSON array of scope names. */
  scopes: string;
  impersonation: Bool;
  revoked: Bool;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OauthAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  token_digest: string;
  refresh_token_digest: string | null;
  /** Space-separated scope names, as OAuth writes them. */
  scopes: string;
  expires_in: number | null;
  revoked_at: string | null;
  created_at: string;
  /** The application the token was issued to; null for the password grant without one. */
  application_id: number | null;
}

export interface OauthApplicationsTable {
  id: Generated<number>;
  name: string;
  uid: string;
  secret_digest: string;
  /** One or more redirect URIs, one per line. */
  redirect_uri: string;
  /** Space-separated scope names. */
  scopes: string;
  confidential: Generated<boolean>;
  trusted: Generated<boolean>;
  /** The user who registered it on their applications page; null for an instance-wide application. */
  owner_id: number | null;
  /** 'User' with an owner, null without (the platform's polymorphic owner). */
  owner_type: string | null;
  created_at: string;
  updated_at: string;
}

export interface OauthAccessGrantsTable {
  id: Generated<number>;
  application_id: number;
  user_id: number;
  code_digest: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_in: number;
  revoked_at: string | null;
  created_at: string;
}

export interface WebSessionsTable {
  id: Generated<number>;
  user_id: number;
  session_digest: string;
  csrf_token: string;
  expires_at: string;
  created_at: string;
  /** Until when an administrator's session acts as administrator (admin mode); null: not entered. */
  admin_mode_until: string | null;
}

export interface NamespacesTable {
  id: Generated<number>;
  /** 'User' (a user's personal namespace) or 'Group'. */
  type: string;
  name: string;
  path: string;
  owner_id: number | null;
  parent_id: number | null;
  /** '/<top id>/…/<own id>/': ancestors are the ids on it, descendants share it as a prefix. */
  traversal_path: string;
  full_path: string;
  full_name: string;
  description: string;
  visibility_level: number;
  request_access_enabled: Bool;
  /** Who may create projects in a group: 'noone', 'maintainer' or 'developer' (the ability table reads it). */
  project_creation_level: Generated<string>;
  /** Who may create subgroups: 'owner' or 'maintainer'. */
  subgroup_creation_level: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace_id: number;
  name: string;
  path: string;
  full_path: string;
  name_with_namespace: string;
  description: string;
  visibility_level: number;
  creator_id: number | null;
  default_branch: string | null;
  archived: Bool;
  repository_storage: string;
  /** Pushes and API writes are refused while set (a storage move is copying the repository). */
  repository_read_only: Generated<Bool>;
  /** The repository has no branch; kept by every path that writes refs. */
  empty_repo: Generated<Bool>;
  /** The runners registration token, encrypted (core/secret-box); shown to those who administer the project. */
  runners_token_encrypted: string;
  /** SHA-256 of the token, to find the project a runner registers with. */
  runners_token_digest: string;
  /** Replaced by every change of the project's settings: the key of settings cached in memory ('' is never cached). */
  settings_revision: Generated<string>;
  import_status: string;
  star_count: number;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

export interface ProjectStatisticsTable {
  project_id: number;
  commit_count: Generated<number>;
  storage_size: Generated<number>;
  repository_size: Generated<number>;
  wiki_size: Generated<number>;
  lfs_objects_size: Generated<number>;
  build_artifacts_size: Generated<number>;
  pipeline_artifacts_size: Generated<number>;
  packages_size: Generated<number>;
  snippets_size: Generated<number>;
  uploads_size: Generated<number>;
}

export interface ProjectTopicsTable {
  project_id: number;
  name: string;
  position: number;
}

export interface MembersTable {
  id: Generated<number>;
  /** 'Project' or 'Namespace' (a group). */
  source_type: string;
  source_id: number;
  /** Null while the row is an invitation nobody has accepted yet. */
  user_id: number | null;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** The invited address, kept once the invitation is accepted (0026). */
  invite_email: string | null;
  /** Digest of the token the invitation's mail carries; null once accepted (or before the mail went out). */
  invite_token: string | null;
  invite_accepted_at: string | null;
}

export interface ProjectAuthorizationsTable {
  user_id: number;
  project_id: number;
  access_level: number;
  /** The project's visibility level, copied so that counts by level read this table's index alone. */
  visibility_level: number;
}

/** One row: bumped by triggers on every change that can alter a namespace's member counts. */
export interface MembershipGenerationTable {
  id: number;
  generation: number;
}

/** Member counts of a namespace, valid for the generation and day they were counted at. */
export interface NamespaceMemberCountsTable {
  namespace_id: number;
  generation: number;
  counted_on: string;
  billable: number;
  with_descendants: number;
}

/** Projects per visibility level, kept by triggers on projects. */
export interface ProjectVisibilityCountsTable {
  visibility_level: number;
  projects: number;
}

export interface UsersStarProjectsTable {
  user_id: number;
  project_id: number;
  created_at: string;
}

export interface ProjectCustomAttributesTable {
  id: Generated<number>;
  project_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface GroupCustomAttributesTable {
  id: Generated<number>;
  group_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: Generated<number>;
  project_id: number | null;
  author_id: number;
  action: string;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  /** JSON of the push, for push events. */
  push_data: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScheduledTaskRunsTable {
  name: string;
  next_run_at: string;
}

/** A protection rule for branches matching `name`: an exact name or a pattern with `*` wildcards. */
export interface ProtectedBranchesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  allow_force_push: Bool;
  code_owner_approval_required: Bool;
  created_at: string;
  updated_at: string;
}

export interface ProtectedBranchAccessLevelsTable {
  id: Generated<number>;
  protected_branch_id: number;
  /** 'push', 'merge' or 'unprotect'. */
  action: string;
  access_level: number;
  /** A push level that lets this deploy key push, whatever the role (access_level then stays at its default). */
  deploy_key_id: number | null;
}

/** A protection rule for tags matching `name`, exact or with `*` wildcards. */
export interface ProtectedTagsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface ProtectedTagCreateAccessLevelsTable {
  id: Generated<number>;
  protected_tag_id: number;
  access_level: number;
}

/** Durable background work (jobs/queue.ts). */
export interface BackgroundJobsTable {
  id: Generated<number>;
  kind: string;
  /** JSON of the kind's payload schema. */
  payload: string;
  state: 'queued' | 'running' | 'failed';
  /** Queued: when it may run. Running: when its claim expires and another worker may take it. */
  run_at: string;
  attempts: Generated<number>;
  max_attempts: number;
  /** The claim: `<host>:<pid>:<random>` of the worker running it. */
  locked_by: string | null;
  last_error: string | null;
  /** Set while queued: another job of the kind with this key is not enqueued meanwhile. */
  dedupe_key: string | null;
  created_at: string;
  updated_at: string;
}

/** One row: the id this database gave itself, which the data directory records too. */
export interface InstanceIdentityTable {
  id: number;
  instance_id: string;
  created_at: string;
}

/**
 * Tables of settings, one column per setting: their columns are declared in domain/settings (one
 * line per setting, which also gives each its default, parameter and entity field).
 */
export interface ProjectSettingsTable {
  project_id: number;
  [column: string]: unknown;
}

export interface NamespaceSettingsTable {
  namespace_id: number;
  /** The group's runners registration token, encrypted; null until first shown. */
  runners_token_encrypted: string | null;
  runners_token_digest: string | null;
  [column: string]: unknown;
}

/** One row (id 1): every instance-wide setting; `generation` moves on every change. */
export interface ApplicationSettingsTable {
  id: number;
  generation: number;
  created_at: string;
  updated_at: string;
  [column: string]: unknown;
}

// ---- CI ------------------------------------------------------------------------------------------

export interface CiPipelinesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  ref: string;
  sha: string;
  before_sha: string;
  tag: Bool;
  protected: Bool;
  source: string;
  status: string;
  failure_reason: string | null;
  yaml_errors: string | null;
  user_id: number | null;
  config_path: string | null;
  source_job_id: number | null;
  source_pipeline_id: number | null;
  source_project_id: number | null;
  trigger_id: number | null;
  schedule_id: number | null;
  duration: number | null;
  committed_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
  /** The platform's artifacts_locked: expired artifacts of the pipeline are kept. */
  locked: Generated<Bool>;
  /** The merge request a `merge_request_event` pipeline was made for (0024). */
  merge_request_id: Generated<number | null>;
}

export interface CiPipelineVariablesTable {
  id: Generated<number>;
  pipeline_id: number;
  key: string;
  value_encrypted: string;
  variable_type: string;
}

export interface CiBuildsTable {
  id: Generated<number>;
  pipeline_id: number;
  project_id: number;
  /** 'build', 'bridge' or 'generic' (a commit status an external system reports). */
  type: string;
  name: string;
  stage: string;
  stage_idx: number;
  status: string;
  ref: string;
  tag: Bool;
  protected: Bool;
  when: string;
  allow_failure: Bool;
  scheduling_type: string;
  /** JSON. */
  needs: string | null;
  options: string;
  yaml_variables: string;
  tag_list: string;
  coverage_regex: string | null;
  coverage: number | null;
  resource_group: string | null;
  environment: string | null;
  interruptible: Bool;
  retried: Bool;
  user_id: number | null;
  runner_id: number | null;
  token_digest: string | null;
  failure_reason: string | null;
  exit_code: number | null;
  timeout: number | null;
  timeout_source: string | null;
  trace_size: Generated<number>;
  downstream_pipeline_id: number | null;
  /** A commit status's link and words, from the system that reported it. */
  target_url: string | null;
  description: string | null;
  artifacts_expire_at: string | null;
  erased_at: string | null;
  erased_by_id: number | null;
  scheduled_at: string | null;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CiPendingBuildsTable {
  build_id: number;
  project_id: number;
  protected: Bool;
  /** JSON array of the job's tags. */
  tag_list: string;
  created_at: string;
}

export interface CiBuildTraceChunksTable {
  id: Generated<number>;
  build_id: number;
  chunk_index: number;
  data: Uint8Array;
}

export interface CiJobArtifactsTable {
  id: Generated<number>;
  build_id: number;
  project_id: number;
  file_type: string;
  file_format: string;
  filename: string;
  size: number;
  sha256: string;
  file_path: string;
  expire_at: string | null;
  created_at: string;
}

export interface CiJobVariablesTable {
  id: Generated<number>;
  job_id: number;
  key: string;
  value_encrypted: string;
  source: string;
}

export interface CiBuildReportResultsTable {
  build_id: number;
  project_id: number;
  data: string;
}

export interface CiRunnersTable {
  id: Generated<number>;
  token_digest: string;
  runner_type: string;
  description: Generated<string>;
  maintenance_note: string | null;
  active: Generated<Bool>;
  locked: Generated<Bool>;
  run_untagged: Generated<Bool>;
  access_level: string;
  maximum_timeout: number | null;
  /** JSON array, sorted. */
  tag_list: string;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  executor_type: string | null;
  /** JSON of the features the runner reported. */
  features: string | null;
  ip_address: string | null;
  contacted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CiRunnerProjectsTable {
  id: Generated<number>;
  runner_id: number;
  project_id: number;
  created_at: string;
}

export interface CiRunnerNamespacesTable {
  id: Generated<number>;
  runner_id: number;
  namespace_id: number;
}

export interface CiVariablesTable {
  id: Generated<number>;
  /** 'instance' (owner_id 0), 'group' or 'project'. */
  owner_type: string;
  owner_id: number;
  key: string;
  value_encrypted: string;
  variable_type: string;
  protected: Bool;
  masked: Bool;
  environment_scope: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface CiTriggersTable {
  id: Generated<number>;
  project_id: number;
  owner_id: number | null;
  description: Generated<string>;
  token_digest: string;
  token_encrypted: string;
  last_used: string | null;
  created_at: string;
  updated_at: string;
}

/** A project's issues per label, state and confidentiality, kept by triggers (0021). */
export interface IssueLabelCountsTable {
  project_id: number;
  label_id: number;
  state: string;
  confidential: boolean;
  issues: number;
}

/** Each project's pipelines and latest jobs (builds, not retried), kept by triggers. */
export interface CiProjectCountsTable {
  project_id: number;
  pipelines: number;
  jobs: number;
}

export interface CiPipelineSchedulesTable {
  id: Generated<number>;
  project_id: number;
  owner_id: number | null;
  description: Generated<string>;
  ref: string;
  cron: string;
  cron_timezone: string;
  /** When the periodic task starts it next; null while it cannot run (never for a valid cron). */
  next_run_at: string | null;
  active: Generated<Bool>;
  created_at: string;
  updated_at: string;
}

export interface CiPipelineScheduleVariablesTable {
  id: Generated<number>;
  schedule_id: number;
  key: string;
  value_encrypted: string;
  variable_type: string;
  created_at: string;
  updated_at: string;
}

export interface InstanceSecretsTable {
  name: string;
  value_encrypted: string;
  digest: string;
  updated_at: string;
}

// ---- Issues, labels, milestones, notes (0017) ----------------------------------------------------

/** A counter per project (or group) and usage, handing out internal ids (`iid`). */
export interface InternalIdsTable {
  id: Generated<number>;
  project_id: number | null;
  namespace_id: number | null;
  /** 'issues', 'merge_requests', 'milestones', 'alert_management_alerts'. */
  usage: string;
  last_value: number;
}

/** A project label (project_id) or a group label (group_id). */
export interface LabelsTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  title: string;
  /** `#rrggbb`. */
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface LabelPrioritiesTable {
  id: Generated<number>;
  project_id: number;
  label_id: number;
  priority: number;
  created_at: string;
  updated_at: string;
}

export interface MilestonesTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  iid: number;
  title: string;
  description: string | null;
  /** 'active' or 'closed'. */
  state: Generated<string>;
  /** `YYYY-MM-DD`. */
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface IssuesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  author_id: number | null;
  title: string;
  description: string | null;
  /** 'opened' or 'closed'. */
  state: Generated<string>;
  /** 'issue', 'incident' or 'test_case'. */
  issue_type: Generated<string>;
  confidential: Generated<Bool>;
  discussion_locked: Bool | null;
  /** `YYYY-MM-DD`. */
  due_date: string | null;
  weight: number | null;
  milestone_id: number | null;
  /** Seconds. */
  time_estimate: Generated<number>;
  moved_to_id: number | null;
  duplicated_to_id: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  updated_by_id: number | null;
  last_edited_at: string | null;
  last_edited_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface IssueAssigneesTable {
  issue_id: number;
  user_id: number;
}

/** A label on an issue or a merge request. */
export interface LabelLinksTable {
  id: Generated<number>;
  label_id: number;
  /** 'Issue' or 'MergeRequest'. */
  target_type: string;
  target_id: number;
  created_at: string;
  updated_at: string;
}

/** A comment or a system note on an issue, a merge request (noteable_id) or a commit (commit_id). */
export interface NotesTable {
  id: Generated<number>;
  project_id: number;
  /** 'Issue', 'MergeRequest', 'Commit' or 'AlertManagement::Alert'. */
  noteable_type: string;
  noteable_id: number | null;
  commit_id: string | null;
  author_id: number | null;
  body: Generated<string>;
  system: Generated<Bool>;
  confidential: Generated<Bool>;
  resolvable: Generated<Bool>;
  resolved_at: string | null;
  resolved_by_id: number | null;
  /** null, 'DiscussionNote', 'DiffNote' or 'LegacyDiffNote'. */
  type: string | null;
  discussion_id: string | null;
  /** A commit comment's file, line and side (`new` or `old`). */
  path: string | null;
  line: number | null;
  line_type: string | null;
  /** A diff note's place in a merge request's diff: the position entity's fields, as JSON. */
  position: string | null;
  updated_by_id: number | null;
  created_at: string;
  updated_at: string;
}

/** Who added or removed a label of an issue or a merge request (exactly one of issue_id, merge_request_id), and when. */
export interface ResourceLabelEventsTable {
  id: Generated<number>;
  issue_id: number | null;
  merge_request_id: number | null;
  user_id: number | null;
  /** Null once the label was deleted. */
  label_id: number | null;
  /** 'add' or 'remove'. */
  action: string;
  created_at: string;
}

/** Who closed, reopened or merged an issue or a merge request, and when. */
export interface ResourceStateEventsTable {
  id: Generated<number>;
  issue_id: number | null;
  merge_request_id: number | null;
  user_id: number | null;
  /** 'closed', 'reopened' or 'merged'. */
  state: string;
  created_at: string;
}

/** Who set or removed the milestone of an issue or a merge request, and when. */
export interface ResourceMilestoneEventsTable {
  id: Generated<number>;
  issue_id: number | null;
  merge_request_id: number | null;
  user_id: number | null;
  milestone_id: number | null;
  /** 'add' or 'remove'. */
  action: string;
  /** The issue's or merge request's state then: 'opened', 'closed', 'merged' or 'locked'. */
  state: string;
  created_at: string;
}

/** A user's explicit choice to be notified about a label, an issue or a merge request, or not. */
export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  /** 'Label', 'Issue' or 'MergeRequest'. */
  subscribable_type: string;
  subscribable_id: number;
  /** For a group label, the project the subscription was made in (null: the whole group). */
  project_id: number | null;
  subscribed: Bool;
  created_at: string;
  updated_at: string;
}

// ---- Releases (0019) -------------------------------------------------------------------------

/** A release of a tag; the tag may be gone from the repository since. */
export interface ReleasesTable {
  id: Generated<number>;
  project_id: number;
  tag: string;
  /** Null reads as the tag's name. */
  name: string | null;
  description: string | null;
  author_id: number | null;
  /** The commit the tag named when the release was made. */
  sha: string | null;
  released_at: string;
  created_at: string;
  updated_at: string;
}

/** An asset of a release: a link to a file kept elsewhere. */
export interface ReleaseLinksTable {
  id: Generated<number>;
  release_id: number;
  name: string;
  url: string;
  /** The path of the release's permanent download link to it (`/bin/app`). */
  filepath: string | null;
  /** 'other', 'runbook', 'package' or 'image'. */
  link_type: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface MilestoneReleasesTable {
  milestone_id: number;
  release_id: number;
}

/** What a release was when its evidence was collected: a JSON summary and its SHA-256. */
export interface ReleaseEvidencesTable {
  id: Generated<number>;
  release_id: number;
  summary: string;
  summary_sha: string;
  created_at: string;
  updated_at: string;
}

// ---- Merge requests (0020) ------------------------------------------------------------------

/** A merge request from one branch of a project into another of the same project. */
export interface MergeRequestsTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  author_id: number | null;
  title: string;
  description: string | null;
  /** 'opened', 'closed', 'merged' or 'locked'. */
  state: Generated<string>;
  source_branch: string;
  target_branch: string;
  milestone_id: number | null;
  /** The title starts with a draft prefix ("Draft:", "[Draft]", "(Draft)", "WIP:"). */
  draft: Generated<Bool>;
  /** 'unchecked', 'checking', 'can_be_merged', 'cannot_be_merged' or 'cannot_be_merged_recheck'. */
  merge_status: Generated<string>;
  merge_error: string | null;
  /** A rebase job is queued or running for it. */
  rebase_in_progress: Generated<Bool>;
  /** Set to merge once its head pipeline succeeds (0024), by merge_user_id, with merge_params (JSON). */
  merge_when_pipeline_succeeds: Generated<Bool>;
  merge_user_id: number | null;
  merge_params: string | null;
  merged_by_id: number | null;
  merged_at: string | null;
  closed_by_id: number | null;
  closed_at: string | null;
  squash: Generated<Bool>;
  /** The author's choice (remove_source_branch); null when not made. */
  force_remove_source_branch: Bool | null;
  /** The merger's choice at merge time. */
  should_remove_source_branch: Bool | null;
  /** The source branch's head, as last seen. */
  sha: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  /** diff_refs: the merge base, the target's head and the source's head the diff was taken between. */
  base_sha: string | null;
  start_sha: string | null;
  head_sha: string | null;
  discussion_locked: Bool | null;
  updated_by_id: number | null;
  last_edited_at: string | null;
  last_edited_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface MergeRequestUsersTable {
  merge_request_id: number;
  user_id: number;
}

/** An open merge request's description closes the issue (0023). */
export interface MergeRequestsClosingIssuesTable {
  merge_request_id: number;
  issue_id: number;
}

// ---- Clusters (0028) -------------------------------------------------------------------------

/** A Kubernetes cluster attached to a project (cluster_type project_type, platform_type kubernetes). */
export interface ClustersTable {
  id: Generated<number>;
  project_id: number;
  /** Who added it; null once their account is gone. */
  user_id: number | null;
  name: string;
  /** The base domain; null when unset. */
  domain: string | null;
  enabled: Generated<Bool>;
  managed: Generated<Bool>;
  /** 'user' for a cluster added as an existing one; 'gcp' or 'aws' for one the platform provisioned. */
  provider_type: Generated<string>;
  environment_scope: Generated<string>;
  /** A project of the same namespace; null when none, or once it is gone. */
  management_project_id: number | null;
  api_url: string;
  ca_cert: string | null;
  namespace: string | null;
  /** 'rbac', 'abac' or 'unknown_authorization'. */
  authorization_type: Generated<string>;
  /** The service token, sealed with the instance's key (core/secret-box.ts). */
  token_encrypted: string;
  created_at: string;
  updated_at: string;
}

// ---- Keys (0029) -----------------------------------------------------------------------------

/** An SSH key: a user's (type Key) or a deploy key (type DeployKey); one row per public key. */
export interface KeysTable {
  id: Generated<number>;
  type: 'Key' | 'DeployKey';
  /** The owner of a user key; null for deploy keys. */
  user_id: number | null;
  /** Who added a deploy key; null for user keys and once that user is deleted. */
  creator_id: number | null;
  title: string;
  /** The key as stored: type, base64 body and at most one word of comment. */
  key: string;
  /** MD5, colon-separated hex. */
  fingerprint: string;
  /** SHA-256, base64 without padding or the "SHA256:" prefix. */
  fingerprint_sha256: string;
  /** A deploy key any maintainer may enable (made by administrators); kept when no project uses it. */
  public: Bool;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A deploy key enabled on a project. */
export interface DeployKeysProjectsTable {
  id: Generated<number>;
  deploy_key_id: number;
  project_id: number;
  can_push: Bool;
  created_at: string;
  updated_at: string;
}

/** A deploy token of a project or (project_id null) of a group; the secret is kept as a digest. */
export interface DeployTokensTable {
  id: Generated<number>;
  name: string;
  /** Null for the default `gitlab+deploy-token-<id>`. */
  username: string | null;
  token_digest: string;
  project_id: number | null;
  group_id: number | null;
  creator_id: number | null;
  read_repository: Bool;
  read_registry: Bool;
  write_registry: Bool;
  read_package_registry: Bool;
  write_package_registry: Bool;
  revoked: Bool;
  expires_at: string | null;
  created_at: string;
}

/** Where a group's wiki repository lives; a group without a row has no wiki yet. */
export interface GroupWikiRepositoriesTable {
  group_id: number;
  repository_storage: string;
  /** Set while a storage move copies the repository. */
  read_only: Generated<Bool>;
  created_at: string;
}

/** An issue board of a project or (project_id null) of a group; milestone, assignee and weight scope it. */
export interface BoardsTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  name: string;
  hide_backlog_list: Generated<Bool>;
  hide_closed_list: Generated<Bool>;
  milestone_id: number | null;
  assignee_id: number | null;
  weight: number | null;
  created_at: string;
  updated_at: string;
}
export type BoardRow = Selectable<BoardsTable>;

/** A label list of a board, at its position among the board's lists (from 0). */
export interface BoardListsTable {
  id: Generated<number>;
  board_id: number;
  label_id: number;
  position: number;
  max_issue_count: Generated<number>;
  max_weight: Generated<number>;
  limit_metric: string | null;
  created_at: string;
  updated_at: string;
}
export type BoardListRow = Selectable<BoardListsTable>;

/** A project's merge request approval settings; a project without a row has the defaults. */
export interface ProjectApprovalSettingsTable {
  project_id: number;
  approvals_before_merge: Generated<number>;
  reset_approvals_on_push: Bool;
  disable_overriding_approvers_per_merge_request: Generated<Bool>;
  merge_requests_author_approval: Generated<Bool>;
  merge_requests_disable_committers_approval: Generated<Bool>;
  require_password_to_approve: Generated<Bool>;
}
export type ProjectApprovalSettingsRow = Selectable<ProjectApprovalSettingsTable>;

/** A user's approval of a merge request. */
export interface MergeRequestApprovalsTable {
  id: Generated<number>;
  merge_request_id: number;
  user_id: number;
  created_at: string;
}

/** An instance-wide notice shown between starts_at and ends_at. */
export interface BroadcastMessagesTable {
  id: Generated<number>;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string | null;
  font: string | null;
  /** JSON array of access levels; empty for everyone. */
  target_access_levels: Generated<string>;
  target_path: string | null;
  /** 'banner' or 'notification'. */
  broadcast_type: string;
  /** Null until set. */
  dismissable: Bool | null;
  created_at: string;
  updated_at: string;
}

/** A badge of a project ('ProjectBadge', project_id set) or of a group ('GroupBadge', group_id set). */
export interface BadgesTable {
  id: Generated<number>;
  type: 'ProjectBadge' | 'GroupBadge';
  project_id: number | null;
  group_id: number | null;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

/**
 * A user's notification setting: global (no project or group) or for one project or group. Event
 * columns are null until set, and matter at the level 'custom'.
 */
export interface NotificationSettingsTable {
  id: Generated<number>;
  user_id: number;
  project_id: number | null;
  group_id: number | null;
  /** 'global', 'project:<id>' or 'group:<id>'. */
  source_key: string;
  /** 'disabled', 'participating', 'watch', 'global', 'mention' or 'custom'. */
  level: string;
  /** Global setting only: where notifications go; null for the primary email. */
  notification_email: string | null;
  new_release: Bool | null;
  new_note: Bool | null;
  new_issue: Bool | null;
  reopen_issue: Bool | null;
  close_issue: Bool | null;
  reassign_issue: Bool | null;
  issue_due: Bool | null;
  new_merge_request: Bool | null;
  push_to_merge_request: Bool | null;
  reopen_merge_request: Bool | null;
  close_merge_request: Bool | null;
  reassign_merge_request: Bool | null;
  change_reviewer_merge_request: Bool | null;
  merge_merge_request: Bool | null;
  failed_pipeline: Bool | null;
  fixed_pipeline: Bool | null;
  success_pipeline: Bool | null;
  moved_project: Bool | null;
  merge_when_pipeline_succeeds: Bool | null;
  created_at: string;
  updated_at: string;
}

/** A file uploaded to a project (for Markdown), served under the project's path and its secret. */
export interface UploadsTable {
  id: Generated<number>;
  project_id: number;
  uploaded_by_user_id: number | null;
  /** 32 hex characters. */
  secret: string;
  filename: string;
  size: number;
  /** Relative to the uploads storage. */
  file_path: string;
  created_at: string;
}

/** Running totals of background jobs by kind: runs finished (processed) and runs that failed. */
export interface BackgroundJobStatsTable {
  kind: string;
  processed: Generated<number>;
  failed: Generated<number>;
}

/** A to-do item of a user on an issue or a merge request. */
export interface TodosTable {
  id: Generated<number>;
  user_id: number;
  project_id: number;
  /** 'Issue', 'MergeRequest' or 'AlertManagement::Alert'. */
  target_type: string;
  target_id: number;
  author_id: number;
  /** The action's name: 'assigned', 'mentioned', 'build_failed', 'marked', … */
  action: string;
  /** The note that mentioned the user, if a note did. */
  note_id: number | null;
  /** 'pending' or 'done'. */
  state: Generated<string>;
  /** How it was done: 'system_done', 'api_done', 'api_all_done'. */
  resolved_by_action: string | null;
  created_at: string;
  updated_at: string;
}

/** A user's to-dos per state and project, kept by triggers on todos. */
export interface TodoCountsTable {
  user_id: number;
  state: string;
  project_id: number;
  todos: Generated<number>;
}

/** What a user shows beside their name; absent when they show nothing (0044). */
export interface UserStatusesTable {
  user_id: number;
  emoji: Generated<string>;
  message: string | null;
  /** 'not_set' or 'busy'. */
  availability: Generated<string>;
  /** When the status clears itself; null: never. */
  clear_status_at: string | null;
  updated_at: string;
}

/** A user's email address besides their primary one. */
export interface EmailsTable {
  id: Generated<number>;
  user_id: number;
  email: string;
  confirmed_at: string | null;
  /** Digest of the token the confirmation mail carries, until confirmed. */
  confirmation_token: string | null;
  confirmation_sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A user's public GPG key, as pasted (armored), with its primary key's identity. */
export interface GpgKeysTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  /** 16 upper-case hex digits. */
  primary_keyid: string;
  /** 40 upper-case hex digits. */
  fingerprint: string;
  created_at: string;
  updated_at: string;
}

export interface GpgKeySubkeysTable {
  id: Generated<number>;
  gpg_key_id: number;
  keyid: string;
  fingerprint: string;
}

/** The verdict on a GPG-signed commit of a project, computed when first asked. */
export interface GpgSignaturesTable {
  id: Generated<number>;
  project_id: number;
  commit_sha: string;
  gpg_key_id: number | null;
  gpg_key_subkey_id: number | null;
  /** The signing key's id (16 hex digits), or the fingerprint (40) a signature by an unknown key names. */
  gpg_key_primary_keyid: string | null;
  gpg_key_user_name: string | null;
  gpg_key_user_email: string | null;
  /** verified, unverified, unverified_key, unknown_key, other_user, same_user_different_email, multiple_signatures. */
  verification_status: string;
  created_at: string;
  updated_at: string;
}

export interface DB {
  background_jobs: BackgroundJobsTable;
  instance_identity: InstanceIdentityTable;
  project_features: ProjectSettingsTable;
  project_ci_cd_settings: ProjectSettingsTable;
  project_settings: ProjectSettingsTable;
  namespace_settings: NamespaceSettingsTable;
  application_settings: ApplicationSettingsTable;
  protected_branches: ProtectedBranchesTable;
  protected_branch_access_levels: ProtectedBranchAccessLevelsTable;
  protected_tags: ProtectedTagsTable;
  protected_tag_create_access_levels: ProtectedTagCreateAccessLevelsTable;
  namespaces: NamespacesTable;
  projects: ProjectsTable;
  project_topics: ProjectTopicsTable;
  project_statistics: ProjectStatisticsTable;
  members: MembersTable;
  project_authorizations: ProjectAuthorizationsTable;
  project_visibility_counts: ProjectVisibilityCountsTable;
  membership_generation: MembershipGenerationTable;
  namespace_member_counts: NamespaceMemberCountsTable;
  users_star_projects: UsersStarProjectsTable;
  project_custom_attributes: ProjectCustomAttributesTable;
  group_custom_attributes: GroupCustomAttributesTable;
  events: EventsTable;
  scheduled_task_runs: ScheduledTaskRunsTable;
  users: UsersTable;
  identities: IdentitiesTable;
  user_custom_attributes: UserCustomAttributesTable;
  personal_access_tokens: PersonalAccessTokensTable;
  oauth_access_tokens: OauthAccessTokensTable;
  oauth_applications: OauthApplicationsTable;
  oauth_access_grants: OauthAccessGrantsTable;
  web_sessions: WebSessionsTable;
  ci_pipelines: CiPipelinesTable;
  ci_pipeline_variables: CiPipelineVariablesTable;
  ci_builds: CiBuildsTable;
  ci_pending_builds: CiPendingBuildsTable;
  ci_build_trace_chunks: CiBuildTraceChunksTable;
  ci_job_artifacts: CiJobArtifactsTable;
  ci_build_report_results: CiBuildReportResultsTable;
  ci_job_variables: CiJobVariablesTable;
  ci_runners: CiRunnersTable;
  ci_runner_projects: CiRunnerProjectsTable;
  ci_runner_namespaces: CiRunnerNamespacesTable;
  ci_variables: CiVariablesTable;
  ci_triggers: CiTriggersTable;
  ci_pipeline_schedules: CiPipelineSchedulesTable;
  ci_pipeline_schedule_variables: CiPipelineScheduleVariablesTable;
  instance_secrets: InstanceSecretsTable;
  ci_project_counts: CiProjectCountsTable;
  internal_ids: InternalIdsTable;
  labels: LabelsTable;
  label_priorities: LabelPrioritiesTable;
  milestones: MilestonesTable;
  issues: IssuesTable;
  issue_assignees: IssueAssigneesTable;
  label_links: LabelLinksTable;
  issue_label_counts: IssueLabelCountsTable;
  notes: NotesTable;
  resource_label_events: ResourceLabelEventsTable;
  resource_state_events: ResourceStateEventsTable;
  resource_milestone_events: ResourceMilestoneEventsTable;
  subscriptions: SubscriptionsTable;
  releases: ReleasesTable;
  release_links: ReleaseLinksTable;
  milestone_releases: MilestoneReleasesTable;
  release_evidences: ReleaseEvidencesTable;
  merge_requests: MergeRequestsTable;
  merge_request_assignees: MergeRequestUsersTable;
  merge_request_reviewers: MergeRequestUsersTable;
  merge_requests_closing_issues: MergeRequestsClosingIssuesTable;
  clusters: ClustersTable;
  pages_domains: PagesDomainsTable;
  pages_deployments: PagesDeploymentsTable;
  keys: KeysTable;
  deploy_keys_projects: DeployKeysProjectsTable;
  deploy_tokens: DeployTokensTable;
  snippets: SnippetsTable;
  broadcast_messages: BroadcastMessagesTable;
  boards: BoardsTable;
  board_lists: BoardListsTable;
  project_approval_settings: ProjectApprovalSettingsTable;
  merge_request_approvals: MergeRequestApprovalsTable;
  badges: BadgesTable;
  notification_settings: NotificationSettingsTable;
  uploads: UploadsTable;
  background_job_stats: BackgroundJobStatsTable;
  todos: TodosTable;
  todo_counts: TodoCountsTable;
  user_statuses: UserStatusesTable;
  emails: EmailsTable;
  gpg_keys: GpgKeysTable;
  gpg_key_subkeys: GpgKeySubkeysTable;
  gpg_signatures: GpgSignaturesTable;
  plan_limits: PlanLimitsTable;
  packages: PackagesTable;
  package_files: PackageFilesTable;
  project_repository_storage_moves: ProjectRepositoryStorageMovesTable;
  snippet_repository_storage_moves: SnippetRepositoryStorageMovesTable;
  group_repository_storage_moves: GroupRepositoryStorageMovesTable;
  group_wiki_repositories: GroupWikiRepositoriesTable;
  alert_management_http_integrations: AlertManagementHttpIntegrationsTable;
  alert_management_alerts: AlertManagementAlertsTable;
  alert_management_alert_assignees: AlertManagementAlertAssigneesTable;
  push_leases: PushLeasesTable;
  error_tracking_settings: ErrorTrackingSettingsTable;
  error_tracking_client_keys: ErrorTrackingClientKeysTable;
  error_tracking_errors: ErrorTrackingErrorsTable;
  error_tracking_error_events: ErrorTrackingErrorEventsTable;
  software_license_policies: SoftwareLicensePoliciesTable;
  security_scans: SecurityScansTable;
  security_findings: SecurityFindingsTable;
  security_dependencies: SecurityDependenciesTable;
  vulnerability_scanners: VulnerabilityScannersTable;
  vulnerability_identifiers: VulnerabilityIdentifiersTable;
  vulnerabilities: VulnerabilitiesTable;
  vulnerability_occurrences: VulnerabilityOccurrencesTable;
  project_exports: ProjectExportsTable;
  project_import_states: ProjectImportStatesTable;
  import_failures: ImportFailuresTable;
  group_exports: GroupExportsTable;
  group_import_states: GroupImportStatesTable;
  web_hooks: WebHooksTable;
  web_hook_logs: WebHookLogsTable;
}

export type UserRow = Selectable<UsersTable>;
export type KeyRow = Selectable<KeysTable>;
export type DeployKeysProjectRow = Selectable<DeployKeysProjectsTable>;
export type DeployTokenRow = Selectable<DeployTokensTable>;

/** A personal snippet (project_id null) or a project's; its files are in its own repository. */
export interface SnippetsTable {
  id: Generated<number>;
  title: string;
  description: string | null;
  author_id: number;
  project_id: number | null;
  /** 0 private, 10 internal, 20 public. */
  visibility_level: number;
  /** The first file's path in the repository (the legacy single-file field). */
  file_name: string | null;
  repository_storage: string;
  /** Set while a storage move copies the repository. */
  repository_read_only: Generated<boolean>;
  /** What the creating client sent, for the administrators' user agent detail. */
  user_agent: string | null;
  ip_address: string | null;
  created_at: string;
  updated_at: string;
}

export type SnippetRow = Selectable<SnippetsTable>;
export type BroadcastMessageRow = Selectable<BroadcastMessagesTable>;
export type GroupWikiRepositoryRow = Selectable<GroupWikiRepositoriesTable>;
export type UserStatusRow = Selectable<UserStatusesTable>;
export type EmailRow = Selectable<EmailsTable>;
export type GpgKeyRow = Selectable<GpgKeysTable>;
export type GpgKeySubkeyRow = Selectable<GpgKeySubkeysTable>;
export type GpgSignatureRow = Selectable<GpgSignaturesTable>;
export type BadgeRow = Selectable<BadgesTable>;
export type NotificationSettingRow = Selectable<NotificationSettingsTable>;
export type UploadRow = Selectable<UploadsTable>;
export type ReleaseRow = Selectable<ReleasesTable>;
export type ClusterRow = Selectable<ClustersTable>;

export interface PagesDomainsTable {
  id: Generated<number>;
  project_id: number;
  /** As given; unique across the instance whatever its case. */
  domain: string;
  /** The PEM text as given (the certificate, then any intermediates); null when none. */
  certificate: string | null;
  /** The private key, sealed with the instance's key (core/secret-box.ts); null when none. */
  key_encrypted: string | null;
  /** 'user_provided' or 'gitlab_provided'. */
  certificate_source: Generated<string>;
  certificate_valid_not_before: string | null;
  certificate_valid_not_after: string | null;
  auto_ssl_enabled: Generated<Bool>;
  /** 32 hex characters, published in a TXT record to prove the domain. */
  verification_code: string;
  verified_at: string | null;
  /** Served until then; null when the domain was never verified, or lost it. */
  enabled_until: string | null;
  created_at: string;
  updated_at: string;
}

export type PagesDomainRow = Selectable<PagesDomainsTable>;

export interface PagesDeploymentsTable {
  id: Generated<number>;
  project_id: number;
  /** The `pages` job that published it; null once the job is gone. */
  ci_build_id: number | null;
  sha: string;
  ref: string;
  /** The site's files, relative to the artifacts storage. */
  directory: string;
  file_count: number;
  size: number;
  created_at: string;
}

export type PagesDeploymentRow = Selectable<PagesDeploymentsTable>;
export type ReleaseLinkRow = Selectable<ReleaseLinksTable>;
export type MilestoneRow = Selectable<MilestonesTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type IdentityRow = Selectable<IdentitiesTable>;
export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type OauthAccessTokenRow = Selectable<OauthAccessTokensTable>;
export type OauthApplicationRow = Selectable<OauthApplicationsTable>;
export type OauthAccessGrantRow = Selectable<OauthAccessGrantsTable>;
export type NamespaceRow = Selectable<NamespacesTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type MemberRow = Selectable<MembersTable>;
export type EventRow = Selectable<EventsTable>;
export type IssueRow = Selectable<IssuesTable>;
export type MergeRequestRow = Selectable<MergeRequestsTable>;
export type NoteRow = Selectable<NotesTable>;
export type ResourceLabelEventRow = Selectable<ResourceLabelEventsTable>;
export type ResourceStateEventRow = Selectable<ResourceStateEventsTable>;
export type ResourceMilestoneEventRow = Selectable<ResourceMilestoneEventsTable>;
export type TodoRow = Selectable<TodosTable>;
export type BackgroundJobRow = Selectable<BackgroundJobsTable>;
export type CiPipelineRow = Selectable<CiPipelinesTable>;
export type CiBuildRow = Selectable<CiBuildsTable>;
export type CiRunnerRow = Selectable<CiRunnersTable>;
export type CiVariableRow = Selectable<CiVariablesTable>;
export type CiTriggerRow = Selectable<CiTriggersTable>;
export type CiPipelineScheduleRow = Selectable<CiPipelineSchedulesTable>;
export type CiPipelineScheduleVariableRow = Selectable<CiPipelineScheduleVariablesTable>;
export type CiJobArtifactRow = Selectable<CiJobArtifactsTable>;

export interface SoftwareLicensePoliciesTable {
  id: Generated<number>;
  project_id: number;
  /** The license's name as given; unique in the project. */
  name: string;
  /** 'allowed' (shown as approved) or 'denied' (shown as blacklisted). */
  classification: string;
  created_at: string;
  updated_at: string;
}
export type SoftwareLicensePolicyRow = Selectable<SoftwareLicensePoliciesTable>;

export interface SecurityScansTable {
  id: Generated<number>;
  project_id: number;
  pipeline_id: number;
  build_id: number;
  /** The report type: 'sast' or 'dependency_scanning'. */
  scan_type: string;
  /** 'succeeded', or 'report_error' for a report that could not be read. */
  status: string;
  /** JSON array of the report's errors, `{type, message}` (older rows: the messages alone). */
  errors: string;
  /** JSON array of the report's warnings, `{type, message}`. */
  warnings: Generated<string>;
  /** Whether the pipeline ran on the project's default branch when it was ingested. */
  default_branch: Generated<Bool>;
  created_at: string;
}
export type SecurityScanRow = Selectable<SecurityScansTable>;

export interface SecurityFindingsTable {
  id: Generated<number>;
  scan_id: number;
  project_id: number;
  pipeline_id: number;
  uuid: string;
  report_type: string;
  severity: string;
  confidence: string;
  name: string;
  /** The file of its location. */
  location_file: string | null;
  /** The package of a dependency scanning finding. */
  package_name: string | null;
}

export interface SecurityDependenciesTable {
  id: Generated<number>;
  scan_id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  version: string | null;
  package_manager: string;
  file_path: string;
}
export type SecurityDependencyRow = Selectable<SecurityDependenciesTable>;

export interface VulnerabilityScannersTable {
  id: Generated<number>;
  project_id: number;
  external_id: string;
  name: string;
  vendor: string;
  created_at: string;
  updated_at: string;
}

export interface VulnerabilityIdentifiersTable {
  id: Generated<number>;
  project_id: number;
  /** SHA1 hex of `<type>:<value>`. */
  fingerprint: string;
  external_type: string;
  external_id: string;
  name: string;
  url: string | null;
  created_at: string;
  updated_at: string;
}

export interface VulnerabilitiesTable {
  id: Generated<number>;
  project_id: number;
  author_id: number | null;
  title: string;
  description: string | null;
  /** 'opened', 'detected', 'confirmed', 'resolved' or 'dismissed'. */
  state: string;
  severity: string;
  /** The severity's rank (info 1 … critical 7), for ordering. */
  severity_level: number;
  confidence: string;
  report_type: string;
  resolved_on_default_branch: Generated<Bool>;
  updated_by_id: number | null;
  last_edited_by_id: number | null;
  last_edited_at: string | null;
  start_date: string | null;
  due_date: string | null;
  resolved_by_id: number | null;
  resolved_at: string | null;
  dismissed_by_id: number | null;
  dismissed_at: string | null;
  confirmed_by_id: number | null;
  confirmed_at: string | null;
  created_at: string;
  updated_at: string;
}
export type VulnerabilityRow = Selectable<VulnerabilitiesTable>;

export interface VulnerabilityOccurrencesTable {
  id: Generated<number>;
  project_id: number;
  scanner_id: number;
  primary_identifier_id: number;
  vulnerability_id: number | null;
  report_type: string;
  severity: string;
  confidence: string;
  name: string;
  description: string | null;
  /** The platform's UUID v5 of the finding (unique). */
  uuid: string;
  project_fingerprint: string;
  location_fingerprint: string;
  metadata_version: string;
  /** The report's item, serialized. */
  raw_metadata: string;
  created_at: string;
  updated_at: string;
}
export type VulnerabilityOccurrenceRow = Selectable<VulnerabilityOccurrencesTable>;
// ---- Export and import (0037) ----------------------------------------------------------------

/** A project's export: its job's state and the archive it made (in the exports storage). */
export interface ProjectExportsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number | null;
  /** 'queued', 'started', 'finished' or 'failed'. */
  status: string;
  /** Replaces the project's description in the archive. */
  description: string | null;
  /** Where the finished archive is sent (upload[url]), and how (PUT or POST). */
  upload_url: string | null;
  upload_method: string | null;
  /** The archive's path in the exports storage; null until one is made. */
  file_path: string | null;
  /** The name it is downloaded under. */
  file_name: string | null;
  file_size: number | null;
  exported_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** A project made from an archive (or a remote one): where its import stands. */
export interface ProjectImportStatesTable {
  project_id: number;
  /** Who imports: the author of everything not mapped to another user. */
  user_id: number | null;
  /** 'scheduled', 'started', 'finished' or 'failed'. */
  status: string;
  import_type: string;
  correlation_id: string;
  last_error: string | null;
  /** The archive waiting to be read, in the exports storage; null once read. */
  file_path: string | null;
  /** A remote import's archive, fetched by the job. */
  import_url: string | null;
  /** With overwrite: the path the project takes once imported (the project there is replaced). */
  original_path: string | null;
  original_name: string | null;
  /** JSON of override_params. */
  override_params: string | null;
  created_at: string;
  updated_at: string;
}

/** A record of an archive that could not be imported while the others were. */
export interface ImportFailuresTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  correlation_id: string;
  relation_key: string;
  relation_index: number | null;
  exception_class: string;
  exception_message: string;
  source: string;
  created_at: string;
}

export interface GroupExportsTable {
  id: Generated<number>;
  group_id: number;
  user_id: number | null;
  /** 'queued', 'started', 'finished' or 'failed'. */
  status: string;
  file_path: string | null;
  file_name: string | null;
  file_size: number | null;
  exported_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

// ---- Webhooks (0039) -----------------------------------------------------------------------------

/** A webhook: a project's (ProjectHook), a group's (GroupHook) or the instance's (SystemHook). */
export interface WebHooksTable {
  id: Generated<number>;
  /** 'ProjectHook', 'GroupHook' or 'SystemHook'. */
  type: string;
  project_id: number | null;
  group_id: number | null;
  url: string;
  /** The secret sent as X-Gitlab-Token, sealed with the instance's key; null when none. */
  token_encrypted: string | null;
  push_events: Generated<Bool>;
  /** A branch name or a wildcard pattern; null or '' for every branch. */
  push_events_branch_filter: string | null;
  tag_push_events: Generated<Bool>;
  issues_events: Generated<Bool>;
  confidential_issues_events: Generated<Bool>;
  merge_requests_events: Generated<Bool>;
  note_events: Generated<Bool>;
  confidential_note_events: Generated<Bool>;
  job_events: Generated<Bool>;
  pipeline_events: Generated<Bool>;
  wiki_page_events: Generated<Bool>;
  deployment_events: Generated<Bool>;
  releases_events: Generated<Bool>;
  member_events: Generated<Bool>;
  subgroup_events: Generated<Bool>;
  repository_update_events: Generated<Bool>;
  enable_ssl_verification: Generated<Bool>;
  /** Failed deliveries in a row (counted only when automatic disabling is on). */
  recent_failures: Generated<number>;
  /** Not sent to until then (automatic disabling); null when enabled. */
  disabled_until: string | null;
  created_at: string;
  updated_at: string;
}

export type WebHookRow = Selectable<WebHooksTable>;

/** One delivery of a webhook and what the receiver answered. */
export interface WebHookLogsTable {
  id: Generated<number>;
  web_hook_id: number;
  /** The hook's scope ('push_hooks', 'issue_hooks', …). */
  trigger: string;
  url: string;
  /** JSON objects. */
  request_headers: string;
  request_data: string;
  response_headers: string;
  response_body: Generated<string>;
  /** The HTTP status as text, or 'internal error' when no answer came. */
  response_status: string;
  /** Seconds. */
  execution_duration: number;
  internal_error_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface GroupImportStatesTable {
  group_id: number;
  user_id: number | null;
  /** 'scheduled', 'started', 'finished' or 'failed'. */
  status: string;
  last_error: string | null;
  file_path: string | null;
  created_at: string;
  updated_at: string;
}

export type ProjectExportRow = Selectable<ProjectExportsTable>;
export type ProjectImportStateRow = Selectable<ProjectImportStatesTable>;
export type ImportFailureRow = Selectable<ImportFailuresTable>;
export type GroupExportRow = Selectable<GroupExportsTable>;
export type GroupImportStateRow = Selectable<GroupImportStatesTable>;
export type WebHookLogRow = Selectable<WebHookLogsTable>;

/** An address where a monitoring tool posts alerts for a project, with its token. */
export interface AlertManagementHttpIntegrationsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  active: Generated<Bool>;
  /** 16 hex characters, the last part of the integration's address. */
  endpoint_identifier: string;
  /** 32 hex characters, sealed with the instance's key (core/secret-box.ts). */
  token_encrypted: string;
  /** JSON text: an example of the payloads the tool sends. */
  payload_example: Generated<string>;
  /** JSON text: alert field name → { path, type, label } (custom field mapping). */
  payload_attribute_mapping: Generated<string>;
  created_at: string;
  updated_at: string;
}

export type AlertManagementHttpIntegrationRow = Selectable<AlertManagementHttpIntegrationsTable>;

/** An alert received from a monitoring tool; repeated payloads with its fingerprint count as its events. */
export interface AlertManagementAlertsTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  service: string | null;
  monitoring_tool: string | null;
  /** JSON text: an array of strings. */
  hosts: Generated<string>;
  /** critical, high, medium, low, info or unknown. */
  severity: Generated<string>;
  /** triggered, acknowledged, resolved or ignored. */
  status: Generated<string>;
  events: Generated<number>;
  /** SHA-1 hex of what identifies the alert; null when nothing does. */
  fingerprint: string | null;
  started_at: string;
  ended_at: string | null;
  /** JSON text: the payload as received. */
  payload: Generated<string>;
  created_at: string;
  updated_at: string;
}

export type AlertManagementAlertRow = Selectable<AlertManagementAlertsTable>;

/** A user an alert is assigned to. */
/** A push under way (0055): the repository it writes (`project:<id>`, `snippet:<id>`, …), the node serving it, and when its lease runs out. */
export interface PushLeasesTable {
  id: Generated<number>;
  repository: string;
  node: string;
  expires_at: string;
  created_at: string;
}

export interface AlertManagementAlertAssigneesTable {
  id: Generated<number>;
  alert_id: number;
  user_id: number;
}

export interface ErrorTrackingSettingsTable {
  id: Generated<number>;
  project_id: number;
  enabled: Bool;
  integrated: Bool;
  /** The external tracker's project address (`…/api/0/projects/<org>/<project>/`). */
  api_url: string | null;
  project_name: string | null;
  /** The external tracker's token, sealed with the instance's key (core/secret-box). */
  token_encrypted: string | null;
  created_at: string;
  updated_at: string;
}
export type ErrorTrackingSettingRow = Selectable<ErrorTrackingSettingsTable>;

export interface ErrorTrackingClientKeysTable {
  id: Generated<number>;
  project_id: number;
  active: Generated<Bool>;
  /** `glet_` and 32 hex digits; public by design (SDKs embed it in their DSN). */
  public_key: string;
  created_at: string;
  updated_at: string;
}
export type ErrorTrackingClientKeyRow = Selectable<ErrorTrackingClientKeysTable>;

export interface ErrorTrackingErrorsTable {
  id: Generated<number>;
  project_id: number;
  /** SHA-256 of the exception type, value, culprit and platform: the group's identity. */
  fingerprint: string;
  name: string;
  description: string;
  /** The culprit: the transaction, or the function and module of the last frame. */
  actor: string;
  platform: string;
  /** 'unresolved' | 'resolved' | 'ignored'. */
  status: Generated<string>;
  events_count: number;
  first_seen_at: string;
  last_seen_at: string;
  created_at: string;
  updated_at: string;
}
export type ErrorTrackingErrorRow = Selectable<ErrorTrackingErrorsTable>;

export interface ErrorTrackingErrorEventsTable {
  id: Generated<number>;
  error_id: number;
  description: string;
  environment: string | null;
  level: string | null;
  occurred_at: string;
  /** The event as the SDK sent it (JSON). */
  payload: string;
  created_at: string;
}
export type ErrorTrackingErrorEventRow = Selectable<ErrorTrackingErrorEventsTable>;

/** One plan's limits: the largest file, in bytes, of each package type. */
export interface PlanLimitsTable {
  plan_name: string;
  conan_max_file_size: Generated<number>;
  generic_packages_max_file_size: Generated<number>;
  helm_max_file_size: Generated<number>;
  maven_max_file_size: Generated<number>;
  npm_max_file_size: Generated<number>;
  nuget_max_file_size: Generated<number>;
  pypi_max_file_size: Generated<number>;
  terraform_module_max_file_size: Generated<number>;
  updated_at: string;
}

export type PlanLimitsRow = Selectable<PlanLimitsTable>;

export interface PackagesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  version: string | null;
  /** 'generic' (the one registry Quarry has). */
  package_type: string;
  /** 'default' or 'hidden'. */
  status: Generated<string>;
  created_at: string;
  updated_at: string;
}

export type PackageRow = Selectable<PackagesTable>;

export interface PackageFilesTable {
  id: Generated<number>;
  package_id: number;
  file_name: string;
  size: number;
  file_md5: string;
  file_sha1: string;
  file_sha256: string;
  /** The file, relative to the packages storage. */
  file_path: string;
  /** The pipeline of the job that published it; null when a user did, or once the pipeline is gone. */
  pipeline_id: number | null;
  created_at: string;
  updated_at: string;
}

export type PackageFileRow = Selectable<PackageFilesTable>;

interface RepositoryStorageMoveColumns {
  id: Generated<number>;
  /** 1 initial, 2 scheduled, 3 started, 4 finished, 5 failed, 6 replicated, 7 cleanup failed. */
  state: Generated<number>;
  source_storage_name: string;
  destination_storage_name: string;
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectRepositoryStorageMovesTable extends RepositoryStorageMoveColumns {
  project_id: number;
}

/** Moves of snippets' repositories (a snippet's go with it). */
export interface SnippetRepositoryStorageMovesTable extends RepositoryStorageMoveColumns {
  snippet_id: number;
}

export interface GroupRepositoryStorageMovesTable extends RepositoryStorageMoveColumns {
  group_id: number;
}

export type ProjectRepositoryStorageMoveRow = Selectable<ProjectRepositoryStorageMovesTable>;
export type GroupRepositoryStorageMoveRow = Selectable<GroupRepositoryStorageMovesTable>;
export type SnippetRepositoryStorageMoveRow = Selectable<SnippetRepositoryStorageMovesTable>;
