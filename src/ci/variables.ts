// The variables a job receives, as the runner wants them (notes gitlab-ci.md §3.4): one flat,
// ordered list of {key, value, public, masked} (+ file/raw only when true), in which a later
// entry of a key wins. This file builds the predefined ones from plain data; the order of the
// whole list is the platform's (persisted job variables, job, project, pipeline predefined, YAML,
// user, instance → group → project CI/CD variables, trigger, pipeline, schedule).
import { REPORTED_VERSION } from '../version.ts';
import { slugify } from './slug.ts';

export interface CiVariable {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
  file?: true;
  raw?: true;
}

export const publicVar = (key: string, value: string): CiVariable => ({ key, value, public: true, masked: false });
const secretVar = (key: string, value: string, masked = false): CiVariable => ({ key, value, public: false, masked });

/** A stored CI/CD variable (instance, group, project, pipeline, trigger, schedule) as the runner receives it. */
export function storedVar(v: { key: string; value: string; variable_type: string; masked?: boolean }): CiVariable {
  const item: CiVariable = { key: v.key, value: v.value, public: false, masked: v.masked ?? false };
  if (v.variable_type === 'file') item.file = true;
  return item;
}


export interface ProjectFacts {
  id: number;
  name: string;
  path: string;
  fullPath: string;
  namespaceFullPath: string;
  visibility: 'private' | 'internal' | 'public';
  webUrl: string;
  defaultBranch: string | null;
  configPath: string;
  description: string;
}

export interface CommitFacts {
  sha: string;
  beforeSha: string;
  message: string;
  /** ISO 8601. */
  timestamp: string;
  author: string;
}

export interface PipelineFacts {
  id: number | null;
  iid: number | null;
  source: string;
  ref: string;
  refType: 'branch' | 'tag';
  refProtected: boolean;
  createdAt: string | null;
  url: string | null;
  triggered: boolean;
  /** The merge request of a `merge_request_event` pipeline, whose ref is refs/merge-requests/<iid>/head. */
  mergeRequest?: MergeRequestFacts | null;
  /** `path!iid` of the open merge requests from this pipeline's branch (CI_OPEN_MERGE_REQUESTS). */
  openMergeRequests?: readonly string[];
}

export interface MergeRequestFacts {
  id: number;
  iid: number;
  projectId: number;
  projectPath: string;
  projectUrl: string;
  sourceBranch: string;
  targetBranch: string;
  title: string;
  assignees: readonly string[];
  milestone: string | null;
  labels: readonly string[];
  /** The merge base the merge request's diff starts from. */
  diffBaseSha: string | null;
}

/**
 * A merge request pipeline's own variables (Ci::Pipeline and MergeRequest#predefined_variables).
 * Pipelines here are detached (they run the source branch's head), so the merged-result shas are
 * empty; merge requests keep no diff versions, so there is no CI_MERGE_REQUEST_DIFF_ID.
 */
export function mergeRequestVariables(mr: MergeRequestFacts): CiVariable[] {
  const vars = [
    publicVar('CI_MERGE_REQUEST_EVENT_TYPE', 'detached'),
    publicVar('CI_MERGE_REQUEST_SOURCE_BRANCH_SHA', ''),
    publicVar('CI_MERGE_REQUEST_TARGET_BRANCH_SHA', ''),
  ];
  if (mr.diffBaseSha) vars.push(publicVar('CI_MERGE_REQUEST_DIFF_BASE_SHA', mr.diffBaseSha));
  vars.push(
    publicVar('CI_MERGE_REQUEST_ID', String(mr.id)),
    publicVar('CI_MERGE_REQUEST_IID', String(mr.iid)),
    publicVar('CI_MERGE_REQUEST_REF_PATH', mergeRequestRef(mr.iid)),
    publicVar('CI_MERGE_REQUEST_PROJECT_ID', String(mr.projectId)),
    publicVar('CI_MERGE_REQUEST_PROJECT_PATH', mr.projectPath),
    publicVar('CI_MERGE_REQUEST_PROJECT_URL', mr.projectUrl),
    publicVar('CI_MERGE_REQUEST_TARGET_BRANCH_NAME', mr.targetBranch),
    publicVar('CI_MERGE_REQUEST_TITLE', mr.title),
  );
  if (mr.assignees.length > 0) vars.push(publicVar('CI_MERGE_REQUEST_ASSIGNEES', mr.assignees.join(',')));
  if (mr.milestone !== null) vars.push(publicVar('CI_MERGE_REQUEST_MILESTONE', mr.milestone));
  if (mr.labels.length > 0) vars.push(publicVar('CI_MERGE_REQUEST_LABELS', mr.labels.join(',')));
  vars.push(
    publicVar('CI_MERGE_REQUEST_SOURCE_PROJECT_ID', String(mr.projectId)),
    publicVar('CI_MERGE_REQUEST_SOURCE_PROJECT_PATH', mr.projectPath),
    publicVar('CI_MERGE_REQUEST_SOURCE_PROJECT_URL', mr.projectUrl),
    publicVar('CI_MERGE_REQUEST_SOURCE_BRANCH_NAME', mr.sourceBranch),
  );
  return vars;
}

/** The ref that holds a merge request's source head, which its pipelines run. */
export const mergeRequestRef = (iid: number) => `refs/merge-requests/${iid}/head`;

export interface UserFacts {
  id: number;
  username: string;
  name: string;
  email: string;
}

export interface ServerFacts {
  /** The instance's external URL, without a trailing slash. */
  url: string;
}

function serverVariables(server: ServerFacts): CiVariable[] {
  const url = new URL(server.url);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const [major, minor, patch] = REPORTED_VERSION.split('.');
  return [
    publicVar('CI', 'true'),
    publicVar('GITLAB_CI', 'true'),
    publicVar('CI_SERVER_URL', server.url),
    publicVar('CI_SERVER_HOST', url.hostname),
    publicVar('CI_SERVER_PORT', port),
    publicVar('CI_SERVER_PROTOCOL', url.protocol.replace(':', '')),
    publicVar('CI_SERVER_NAME', 'GitLab'),
    publicVar('CI_SERVER_VERSION', REPORTED_VERSION),
    publicVar('CI_SERVER_VERSION_MAJOR', major),
    publicVar('CI_SERVER_VERSION_MINOR', minor),
    publicVar('CI_SERVER_VERSION_PATCH', patch),
    publicVar('CI_SERVER_REVISION', ''),
    publicVar('GITLAB_FEATURES', ''),
    publicVar('CI_API_V4_URL', `${server.url}/api/v4`),
  ];
}

export function projectVariables(server: ServerFacts, project: ProjectFacts): CiVariable[] {
  const rootNamespace = project.namespaceFullPath.split('/')[0];
  return [
    ...serverVariables(server),
    publicVar('CI_PROJECT_ID', String(project.id)),
    publicVar('CI_PROJECT_NAME', project.path),
    publicVar('CI_PROJECT_TITLE', project.name),
    publicVar('CI_PROJECT_DESCRIPTION', project.description),
    publicVar('CI_PROJECT_PATH', project.fullPath),
    publicVar('CI_PROJECT_PATH_SLUG', slugify(project.fullPath)),
    publicVar('CI_PROJECT_NAMESPACE', project.namespaceFullPath),
    publicVar('CI_PROJECT_ROOT_NAMESPACE', rootNamespace),
    publicVar('CI_PROJECT_URL', project.webUrl),
    publicVar('CI_PROJECT_VISIBILITY', project.visibility),
    publicVar('CI_PROJECT_REPOSITORY_LANGUAGES', ''),
    publicVar('CI_DEFAULT_BRANCH', project.defaultBranch ?? ''),
    publicVar('CI_CONFIG_PATH', project.configPath),
    publicVar('CI_PAGES_DOMAIN', ''),
    publicVar('CI_PAGES_URL', ''),
  ];
}

/** The commit's title (first line) and description (the rest), as the platform splits a message. */
function splitMessage(message: string): { title: string; description: string } {
  const newline = message.indexOf('\n');
  if (newline < 0) return { title: message.trim(), description: '' };
  return { title: message.slice(0, newline).trim(), description: message.slice(newline + 1).replace(/^\n+/, '') };
}

export function pipelineVariables(pipeline: PipelineFacts, commit: CommitFacts, user: UserFacts | null): CiVariable[] {
  const { title, description } = splitMessage(commit.message);
  // A merge request pipeline's ref names the merge request; its ref name is the source branch.
  const mr = pipeline.mergeRequest ?? null;
  const refName = mr ? mr.sourceBranch : pipeline.ref;
  const vars: CiVariable[] = [];
  if (pipeline.iid !== null) vars.push(publicVar('CI_PIPELINE_IID', String(pipeline.iid)));
  vars.push(publicVar('CI_PIPELINE_SOURCE', pipeline.source));
  if (pipeline.createdAt !== null) vars.push(publicVar('CI_PIPELINE_CREATED_AT', pipeline.createdAt.replace(/\.\d+Z$/, 'Z')));
  vars.push(
    publicVar('CI_COMMIT_SHA', commit.sha),
    publicVar('CI_COMMIT_SHORT_SHA', commit.sha.slice(0, 8)),
    publicVar('CI_COMMIT_BEFORE_SHA', commit.beforeSha),
    publicVar('CI_COMMIT_REF_NAME', refName),
    publicVar('CI_COMMIT_REF_SLUG', slugify(refName)),
  );
  if (pipeline.refType === 'tag') vars.push(publicVar('CI_COMMIT_TAG', pipeline.ref));
  else if (!mr) vars.push(publicVar('CI_COMMIT_BRANCH', pipeline.ref));
  vars.push(
    publicVar('CI_COMMIT_MESSAGE', commit.message),
    publicVar('CI_COMMIT_TITLE', title),
    publicVar('CI_COMMIT_DESCRIPTION', description),
    publicVar('CI_COMMIT_REF_PROTECTED', String(pipeline.refProtected)),
    publicVar('CI_COMMIT_TIMESTAMP', commit.timestamp),
    publicVar('CI_COMMIT_AUTHOR', commit.author),
    publicVar('CI_BUILD_REF', commit.sha),
    publicVar('CI_BUILD_BEFORE_SHA', commit.beforeSha),
    publicVar('CI_BUILD_REF_NAME', refName),
    publicVar('CI_BUILD_REF_SLUG', slugify(refName)),
  );
  if (pipeline.refType === 'tag') vars.push(publicVar('CI_BUILD_TAG', pipeline.ref));
  if (mr) vars.push(...mergeRequestVariables(mr));
  if (pipeline.openMergeRequests && pipeline.openMergeRequests.length > 0) vars.push(publicVar('CI_OPEN_MERGE_REQUESTS', pipeline.openMergeRequests.join(',')));
  if (user) {
    vars.push(
      publicVar('GITLAB_USER_ID', String(user.id)),
      publicVar('GITLAB_USER_EMAIL', user.email),
      publicVar('GITLAB_USER_LOGIN', user.username),
      publicVar('GITLAB_USER_NAME', user.name),
    );
  }
  return vars;
}

export interface JobFacts {
  id: number;
  name: string;
  stage: string;
  token: string;
  url: string;
  startedAt: string | null;
  manual: boolean;
  pipelineId: number;
  pipelineUrl: string;
  repositoryUrl: string;
  triggered: boolean;
}

/** What the platform persists with a job (its id, token, URLs) and the job's own predefined variables. */
export function jobVariables(job: JobFacts): CiVariable[] {
  const vars: CiVariable[] = [
    publicVar('CI_PIPELINE_ID', String(job.pipelineId)),
    publicVar('CI_PIPELINE_URL', job.pipelineUrl),
    publicVar('CI_JOB_ID', String(job.id)),
    publicVar('CI_JOB_URL', job.url),
    secretVar('CI_JOB_TOKEN', job.token, true),
  ];
  if (job.startedAt) vars.push(publicVar('CI_JOB_STARTED_AT', job.startedAt.replace(/\.\d+Z$/, 'Z')));
  vars.push(
    secretVar('CI_BUILD_TOKEN', job.token, true),
    publicVar('CI_REGISTRY_USER', 'gitlab-ci-token'),
    secretVar('CI_REGISTRY_PASSWORD', job.token, true),
    secretVar('CI_REPOSITORY_URL', job.repositoryUrl),
    publicVar('CI_JOB_NAME', job.name),
    publicVar('CI_JOB_STAGE', job.stage),
  );
  if (job.manual) vars.push(publicVar('CI_JOB_MANUAL', 'true'));
  if (job.triggered) vars.push(publicVar('CI_PIPELINE_TRIGGERED', 'true'));
  vars.push(publicVar('CI_BUILD_NAME', job.name), publicVar('CI_BUILD_STAGE', job.stage));
  return vars;
}

/** A list of variables as a map for expressions: later entries win. */
export function variableMap(list: readonly CiVariable[]): Record<string, string> {
  const map: Record<string, string> = Object.create(null);
  for (const v of list) map[v.key] = v.value;
  return map;
}
