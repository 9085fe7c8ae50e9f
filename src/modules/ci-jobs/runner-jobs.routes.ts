// The runner protocol's job calls (notes gitlab-ci.md §1.3–§1.7 and §8): asking for a job (with
// long polling), updating its state, appending its log. A runner authenticates with its token (in
// the body, or RUNNER-TOKEN); a job call with the job's token (JOB-TOKEN, or `token` in the body).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, paramError } from '../../core/errors.ts';
import { stopCounting } from '../../core/load-shedding.ts';
import { NoContent } from '../../core/schema.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { findRunner } from '../runners/runners.finder.ts';
import { findRunnerByToken, heartbeat } from '../runners/runners.service.ts';
import { PENDING_BUILDS_CHANNEL, onPendingBuilds, queueTick, wakeRunnerRequests } from '../pipelines/index.ts';
import { type RunnerFeatures, assignJob } from './job-assignment.ts';
import { jobPayload } from './job-payload.ts';
import { jobByToken, patchTrace, updateJobState } from './ci-jobs.service.ts';
import { JobIdParams, JobPayloadEntity, JobRequestBody, TraceQuery, UpdateJobBody } from './runner-jobs.schemas.ts';

const RUNNER = { auth: 'none' } as const;
/** Answers that are not entities: a status code as the body, or nothing. */
const RAW = { auth: 'none', json: false } as const;

/** How often the runner should send its log, in seconds (the platform's default while nobody watches). */
const TRACE_UPDATE_INTERVAL = '60';

const header = (req: FastifyRequest, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * Waits until jobs may have become pending, the time is up, or the runner hung up. (The request's
 * own 'close' comes once its body is read: the socket's tells of a runner gone.)
 */
function nextWake(req: FastifyRequest, ms: number): Promise<void> {
  const socket = req.socket;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      socket.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = onPendingBuilds(done);
    socket.once('close', done);
  });
}

/** The features a runner's `info` advertises (pre-assignment checks compare a job's needs with them). */
function advertisedFeatures(info: Record<string, unknown> | undefined): RunnerFeatures {
  const features = info?.features;
  return typeof features === 'object' && features !== null ? { ...features } : undefined;
}

/** A body of the status code, as JSON, which every runner accepts. */
function status(reply: FastifyReply, code: number) {
  return reply.code(code).type('application/json').send(JSON.stringify(String(code)));
}

export const runnerJobRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { config } = api.deps;
  // Runners send logs as text/plain (or octet-stream): the raw bytes, up to the body limit.
  api.addContentTypeParser(['text/plain', 'application/octet-stream'], { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // Jobs queued on other nodes wake the requests waiting here (PostgreSQL; SQLite has one node).
  const stopListening = await api.deps.database.listen(PENDING_BUILDS_CHANNEL, wakeRunnerRequests).catch(() => null);
  if (stopListening) api.addHook('onClose', async () => stopListening());

  api.post('/jobs/request', { schema: { body: JobRequestBody, response: { 201: JobPayloadEntity, 204: NoContent } }, config: RUNNER }, async (req, reply) => {
    const ctx = serviceContext(req);
    const token = req.body.token ?? header(req, 'runner-token');
    // The platform requires the token (`requires :token`); its RUNNER-TOKEN header stands in for it.
    if (token === undefined) throw paramError('token is missing');
    const runner = await findRunnerByToken(ctx.db, token);
    if (!runner) throw forbidden();
    await heartbeat(ctx, runner, req.body.info, req.ip);
    const longPoll = config.runnerLongPollSeconds > 0;
    if (longPoll) reply.header('gitlab-ci-builds-polling', 'yes');
    if (!runner.active) return reply.header('x-gitlab-last-update', queueTick()).code(204).send();

    const features = advertisedFeatures(req.body.info);
    let assignment = await assignJob(ctx, runner, features);
    // Held only when the runner says what it last saw, as the platform's Workhorse does (notes §8.6).
    if (!assignment && longPoll && req.body.last_update !== undefined) {
      stopCounting(req);
      const deadline = Date.now() + config.runnerLongPollSeconds * 1000;
      while (!assignment && Date.now() < deadline && !req.socket.destroyed) {
        await nextWake(req, deadline - Date.now());
        if (req.socket.destroyed) break;
        // A runner deleted or paused meanwhile takes nothing: its next request learns why.
        const current = await findRunner(ctx.db, runner.id);
        if (!current?.active) break;
        assignment = await assignJob(ctx, current, features);
      }
    }
    if (!assignment) return reply.header('x-gitlab-last-update', queueTick()).code(204).send();
    const parts = await payloadParts(req, assignment.build);
    reply.code(201);
    return jobPayload(ctx, { ...parts, ...assignment });
  });

  async function payloadParts(req: FastifyRequest, build: CiBuildRow) {
    const { db } = req.server.deps;
    const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', build.pipeline_id).executeTakeFirstOrThrow();
    const project = await db.selectFrom('projects').selectAll().where('id', '=', build.project_id).executeTakeFirstOrThrow();
    const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
    const user = build.user_id === null ? null : ((await db.selectFrom('users').selectAll().where('id', '=', build.user_id).executeTakeFirst()) ?? null);
    return { pipeline, project, namespace, user };
  }

  /**
   * The job of a job call, by its token: the `token` parameter, else JOB-TOKEN (the platform's
   * order); 403 (with the job's status when it no longer runs) otherwise.
   */
  async function requireJob(req: FastifyRequest, id: number, paramToken: string | undefined): Promise<{ job: CiBuildRow; token: string }> {
    const token = paramToken ?? header(req, 'job-token');
    const job = await jobByToken(serviceContext(req), id, token);
    if (!job || !token) throw forbidden();
    return { job, token };
  }

  api.put('/jobs/:id', { schema: { params: JobIdParams, body: UpdateJobBody }, config: RAW }, async (req, reply) => {
    // The platform requires the token here; a JOB-TOKEN header stands in for it (notes §8.3).
    if (req.body.token === undefined && header(req, 'job-token') === undefined) throw paramError('token is missing');
    const { job } = await requireJob(req, req.params.id, req.body.token);
    const state = req.body.state;
    if (state !== undefined && state !== 'running' && state !== 'success' && state !== 'failed') {
      if (job.status !== 'running') return reply.header('job-status', job.status).code(403).send({ message: '403 Forbidden - Job is not running' });
      throw apiError(400, '400 Bad request - Missing or invalid state');
    }
    const outcome = await updateJobState(serviceContext(req), job, { state: state ?? 'running', failureReason: req.body.failure_reason, exitCode: req.body.exit_code });
    if ('notRunning' in outcome) return reply.header('job-status', outcome.notRunning).code(403).send({ message: '403 Forbidden - Job is not running' });
    if ('invalid' in outcome) throw apiError(400, '400 Bad request - Missing or invalid state');
    reply.header('x-gitlab-trace-update-interval', TRACE_UPDATE_INTERVAL);
    return status(reply, 200);
  });

  api.patch('/jobs/:id/trace', { schema: { params: JobIdParams, querystring: TraceQuery }, config: RAW }, async (req, reply) => {
    const { job, token } = await requireJob(req, req.params.id, req.query.token);
    const range = header(req, 'content-range');
    if (!range) throw paramError('400 Missing header Content-Range');
    const match = /^(\d+)-(\d+)$/.exec(range.trim());
    if (!match) throw apiError(400, '400 Bad request - Invalid Content-Range');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : '');
    // Only the start is checked: runners send the end inclusive or exclusive (notes §8.4).
    const outcome = await patchTrace(serviceContext(req), job, token, Number(match[1]), body);
    if ('notRunning' in outcome) return reply.header('job-status', outcome.notRunning).code(403).send({ message: '403 Forbidden - Job is not running' });
    if ('exceeded' in outcome) throw forbidden();
    if ('mismatch' in outcome) return reply.header('range', `0-${outcome.mismatch}`).code(416).send({ message: '416 Range Not Satisfiable' });
    reply.header('job-status', outcome.status).header('range', `0-${outcome.length}`).header('x-gitlab-trace-update-interval', TRACE_UPDATE_INTERVAL);
    return status(reply, 202);
  });
};
