// The collector that client keys' DSNs name, as the platform's integrated error tracking serves it
// (`/api/v4/error_tracking/collector/api/:id/store` and `…/envelope`, the paths SDKs derive from the
// DSN). The client key is the only credential: a project that does not exist is 404 Project Not
// Found; integrated tracking off, or no active key of the project named, 404; a request that cannot
// be read (no key given at all, a broken body or envelope), 400 "Failed to parse sentry request";
// otherwise 200 with an empty body, since the key is public and the collector tells nothing back.
// Envelope items other than events are accepted and ignored: the platform refuses all but events
// and transactions with 400, which today's SDKs report as failures for their session and client
// report items.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { systemContext } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { fieldsOf } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { UnreadableRequest, decodeBody, publicKeyOf, readEnvelope, readEvent, readJsonObject } from './collector-payload.ts';
import { findCollectorProject, findSettings, hasActiveClientKey } from './error-tracking.finder.ts';
import { collectEvent } from './error-tracking.service.ts';

const UNREADABLE = 'Failed to parse sentry request';
const UNSUPPORTED = 'Unsupported sentry payload';

export const errorTrackingCollectorRoutes: FastifyPluginAsync = async (api) => {
  const deps = api.deps;
  const limit = deps.config.bodyLimit;
  // SDKs send envelopes as text/plain, application/x-sentry-envelope or no type at all, events as
  // JSON, either of them compressed: the collector reads every body as bytes itself.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) => done(null, body));

  /** The project, when tracking is on for it and the request names one of its active keys. */
  async function admit(req: FastifyRequest): Promise<ProjectRow> {
    const { id } = req.params as { id: string };
    const project = await findCollectorProject(deps.db, id);
    if (!project) throw notFound('Project');
    const settings = await findSettings(deps.db, project.id);
    if (!settings?.enabled || !settings.integrated) throw notFound();
    let key: string | null;
    try {
      key = publicKeyOf(fieldsOf(req.query), req.headers['x-sentry-auth']);
    } catch {
      throw badRequest(UNREADABLE);
    }
    if (!key || !(await hasActiveClientKey(deps.db, project.id, key))) throw notFound();
    return project;
  }

  async function collect(project: ProjectRow, event: Record<string, unknown>): Promise<void> {
    const ctx = systemContext(deps);
    const collected = readEvent(event, ctx.now());
    if (!collected) throw badRequest(UNSUPPORTED);
    await collectEvent(ctx, project, collected, JSON.stringify(event));
  }

  // The answer has no body: the key is public, so the collector tells nothing back.
  const route = { schema: { params: Type.Object({ id: Type.String({ minLength: 1 }) }), response: { 200: NoContent } }, config: { auth: 'none' } as const };

  api.post('/error_tracking/collector/api/:id/store', route, async (req, reply) => {
    const project = await admit(req);
    let event: Record<string, unknown>;
    try {
      event = readJsonObject(decodeBody(req.body, req.headers['content-encoding'], limit));
    } catch (error) {
      if (error instanceof UnreadableRequest) throw badRequest(UNREADABLE);
      throw error;
    }
    await collect(project, event);
    return reply.code(200).send();
  });

  api.post('/error_tracking/collector/api/:id/envelope', route, async (req, reply) => {
    const project = await admit(req);
    let events: Record<string, unknown>[];
    try {
      const items = readEnvelope(decodeBody(req.body, req.headers['content-encoding'], limit));
      events = items.filter((item) => item.type === 'event').map((item) => readJsonObject(item.payload));
    } catch (error) {
      if (error instanceof UnreadableRequest) throw badRequest(UNREADABLE);
      throw error;
    }
    for (const event of events) await collect(project, event);
    return reply.code(200).send();
  });
};
