// Merge requests (14.x lib/api/merge_requests.rb): a project's, every readable project's
// (/merge_requests, the caller's own by default), a group's; one with its commits and changes;
// creation, edits, closing and reopening, deletion, the merge itself (at once, or when the pipeline
// succeeds) and rebases (in the background). Reading follows
// read_merge_request (the project's code readers, with the merge requests feature open to them);
// a merge request the caller may not read is the platform's record-not-found 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { type LoadedProject, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, messageList, unauthorized } from '../../core/errors.ts';
import { pageOf, paginate, setOffsetHeaders } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { CommitEntity, presentCommit } from '../../domain/commit-entity.ts';
import { assignableUsers, issuableProjects } from '../../domain/issuables.ts';
import { projectLabelScope } from '../../domain/labels.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { canMergeToBranch, canPushToBranch, pusherOf } from '../../domain/ref-protection.ts';
import { type ProjectSettingValues, readProjectSettings } from '../../domain/settings/project-settings.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { countCommits, logCommitIds, readCommits } from '../../git/history.ts';
import { changedFiles } from '../../git/merges.ts';
import { MERGE_STATUS_CHECK } from '../../jobs/merge-status-check.ts';
import { enqueue } from '../../jobs/queue.ts';
import { usableMilestone } from '../issues/issues.finder.ts';
import { ciAbilities } from '../pipelines/index.ts';
import { mergeRequestHeadPipeline, pipelineDetailParts } from '../pipelines/pipelines.finder.ts';
import { presentPipeline, presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { filterMergeRequests, orderMergeRequests } from './merge-request-filters.ts';
import { findMergeRequestByIid, groupMergeRequests, isFirstContribution, loadMergeRequestRelations, projectMergeRequests, readableMergeRequests } from './merge-requests.finder.ts';
import { type MergeRequestView, presentMergeRequest, presentMergeRequestBasic, presentMergeRequestSimple } from './merge-requests.presenter.ts';
import {
  CancelAutoMergeEntity,
  ChangesQuery,
  CommitsQuery,
  CreateMergeRequestBody,
  ListMergeRequestsQuery,
  MergeBody,
  MergeRequestBasicEntity,
  MergeRequestChangesEntity,
  MergeRequestEntity,
  MergeRequestParams,
  MergeRequestSimpleEntity,
  ProjectParams,
  RebaseBody,
  RebaseEntity,
  SingleQuery,
  UpdateMergeRequestBody,
} from './merge-requests.schemas.ts';
import { type MergeRequestChanges, type MergeRequestPowers, createMergeRequest, deleteMergeRequest, recheckLater, updateMergeRequest } from './merge-requests.service.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { branchHead } from './merge-state.ts';
import { mergeMergeRequest } from './merge.ts';
import { cancelAutoMerge } from './auto-merge.ts';
import { requestRebase } from './rebase.ts';

const OPTIONAL = { auth: 'optional' } as const;
const REQUIRED = { auth: 'required' } as const;


export interface MergeRequestAccess {
  /** read_merge_request. */
  read: boolean;
  /** admin_merge_request and create_merge_request_from: Developers and up, on a project that is not archived. */
  admin: boolean;
  destroy: boolean;
}

export async function mergeRequestAccess(req: FastifyRequest, project: LoadedProject, settings?: ProjectSettingValues): Promise<MergeRequestAccess> {
  const level = (settings ?? (await readProjectSettings(req.server.deps.db, project.row))).features.merge_requests_access_level;
  const read = project.can.has('download_code') && projectFeatureAvailable(req.actor, project.row, project.access, 'merge_requests', level);
  return { read, admin: read && project.can.has('push_code'), destroy: read && (req.actor?.isAdmin === true || project.access >= ACCESS.OWNER) };
}

export const mergeRequestRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const today = () => api.deps.now().toISOString().slice(0, 10);
  const view = (fromProjectId: number | null, withLabelsDetails = false, renderHtml = false): MergeRequestView => ({ baseUrl: config.externalUrl, fromProjectId, withLabelsDetails, renderHtml });

  async function presentList(rows: MergeRequestRow[], v: MergeRequestView, query: { with_merge_status_recheck?: boolean; view?: 'simple' }) {
    const recheck = query.with_merge_status_recheck ?? false;
    if (recheck) {
      for (const projectId of new Set(rows.filter((r) => r.merge_status === 'unchecked' && r.state === 'opened').map((r) => r.project_id))) {
        const ids = rows.filter((r) => r.project_id === projectId && r.merge_status === 'unchecked').map((r) => r.id);
        await enqueue(db, MERGE_STATUS_CHECK, { projectId, mergeRequestIds: ids });
      }
    }
    if (query.view === 'simple') {
      const projects = await issuableProjects(db, rows.map((r) => r.project_id));
      return rows.map((row) => presentMergeRequestSimple(row, { projects }, config.externalUrl));
    }
    const relations = await loadMergeRequestRelations(db, rows);
    return rows.map((row) => presentMergeRequestBasic(row, relations, v, today()));
  }

  /** The single entity: its subscription, changes count, pipelines, diff refs and whether the caller may merge it. */
  async function presentSingle(req: FastifyRequest, mr: MergeRequestRow, options: { renderHtml?: boolean; diverged?: boolean; rebase?: boolean } = {}) {
    const project = loadedProject(req);
    const settings = await readProjectSettings(db, project.row);
    const relations = await loadMergeRequestRelations(db, [mr], req.actor?.user.id ?? null);
    const dir = repositoryDir(config, project.row);
    const changes = dir !== null && mr.base_sha !== null && mr.head_sha !== null ? await changedFiles(dir, mr.base_sha, mr.head_sha) : null;
    const limits = await applicationSettings(db);
    const ci = ciAbilities(req.actor, project, settings);
    const buildsOpen = projectFeatureAvailable(req.actor, project.row, project.access, 'builds', settings.features.builds_access_level);
    const pipeline = mr.sha !== null && (buildsOpen || ci.has('read_pipeline')) ? await mergeRequestHeadPipeline(db, mr, mr.sha) : null;
    const pipelineView = { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, project.row), projectFullPath: project.row.full_path };
    const protections = req.actor ? await loadRefProtections(db, project.row.id) : null;
    const head = mr.state === 'opened' && dir !== null && options.diverged ? await branchHead(dir, mr.target_branch) : null;
    return presentMergeRequest(mr, relations, view(project.row.id, false, options.renderHtml ?? false), today(), {
      subscribed: relations.subscribed.has(mr.id),
      changesCount: changes === null ? null : changes.length > limits.diff_max_files ? `${limits.diff_max_files}+` : String(changes.length),
      ci: buildsOpen ? { pipeline: pipeline ? presentPipelineBasic(pipeline, pipelineView) : null, startedAt: pipeline?.started_at ?? null, finishedAt: pipeline?.finished_at ?? null } : null,
      headPipeline: ci.has('read_pipeline') ? (pipeline ? presentPipeline(pipeline, pipelineView, await pipelineDetailParts(db, pipeline)) : null) : undefined,
      divergedCommitsCount: options.diverged ? (head !== null && mr.sha !== null && dir !== null ? await countCommits(dir, { revisions: [head, `^${mr.sha}`] }) : 0) : undefined,
      rebaseInProgress: options.rebase ? Boolean(mr.rebase_in_progress) : undefined,
      firstContribution: await isFirstContribution(db, mr),
      canMerge: protections !== null && mr.state === 'opened' && canMergeToBranch(protections, mr.target_branch, pusherOf(project, req.actor)),
    });
  }

  /** The merge request named by the path, if the caller may read it; the platform's record-not-found 404 otherwise. */
  async function requireMergeRequest(req: FastifyRequest, iid: number): Promise<{ mr: MergeRequestRow; access: MergeRequestAccess }> {
    const project = loadedProject(req);
    const access = await mergeRequestAccess(req, project);
    const mr = access.read ? await findMergeRequestByIid(db, project.row.id, iid) : undefined;
    if (!mr) throw apiError(404, '404 Not found');
    return { mr, access };
  }

  function powers(req: FastifyRequest, access: MergeRequestAccess): MergeRequestPowers {
    const project = loadedProject(req);
    const scope = projectLabelScope(project.row, project.namespace);
    return {
      admin: access.admin,
      labelScope: scope,
      createLabels: project.can.has('admin_label'),
      gitDir: repositoryDir(config, project.row),
      milestone: (handle, id) => usableMilestone(handle, scope, id),
      assignable: (handle, ids) => assignableUsers(handle, project.row, ids),
    };
  }

  function changesOf(body: typeof UpdateMergeRequestBody.static | typeof CreateMergeRequestBody.static): MergeRequestChanges {
    const split = (list: string[] | undefined) => list?.flatMap((l) => l.split(','));
    return {
      title: body.title,
      description: body.description,
      assigneeIds: body.assignee_ids ?? (body.assignee_id !== undefined ? [body.assignee_id] : undefined),
      reviewerIds: body.reviewer_ids,
      milestoneId: body.milestone_id,
      labels: split(body.labels),
      addLabels: 'add_labels' in body ? split(body.add_labels) : undefined,
      removeLabels: 'remove_labels' in body ? split(body.remove_labels) : undefined,
      removeSourceBranch: body.remove_source_branch,
      squash: body.squash,
      discussionLocked: 'discussion_locked' in body ? body.discussion_locked : undefined,
      stateEvent: 'state_event' in body ? body.state_event : undefined,
      targetBranch: 'source_branch' in body ? undefined : body.target_branch,
    };
  }

  const list = { 200: Type.Array(Type.Union([MergeRequestBasicEntity, MergeRequestSimpleEntity])) };
  const single = { schema: { params: MergeRequestParams }, config: OPTIONAL, preHandler: loadProject('read_project') };

  api.get('/projects/:id/merge_requests', { schema: { params: ProjectParams, querystring: ListMergeRequestsQuery, response: list }, config: OPTIONAL, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    if (!(await mergeRequestAccess(req, project)).read) throw forbidden();
    const q = filterMergeRequests(projectMergeRequests(db, project.row.id), req.query, req.actor, 'all');
    const rows = await paginate(req, reply, orderMergeRequests(q, req.query.order_by, req.query.sort));
    return presentList(rows, view(project.row.id, req.query.with_labels_details), req.query);
  });

  api.get('/merge_requests', { schema: { querystring: ListMergeRequestsQuery, response: list }, config: OPTIONAL }, async (req, reply) => {
    const scope = req.query.scope ?? 'created_by_me';
    if (!req.actor && scope !== 'all') throw unauthorized();
    const q = filterMergeRequests(readableMergeRequests(db, req.actor), { ...req.query, scope, non_archived: req.query.non_archived ?? true }, req.actor, 'created_by_me');
    const rows = await paginate(req, reply, orderMergeRequests(q, req.query.order_by, req.query.sort));
    return presentList(rows, view(null, req.query.with_labels_details), req.query);
  });

  api.get('/groups/:id/merge_requests', { schema: { params: ProjectParams, querystring: ListMergeRequestsQuery, response: list }, config: OPTIONAL, preHandler: loadGroup('read_group') }, async (req, reply) => {
    const group = loadedGroup(req);
    const q = filterMergeRequests(groupMergeRequests(db, req.actor, group.row.traversal_path), { ...req.query, non_archived: req.query.non_archived ?? true }, req.actor, 'all');
    const rows = await paginate(req, reply, orderMergeRequests(q, req.query.order_by, req.query.sort));
    return presentList(rows, view(null, req.query.with_labels_details), req.query);
  });

  api.get('/projects/:id/merge_requests/:merge_request_iid', { ...single, schema: { params: MergeRequestParams, querystring: SingleQuery, response: { 200: MergeRequestEntity } } }, async (req) => {
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    // Reading an unchecked merge request asks for its check (check_mergeability(async: true)).
    if (mr.state === 'opened' && mr.merge_status === 'unchecked') await recheckLater(db, mr);
    return presentSingle(req, mr, { renderHtml: req.query.render_html, diverged: req.query.include_diverged_commits_count, rebase: req.query.include_rebase_in_progress });
  });

  api.post('/projects/:id/merge_requests', { schema: { params: ProjectParams, body: CreateMergeRequestBody, response: { 201: MergeRequestEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const access = await mergeRequestAccess(req, project);
    if (!access.admin) throw forbidden();
    // Forks are not kept: a merge request stays inside its project.
    if (req.body.target_project_id !== undefined && req.body.target_project_id !== project.row.id) throw messageList(['Source project is not a fork of the target project'], 422);
    const { title, source_branch: sourceBranch, target_branch: targetBranch } = req.body;
    const mr = await createMergeRequest(serviceContext(req), project.row.id, { ...changesOf(req.body), title, sourceBranch, targetBranch }, powers(req, access));
    reply.code(201);
    return presentSingle(req, mr);
  });

  api.put('/projects/:id/merge_requests/:merge_request_iid', { schema: { params: MergeRequestParams, body: UpdateMergeRequestBody, response: { 200: MergeRequestEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req) => {
    const project = loadedProject(req);
    const { mr, access } = await requireMergeRequest(req, req.params.merge_request_iid);
    const userId = req.actor!.user.id;
    const own = mr.author_id === userId || (await db.selectFrom('merge_request_assignees').select('user_id').where('merge_request_id', '=', mr.id).where('user_id', '=', userId).executeTakeFirst()) !== undefined;
    if (!(access.admin || (own && !project.row.archived))) throw forbidden();
    return presentSingle(req, await updateMergeRequest(serviceContext(req), mr, changesOf(req.body), powers(req, access)));
  });

  api.delete('/projects/:id/merge_requests/:merge_request_iid', { schema: { params: MergeRequestParams, response: { 204: NoContent } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const { mr, access } = await requireMergeRequest(req, req.params.merge_request_iid);
    if (!access.destroy) throw forbidden();
    await deleteMergeRequest(serviceContext(req), mr);
    return reply.code(204).send();
  });

  api.get('/projects/:id/merge_requests/:merge_request_iid/commits', { ...single, schema: { params: MergeRequestParams, querystring: CommitsQuery, response: { 200: Type.Array(CommitEntity) } } }, async (req, reply) => {
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    const project = loadedProject(req);
    const page = pageOf(req.query);
    const dir = repositoryDir(config, project.row);
    if (dir === null || mr.head_sha === null) {
      setOffsetHeaders(req, reply, page, 0, 0);
      return [];
    }
    const query = { revisions: mr.base_sha === null ? [mr.head_sha] : [mr.head_sha, `^${mr.base_sha}`] };
    const [ids, total] = await Promise.all([logCommitIds(dir, query, { skip: (page.page - 1) * page.perPage, limit: page.perPage }), countCommits(dir, query)]);
    const commits = await readCommits(dir, ids);
    setOffsetHeaders(req, reply, page, total, commits.length);
    const webUrl = projectWebUrl(config.externalUrl, project.row);
    return commits.map((commit) => presentCommit(commit, webUrl));
  });

  api.get('/projects/:id/merge_requests/:merge_request_iid/changes', { ...single, schema: { params: MergeRequestParams, querystring: ChangesQuery, response: { 200: MergeRequestChangesEntity } } }, async (req) => {
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    const dir = repositoryDir(config, loadedProject(req).row);
    const files = dir !== null && mr.base_sha !== null && mr.head_sha !== null ? await changedFiles(dir, mr.base_sha, mr.head_sha) : [];
    const entity = await presentSingle(req, mr);
    // Within the instance's diff limits (diff_max_files, diff_max_lines), every file; beyond them,
    // the files and lines that fit; a file whose patch passes diff_max_patch_bytes shows no diff
    // (raw diffs: all of it).
    const limits = await applicationSettings(db);
    let overflow = false;
    let shown = files;
    if (!req.query.access_raw_diffs) {
      let lines = 0;
      shown = [];
      for (const file of files) {
        lines += file.diff.split('\n').length - 1;
        if (shown.length >= limits.diff_max_files || lines > limits.diff_max_lines) {
          overflow = true;
          break;
        }
        shown.push(Buffer.byteLength(file.diff) > limits.diff_max_patch_bytes ? { ...file, diff: '' } : file);
      }
    }
    const changes = shown.map((f) => ({ old_path: f.oldPath, new_path: f.newPath, a_mode: f.aMode, b_mode: f.bMode, new_file: f.newFile, renamed_file: f.renamedFile, deleted_file: f.deletedFile, diff: f.diff }));
    return { ...entity, changes, overflow };
  });

  api.put('/projects/:id/merge_requests/:merge_request_iid/merge', { schema: { params: MergeRequestParams, body: MergeBody, response: { 200: MergeRequestEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req) => {
    const project = loadedProject(req);
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    const settings = await readProjectSettings(db, project.row);
    const b = req.body;
    const merged = await mergeMergeRequest(
      serviceContext(req),
      project,
      mr,
      {
        mergeCommitMessage: b.merge_commit_message,
        squashCommitMessage: b.squash_commit_message,
        squash: b.squash,
        shouldRemoveSourceBranch: b.should_remove_source_branch,
        sha: b.sha,
        mergeWhenPipelineSucceeds: b.merge_when_pipeline_succeeds,
      },
      settings,
    );
    return presentSingle(req, merged);
  });

  // can_cancel_auto_merge?: whoever may merge it, and its author.
  api.post('/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds', { schema: { params: MergeRequestParams, response: { 201: CancelAutoMergeEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    const protections = await loadRefProtections(db, project.row.id);
    if (!(mr.author_id === req.actor!.user.id || (mr.state === 'opened' && canMergeToBranch(protections, mr.target_branch, pusherOf(project, req.actor))))) throw unauthorized();
    reply.code(201);
    return cancelAutoMerge(serviceContext(req), mr);
  });

  // authorize_push_to_merge_request!, then rebase_async; the rebase itself runs as a background job.
  api.put('/projects/:id/merge_requests/:merge_request_iid/rebase', { schema: { params: MergeRequestParams, body: RebaseBody, response: { 202: RebaseEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const { mr } = await requireMergeRequest(req, req.params.merge_request_iid);
    const dir = repositoryDir(config, project.row);
    if (dir === null || (await branchHead(dir, mr.source_branch)) === null) throw forbidden('Source branch does not exist');
    const protections = await loadRefProtections(db, project.row.id);
    if (!canPushToBranch(protections, mr.source_branch, pusherOf(project, req.actor))) throw forbidden('Cannot push to source branch');
    await requestRebase(serviceContext(req), mr, req.actor!.user.id, req.body.skip_ci ?? false);
    reply.code(202);
    return { rebase_in_progress: true };
  });
};
