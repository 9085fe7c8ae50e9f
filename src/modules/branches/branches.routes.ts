// Repository branches (spec part 1 §4.5): list (searched, by name), show, HEAD, create, delete, and
// delete the merged ones. Reads need download_code (anonymous callers read public repositories);
// writes need push_code and pass the protected-branch rules. A branch name in the path that git
// would refuse is a 400 before git is asked anything.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import type { LoadedProject } from '../../core/access/loaders.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { AcceptedEntity, NoContent } from '../../core/schema.ts';
import { validBranchName } from '../../git/args.ts';
import { repositoryDir, requireRepositoryDir } from '../../domain/project-repository.ts';
import { paginateList, searchRefs } from '../../domain/ref-list.ts';
import { type RefProtections, pusherOf } from '../../domain/ref-protection.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { loadRepository } from '../repository/index.ts';
import { type BranchRef, type Branches, mergedBranches, readBranches } from './branches.finder.ts';
import { type BranchView, presentBranch } from './branches.presenter.ts';
import { type Branch, BranchEntity, BranchParams, CreateBranchBody, ListBranchesQuery, ProjectParams } from './branches.schemas.ts';
import { createBranch, deleteBranch, deleteMergedBranches } from './branches.service.ts';

/** find_branch!'s answer to a name git would refuse. */
const invalidRefname = () => apiError(400, 'The branch refname is invalid');

/** The branch named in the path; a name git would refuse is a 400. */
function branchName(name: string): string {
  if (!validBranchName(name)) throw invalidRefname();
  return name;
}

function branchIn(branches: Branches, name: string): BranchRef {
  const branch = branches.byName.get(name);
  if (!branch) throw notFound('Branch');
  return branch;
}

/** Anonymous callers read public repositories; the abilities of the pre-handlers refuse their writes. */
const OPTIONAL = { auth: 'optional' } as const;

export const branchRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;
  const read = loadRepository('download_code');
  const write = loadRepository('push_code');

  function view(req: FastifyRequest, protections: RefProtections, merged: ReadonlySet<string>, project: LoadedProject = loadedProject(req)): BranchView {
    const { row } = project;
    return { protections, pusher: pusherOf(project, req.actor), defaultBranch: row.default_branch, merged, projectWebUrl: projectWebUrl(config.externalUrl, row) };
  }

  /** `project`: the request's, unless a write changed it (an empty repository's first branch). */
  async function showBranch(req: FastifyRequest, dir: string | null, name: string, project: LoadedProject = loadedProject(req)): Promise<Branch> {
    const { row } = project;
    const [branches, protections] = await Promise.all([readBranches(dir), loadRefProtections(db, row.id)]);
    const branch = branchIn(branches, name);
    return presentBranch(branch, view(req, protections, await mergedBranches(dir, branches, row.default_branch), project));
  }

  api.get(
    '/projects/:id/repository/branches',
    { schema: { params: ProjectParams, querystring: ListBranchesQuery, response: { 200: Type.Array(BranchEntity) } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const { row } = loadedProject(req);
      const dir = repositoryDir(config, row);
      const [branches, protections] = await Promise.all([readBranches(dir), loadRefProtections(db, row.id)]);
      const page = paginateList(req, reply, searchRefs(branches.list, req.query.search));
      const shown = view(req, protections, await mergedBranches(dir, branches, row.default_branch));
      return page.map((b) => presentBranch(b, shown));
    },
  );

  // Before the GET below, which would otherwise answer HEAD itself: 204 or 404, never a body.
  api.head(
    '/projects/:id/repository/branches/:branch',
    { schema: { params: BranchParams, response: { 204: NoContent, 404: NoContent } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const branches = await readBranches(repositoryDir(config, loadedProject(req).row));
      return reply.code(branches.byName.has(req.params.branch) ? 204 : 404).send();
    },
  );

  api.get('/projects/:id/repository/branches/:branch', { schema: { params: BranchParams, response: { 200: BranchEntity } }, config: OPTIONAL, preHandler: read }, async (req) => {
    return showBranch(req, repositoryDir(config, loadedProject(req).row), branchName(req.params.branch));
  });

  api.post(
    '/projects/:id/repository/branches',
    { schema: { params: ProjectParams, body: CreateBranchBody, response: { 201: BranchEntity } }, config: OPTIONAL, preHandler: write },
    async (req, reply) => {
      const { body } = req;
      const project = loadedProject(req);
      const dir = requireRepositoryDir(config, project.row);
      const after = await createBranch(serviceContext(req), project, dir, body.branch, body.ref);
      reply.code(201);
      return showBranch(req, dir, body.branch, after);
    },
  );

  api.delete(
    '/projects/:id/repository/branches/:branch',
    { schema: { params: BranchParams, response: { 204: NoContent } }, config: OPTIONAL, preHandler: write },
    async (req, reply) => {
      const name = branchName(req.params.branch);
      const project = loadedProject(req);
      const dir = requireRepositoryDir(config, project.row);
      const branch = branchIn(await readBranches(dir), name);
      checkUnmodifiedSince(req.headers['if-unmodified-since'], branch.details.author.timestamp * 1000);
      await deleteBranch(serviceContext(req), project, dir, branch);
      return reply.code(204).send();
    },
  );

  api.delete(
    '/projects/:id/repository/merged_branches',
    { schema: { params: ProjectParams, response: { 202: AcceptedEntity } }, config: OPTIONAL, preHandler: write },
    async (req, reply) => {
      const project = loadedProject(req);
      requireRepositoryDir(config, project.row);
      await deleteMergedBranches(serviceContext(req), project);
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );
};
