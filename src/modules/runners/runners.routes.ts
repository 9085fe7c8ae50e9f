// The runners API (14.x `lib/api/ci/runners.rb`): the caller's runners and every runner, one
// runner's details, changes and removal; a project's runners, enabling another of the caller's
// runners on it and disabling one; a group's runners; and the 14.3 resets of the registration
// tokens. Every route needs a signed-in caller.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, invalidFields, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { CiRunnerRow } from '../../db/schema.ts';
import { loadProjectView } from '../projects/projects.finder.ts';
import { presentProject } from '../projects/projects.presenter.ts';
import { allRunners, findRunner, groupRunners, ownedRunners, ownsRunner, projectRunners, runnerProjectCount, runnerRelations } from './runners.finder.ts';
import { presentRunner, presentRunnerDetails } from './runners.presenter.ts';
import {
  AllRunnersQuery,
  EnableRunnerBody,
  GroupRunnersQuery,
  OwnedRunnersQuery,
  OwnerParams,
  ProjectRunnerParams,
  ResetTokenEntity,
  RunnerDetailsEntity,
  RunnerEntity,
  RunnerParams,
  UpdateRunnerBody,
} from './runners.schemas.ts';
import {
  assignRunner,
  deleteRunner,
  resetGroupRegistrationToken,
  resetInstanceRegistrationToken,
  resetProjectRegistrationToken,
  unassignRunner,
  updateRunner,
} from './runners.service.ts';

const USER = { auth: 'required' } as const;
const NO_ACCESS = 'No access granted';

export const runnerRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;

  async function requireRunner(id: number): Promise<CiRunnerRow> {
    const runner = await findRunner(db, id);
    if (!runner) throw notFound('Runner');
    return runner;
  }

  async function details(req: FastifyRequest, runner: CiRunnerRow) {
    const actor = requireUser(req);
    const now = deps.now();
    const related = await runnerRelations(db, actor, runner.id, now);
    const view = await loadProjectView(deps, actor, related.projects, { form: 'simple' });
    const projects = related.projects.map((p) => presentProject(p, view, 'simple'));
    return presentRunnerDetails(runner, { projects, groups: related.groups, baseUrl: config.externalUrl, now });
  }

  /** 14.x's authenticate_update_runner!: administrators, or the runner's owners. */
  async function requireOwned(req: FastifyRequest, runner: CiRunnerRow): Promise<void> {
    if (!(await ownsRunner(db, requireUser(req), runner.id, deps.now()))) throw forbidden(NO_ACCESS);
  }

  api.get('/runners', { schema: { querystring: OwnedRunnersQuery, response: { 200: Type.Array(RunnerEntity) } }, config: USER }, async (req, reply) => {
    const actor = requireUser(req);
    const now = deps.now();
    const rows = await paginate(req, reply, ownedRunners(db, actor.user.id, req.query, now));
    return rows.map((r) => presentRunner(r, now));
  });

  api.get('/runners/all', { schema: { querystring: AllRunnersQuery, response: { 200: Type.Array(RunnerEntity) } }, config: USER }, async (req, reply) => {
    requireAdmin(req);
    const now = deps.now();
    const rows = await paginate(req, reply, allRunners(db, req.query, now));
    return rows.map((r) => presentRunner(r, now));
  });

  // Instance runners are shown to every signed-in user; others to their owners.
  api.get('/runners/:id', { schema: { params: RunnerParams, response: { 200: RunnerDetailsEntity } }, config: USER }, async (req) => {
    const runner = await requireRunner(req.params.id);
    if (runner.runner_type !== 'instance_type') await requireOwned(req, runner);
    return details(req, runner);
  });

  api.put('/runners/:id', { schema: { params: RunnerParams, body: UpdateRunnerBody, response: { 200: RunnerDetailsEntity } }, config: USER }, async (req) => {
    const runner = await requireRunner(req.params.id);
    await requireOwned(req, runner);
    const result = await updateRunner(serviceContext(req), runner, req.body);
    if ('errors' in result) throw invalidFields(result.errors);
    return details(req, result.runner);
  });

  api.delete('/runners/:id', { schema: { params: RunnerParams, response: { 204: NoContent } }, config: USER }, async (req, reply) => {
    const runner = await requireRunner(req.params.id);
    // 14.x asks this before whether the caller owns the runner at all.
    if (!requireUser(req).isAdmin && (await runnerProjectCount(db, runner.id)) > 1) throw forbidden('Runner associated with more than one project');
    await requireOwned(req, runner);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(runner.updated_at));
    await deleteRunner(serviceContext(req), runner.id);
    return reply.code(204).send();
  });

  const maintainer = loadProject('admin_project');

  api.get(
    '/projects/:id/runners',
    { schema: { params: OwnerParams, querystring: AllRunnersQuery, response: { 200: Type.Array(RunnerEntity) } }, config: USER, preHandler: maintainer },
    async (req, reply) => {
      const { row, namespace } = loadedProject(req);
      const now = deps.now();
      const rows = await paginate(req, reply, projectRunners(db, row, namespace, req.query, now));
      return rows.map((r) => presentRunner(r, now));
    },
  );

  api.post(
    '/projects/:id/runners',
    { schema: { params: OwnerParams, body: EnableRunnerBody, response: { 201: RunnerEntity } }, config: USER, preHandler: maintainer },
    async (req, reply) => {
      const runner = await requireRunner(req.body.runner_id);
      if (runner.runner_type === 'group_type') throw forbidden('Runner is a group runner');
      if (!requireUser(req).isAdmin) {
        if (runner.locked) throw forbidden('Runner is locked');
        await requireOwned(req, runner);
      }
      const ctx = serviceContext(req);
      if (!(await assignRunner(ctx, runner, loadedProject(req).row))) throw invalidFields({ assign_to: ['Validation failed: Runner has already been taken'] });
      reply.code(201);
      return presentRunner(await requireRunner(runner.id), deps.now());
    },
  );

  api.delete(
    '/projects/:id/runners/:runner_id',
    { schema: { params: ProjectRunnerParams, response: { 204: NoContent } }, config: USER, preHandler: maintainer },
    async (req, reply) => {
      const project = loadedProject(req).row;
      const link = await db.selectFrom('ci_runner_projects').selectAll().where('runner_id', '=', req.params.runner_id).where('project_id', '=', project.id).executeTakeFirst();
      if (!link) throw notFound('Runner');
      if ((await runnerProjectCount(db, link.runner_id)) === 1) throw forbidden('Only one project associated with the runner. Please remove the runner instead');
      checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(link.created_at));
      await unassignRunner(serviceContext(req), link.runner_id, project.id);
      return reply.code(204).send();
    },
  );

  const owner = loadGroup('admin_group');

  api.get(
    '/groups/:id/runners',
    { schema: { params: OwnerParams, querystring: GroupRunnersQuery, response: { 200: Type.Array(RunnerEntity) } }, config: USER, preHandler: owner },
    async (req, reply) => {
      const now = deps.now();
      const rows = await paginate(req, reply, groupRunners(db, loadedGroup(req).row, req.query, now));
      return rows.map((r) => presentRunner(r, now));
    },
  );

  // The 14.3 resets answer the new token (to administrators, maintainers and owners respectively);
  // runners registered with the old one keep their own tokens.
  api.post('/runners/reset_registration_token', { schema: { response: { 201: ResetTokenEntity } }, config: USER }, async (req, reply) => {
    requireAdmin(req);
    reply.code(201);
    return { token: await resetInstanceRegistrationToken(serviceContext(req)) };
  });

  api.post(
    '/projects/:id/runners/reset_registration_token',
    { schema: { params: OwnerParams, response: { 201: ResetTokenEntity } }, config: USER, preHandler: maintainer },
    async (req, reply) => {
      reply.code(201);
      return { token: await resetProjectRegistrationToken(serviceContext(req), loadedProject(req).row) };
    },
  );

  api.post(
    '/groups/:id/runners/reset_registration_token',
    { schema: { params: OwnerParams, response: { 201: ResetTokenEntity } }, config: USER, preHandler: owner },
    async (req, reply) => {
      reply.code(201);
      return { token: await resetGroupRegistrationToken(serviceContext(req), loadedGroup(req).row) };
    },
  );
};
