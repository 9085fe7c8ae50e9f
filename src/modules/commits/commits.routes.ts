// Repository commits (the platform's commits API, 14.x): list with ref_name, path, since/until,
// all, first_parent, order, with_stats and trailers; show one by any revision, with its latest
// pipeline; create one from file actions. Reads need download_code (public repositories need no
// authentication); creating needs a push to the branch, refused with 403 as
// authorize_push_to_branch! does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { accessToProject, findProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound, paramError, tooLong } from '../../core/errors.ts';
import { KEYSET_UNAVAILABLE, pageOf, setOffsetHeaders, wantsKeyset } from '../../core/pagination.ts';
import { safeRepoPath } from '../../git/args.ts';
import { diffStats, readTrailers } from '../../git/history.ts';
import { CommitEntity, presentCommit } from '../../domain/commit-entity.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { ciAbilities } from '../pipelines/index.ts';
import { latestPipelineForSha } from '../pipelines/pipelines.finder.ts';
import { loadRepository } from '../repository/index.ts';
import { type HistoryPage, findCommit, findHistory, resolveWalk } from './commits.finder.ts';
import { type CommitPipeline, presentCommitDetail, presentHistory } from './commits.presenter.ts';
import { pickCommit } from './commit-picks.service.ts';
import {
  type ActionParams,
  CherryPickCommitBody,
  CommitDetailEntity,
  CommitParams,
  CommitWithStatsEntity,
  CreateCommitBody,
  DryRunEntity,
  ListCommitsQuery,
  ProjectParams,
  RevertCommitBody,
  ShowCommitQuery,
} from './commits.schemas.ts';
import { type ActionInput, commitChange, decodeContent, requirePushToBranch } from './commits.service.ts';

/** The parameters an action needs for what it does (Grape's `given action:` blocks). */
function actionInputs(actions: readonly ActionParams[]): ActionInput[] {
  const missing = new Set<string>();
  const need = (value: unknown, name: string) => {
    if (value === undefined) missing.add(`actions[][${name}] is missing`);
  };
  const inputs = actions.map((a): ActionInput => {
    if (a.action === 'move') need(a.previous_path, 'previous_path');
    if (a.action === 'update') need(a.content, 'content');
    if (a.action === 'chmod') need(a.execute_filemode, 'execute_filemode');
    return {
      action: a.action,
      filePath: a.file_path,
      previousPath: a.previous_path,
      content: a.content === undefined ? undefined : decodeContent(a.content, a.encoding),
      executeFilemode: a.execute_filemode,
      lastCommitId: a.last_commit_id,
    };
  });
  if (missing.size > 0) throw paramError([...missing].join(', '));
  return inputs;
}

/** Anonymous callers read public repositories; creating a commit refuses them through the push rules. */
const OPTIONAL = { auth: 'optional' } as const;

export const commitRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { config } = deps;
  const read = loadRepository('download_code');
  const webUrl = (row: { full_path: string }) => projectWebUrl(config.externalUrl, row);

  /** The commit's latest pipeline, and whether the caller reads pipelines (the last_pipeline). */
  async function commitPipeline(req: FastifyRequest, sha: string): Promise<CommitPipeline | null> {
    const project = loadedProject(req);
    const row = await latestPipelineForSha(deps.db, project.row.id, sha);
    if (!row) return null;
    const settings = await readProjectSettings(deps.db, project.row);
    const view = { baseUrl: config.externalUrl, projectWebUrl: webUrl(project.row), projectFullPath: project.row.full_path };
    return { row, view, readable: ciAbilities(req.actor, project, settings).has('read_pipeline') };
  }

  /** The detail of the commit a revision names, or 404 "404 Commit Not Found". */
  async function detail(req: FastifyRequest, revision: string, withStats: boolean) {
    const { row } = loadedProject(req);
    const dir = repositoryDir(config, row);
    const commit = await findCommit(dir, revision);
    if (dir === null || commit === null) throw notFound('Commit');
    const [stats, trailers, pipeline] = await Promise.all([withStats ? diffStats(dir, [commit]) : null, readTrailers(dir, [commit.id]), commitPipeline(req, commit.id)]);
    return presentCommitDetail(commit, { id: row.id, webUrl: webUrl(row) }, { stats: stats?.get(commit.id) ?? null, trailers: trailers.get(commit.id) ?? {}, pipeline });
  }

  api.get(
    '/projects/:id/repository/commits',
    {
      schema: { params: ProjectParams, querystring: ListCommitsQuery, response: { 200: Type.Array(Type.Union([CommitWithStatsEntity, CommitEntity])) } },
      config: OPTIONAL,
      preHandler: read,
    },
    async (req, reply) => {
      if (wantsKeyset(req)) throw paramError(KEYSET_UNAVAILABLE, 405);
      const q = req.query;
      const { row } = loadedProject(req);
      const path = q.path === undefined || q.path === '' ? undefined : safeRepoPath(q.path);
      if (path === null) throw paramError('path should be a valid file path');
      const page = pageOf(q);
      const dir = repositoryDir(config, row);
      let history: HistoryPage = { commits: [], total: 0, stats: null, trailers: null };
      // Without `all`, the walk starts at ref_name or the default branch; a name that is no commit lists nothing.
      const walk = dir === null || q.all ? null : await resolveWalk(dir, q.ref_name || row.default_branch || 'master');
      if (dir !== null && (q.all || walk !== null)) {
        const query = {
          revisions: walk === null ? [] : [walk],
          all: q.all,
          path,
          since: q.since === undefined ? undefined : new Date(q.since),
          until: q.until === undefined ? undefined : new Date(q.until),
          firstParent: q.first_parent,
          topoOrder: q.order === 'topo',
        };
        history = await findHistory(dir, query, { skip: (page.page - 1) * page.perPage, limit: page.perPage }, { stats: Boolean(q.with_stats), trailers: Boolean(q.trailers) });
      }
      setOffsetHeaders(req, reply, page, history.total, history.commits.length);
      return presentHistory(history, webUrl(row));
    },
  );

  api.get(
    '/projects/:id/repository/commits/:sha',
    { schema: { params: CommitParams, querystring: ShowCommitQuery, response: { 200: CommitDetailEntity } }, config: OPTIONAL, preHandler: read },
    async (req) => detail(req, req.params.sha, Boolean(req.query.stats)),
  );

  api.post(
    '/projects/:id/repository/commits',
    { schema: { params: ProjectParams, body: CreateCommitBody, response: { 201: CommitDetailEntity } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const { body } = req;
      // A bound the platform does not set (see commitMaxActions), refused in the words Grape uses for one.
      const max = config.commitMaxActions;
      if (max > 0 && body.actions.length > max) throw tooLong('actions', max);
      const actions = actionInputs(body.actions);
      const project = loadedProject(req);
      const { row } = project;
      if (body.start_project !== undefined) {
        const start = await findProject(req, body.start_project);
        if (!start || !(await accessToProject(req, start.row)).can.has('read_project')) throw notFound('Project');
        // Forks do not exist here: the only project a commit may start from is this one.
        if (start.row.id !== row.id) throw forbidden(`Project is not included in the fork network for ${start.row.name_with_namespace}`);
      }
      const id = await commitChange(serviceContext(req), project, {
        branch: body.branch,
        startBranch: body.start_branch,
        startSha: body.start_sha,
        force: body.force,
        actions,
        message: body.commit_message,
        authorName: body.author_name,
        authorEmail: body.author_email,
        pushForbidden: true,
      });
      reply.code(201);
      return detail(req, id, Boolean(body.stats));
    },
  );

  // Revert and cherry-pick: the push check first, then the commit (404 Commit), then the branch
  // (404 Branch); 201 with the new commit, or 200 {"dry_run": "success"}.
  for (const kind of ['revert', 'cherry_pick'] as const) {
    api.post(
      `/projects/:id/repository/commits/:sha/${kind}`,
      {
        schema: { params: CommitParams, body: kind === 'revert' ? RevertCommitBody : CherryPickCommitBody, response: { 200: DryRunEntity, 201: CommitEntity } },
        config: OPTIONAL,
        preHandler: read,
      },
      async (req, reply) => {
        const project = loadedProject(req);
        const ctx = serviceContext(req);
        const body: { branch: string; dry_run?: boolean; message?: string } = req.body;
        const dir = repositoryDir(config, project.row);
        // The push check precedes the look-ups; pickCommit repeats it for callers of its own.
        const commit = await requirePickable(req, dir, req.params.sha, body.branch);
        const id = await pickCommit(ctx, project, { kind, commit, branch: body.branch, dryRun: Boolean(body.dry_run), message: body.message });
        if (id === null) return reply.code(200).send({ dry_run: 'success' as const });
        const made = await findCommit(dir, id);
        if (made === null) throw notFound('Commit');
        reply.code(201);
        return presentCommit(made, webUrl(project.row));
      },
    );
  }

  /** The commit to pick, once the caller is known to push to the branch; 404 "404 Commit Not Found" otherwise. */
  async function requirePickable(req: FastifyRequest, dir: string | null, sha: string, branch: string) {
    await requirePushToBranch(serviceContext(req), loadedProject(req), branch, { empty: false, refusal: 403 });
    const commit = await findCommit(dir, sha);
    if (commit === null) throw notFound('Commit');
    return commit;
  }
};
