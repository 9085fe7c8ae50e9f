// Pipeline schedules (14.x lib/api/ci/pipeline_schedules.rb). Reporters read them; developers
// create them and play them (not on a ref they may not update); a schedule is changed and deleted
// by its owner (while a developer) or by maintainers, who may also take it over.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ACCESS } from '../../core/access/levels.ts';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiPipelineScheduleRow, UserRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadCi, loadedCi, pipelineRefusal } from '../pipelines/index.ts';
import type { PipelineView } from '../pipelines/pipelines.presenter.ts';
import { findSchedule, findSchedules, lastPipeline, scheduleVariable, scheduleVariables } from './pipeline-schedules.finder.ts';
import { playSchedule } from './pipeline-schedules.jobs.ts';
import { presentSchedule, presentScheduleDetails, presentScheduleVariable } from './pipeline-schedules.presenter.ts';
import {
  CreateScheduleBody,
  CreateScheduleVariableBody,
  CreatedEntity,
  ListSchedulesQuery,
  PipelineScheduleDetailsEntity,
  PipelineScheduleEntity,
  ProjectParams,
  ScheduleKeyParams,
  ScheduleParams,
  ScheduleVariableEntity,
  UpdateScheduleBody,
  UpdateScheduleVariableBody,
} from './pipeline-schedules.schemas.ts';
import {
  createSchedule,
  createScheduleVariable,
  deleteSchedule,
  deleteScheduleVariable,
  takeOwnership,
  updateSchedule,
  updateScheduleVariable,
} from './pipeline-schedules.service.ts';

const REQUIRED = { auth: 'required' } as const;

/** read_pipeline_schedule: reporters and up (administrators too), where CI is readable. */
function mayRead(req: FastifyRequest): boolean {
  return req.actor?.isAdmin === true || loadedProject(req).access >= ACCESS.REPORTER;
}

/** update/admin_pipeline_schedule: maintainers, or the schedule's owner while a developer. */
function mayChange(req: FastifyRequest, schedule: CiPipelineScheduleRow): boolean {
  const can = loadedCi(req).can;
  return can.has('admin_build') || (can.has('update_build') && schedule.owner_id === req.actor?.user.id);
}

export const pipelineScheduleRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const box = secretBox(config.dataDir);
  const readable = { config: REQUIRED, preHandler: loadCi('read_pipeline') };

  function view(req: FastifyRequest): PipelineView {
    const row = loadedProject(req).row;
    return { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, row), projectFullPath: row.full_path };
  }

  async function ownerOf(row: CiPipelineScheduleRow): Promise<UserRow | null> {
    if (row.owner_id === null) return null;
    return (await db.selectFrom('users').selectAll().where('id', '=', row.owner_id).executeTakeFirst()) ?? null;
  }

  async function details(req: FastifyRequest, row: CiPipelineScheduleRow) {
    const [owner, last, variables] = await Promise.all([ownerOf(row), lastPipeline(db, row.id), scheduleVariables(db, row.id)]);
    return presentScheduleDetails(row, { owner, lastPipeline: last, variables }, view(req), box);
  }

  /** The schedule named by the path: 404 when absent or unreadable. */
  async function requireSchedule(req: FastifyRequest, id: number): Promise<CiPipelineScheduleRow> {
    const row = mayRead(req) ? await findSchedule(db, loadedProject(req).row.id, id) : null;
    if (!row) throw notFound('Pipeline Schedule');
    return row;
  }

  async function changeable(req: FastifyRequest, id: number): Promise<CiPipelineScheduleRow> {
    const row = await requireSchedule(req, id);
    if (!mayChange(req, row)) throw forbidden();
    return row;
  }

  async function requireVariable(schedule: CiPipelineScheduleRow, key: string) {
    const row = await scheduleVariable(db, schedule.id, key);
    if (!row) throw notFound('Pipeline Schedule Variable');
    return row;
  }

  api.get(
    '/projects/:id/pipeline_schedules',
    { schema: { params: ProjectParams, querystring: ListSchedulesQuery, response: { 200: Type.Array(PipelineScheduleEntity) } }, ...readable },
    async (req, reply) => {
      if (!mayRead(req)) throw forbidden();
      const rows = await paginate(req, reply, findSchedules(db, loadedProject(req).row.id, req.query.scope));
      return Promise.all(rows.map(async (r) => presentSchedule(r, await ownerOf(r), config.externalUrl)));
    },
  );

  api.get('/projects/:id/pipeline_schedules/:pipeline_schedule_id', { schema: { params: ScheduleParams, response: { 200: PipelineScheduleDetailsEntity } }, ...readable }, async (req) =>
    details(req, await requireSchedule(req, req.params.pipeline_schedule_id)),
  );

  api.post('/projects/:id/pipeline_schedules', { schema: { params: ProjectParams, body: CreateScheduleBody, response: { 201: PipelineScheduleDetailsEntity } }, ...readable }, async (req, reply) => {
    if (!loadedCi(req).can.has('create_pipeline')) throw forbidden();
    const { description, ref, cron, cron_timezone = 'UTC', active = true } = req.body;
    const row = await createSchedule(serviceContext(req), loadedProject(req).row, req.actor!.user, { description, ref, cron, cron_timezone, active });
    reply.code(201);
    return details(req, row);
  });

  api.put('/projects/:id/pipeline_schedules/:pipeline_schedule_id', { schema: { params: ScheduleParams, body: UpdateScheduleBody, response: { 200: PipelineScheduleDetailsEntity } }, ...readable }, async (req) => {
    const row = await changeable(req, req.params.pipeline_schedule_id);
    return details(req, await updateSchedule(serviceContext(req), row, req.body));
  });

  api.post(
    '/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership',
    { schema: { params: ScheduleParams, response: { 201: PipelineScheduleDetailsEntity } }, ...readable },
    async (req, reply) => {
      const row = await changeable(req, req.params.pipeline_schedule_id);
      const owned = await takeOwnership(serviceContext(req), row, req.actor!.user);
      reply.code(201);
      return details(req, owned);
    },
  );

  api.delete('/projects/:id/pipeline_schedules/:pipeline_schedule_id', { schema: { params: ScheduleParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    await deleteSchedule(serviceContext(req), await changeable(req, req.params.pipeline_schedule_id));
    return reply.code(204).send();
  });

  api.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/play', { schema: { params: ScheduleParams, response: { 201: CreatedEntity } }, ...readable }, async (req, reply) => {
    const row = await requireSchedule(req, req.params.pipeline_schedule_id);
    const user = req.actor!.user;
    // play_pipeline_schedule: create_pipeline, and not on a ref the user may not update.
    if (!loadedCi(req).can.has('create_pipeline') || (await pipelineRefusal(db, user, loadedProject(req).row, row.ref)) !== null) throw forbidden();
    const ctx = serviceContext(req);
    await playSchedule(ctx.db, row, user.id, ctx.now());
    reply.code(201);
    return { message: '201 Created' as const };
  });

  api.post(
    '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables',
    { schema: { params: ScheduleParams, body: CreateScheduleVariableBody, response: { 201: ScheduleVariableEntity } }, ...readable },
    async (req, reply) => {
      const schedule = await changeable(req, req.params.pipeline_schedule_id);
      const row = await createScheduleVariable(serviceContext(req), schedule, req.body);
      reply.code(201);
      return presentScheduleVariable(row, box);
    },
  );

  api.put(
    '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    { schema: { params: ScheduleKeyParams, body: UpdateScheduleVariableBody, response: { 200: ScheduleVariableEntity } }, ...readable },
    async (req) => {
      const schedule = await changeable(req, req.params.pipeline_schedule_id);
      const row = await requireVariable(schedule, req.params.key);
      return presentScheduleVariable(await updateScheduleVariable(serviceContext(req), row, req.body), box);
    },
  );

  api.delete(
    '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key',
    { schema: { params: ScheduleKeyParams, response: { 202: ScheduleVariableEntity } }, ...readable },
    async (req, reply) => {
      const schedule = await changeable(req, req.params.pipeline_schedule_id);
      const row = await requireVariable(schedule, req.params.key);
      await deleteScheduleVariable(serviceContext(req), row);
      // The platform answers 202 with the deleted variable.
      reply.code(202);
      return presentScheduleVariable(row, box);
    },
  );
};
