// Resource label, state and milestone events of issues and merge requests (14.x
// lib/api/resource_label_events.rb, resource_state_events.rb, resource_milestone_events.rb): every
// call needs a signed-in caller and an issue or a merge request the caller may read, as their
// notes do; the issues and merge requests modules register these routes with their own loader.
// An event the issuable does not have is the platform's record-not-found 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { apiError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { EventIssuable } from '../../domain/resource-events.ts';
import { eventRelations, labelEvents, milestoneEvents, stateEvents } from './resource-events.finder.ts';
import { type ResourceEventView, presentLabelEvent, presentMilestoneEvent, presentStateEvent } from './resource-events.presenter.ts';
import {
  EventParams,
  EventableParams,
  LabelEventParams,
  ListResourceEventsQuery,
  ResourceLabelEventEntity,
  ResourceMilestoneEventEntity,
  ResourceStateEventEntity,
} from './resource-events.schemas.ts';

const REQUIRED = { auth: 'required' } as const;

/** The issue or merge request of `:eventable_id` (an iid), if the caller may read it; throws the platform's 404 otherwise. */
export type EventableLoader = (req: FastifyRequest, iid: number) => Promise<EventIssuable>;

const notFound = () => apiError(404, '404 Not found');

/** The routes of the three kinds of events under /projects/:id/<segment>/:eventable_id. */
export function resourceEventRoutes(segment: 'issues' | 'merge_requests', load: EventableLoader): FastifyPluginAsyncTypebox {
  return async (api) => {
    const { db, config } = api.deps;
    const readable = { config: REQUIRED, preHandler: loadProject('read_project') };
    const base = `/projects/:id/${segment}/:eventable_id`;
    const view = (req: FastifyRequest): ResourceEventView => ({ baseUrl: config.externalUrl, project: loadedProject(req).row, today: api.deps.now().toISOString().slice(0, 10) });

    api.get(`${base}/resource_label_events`, { schema: { params: EventableParams, querystring: ListResourceEventsQuery, response: { 200: Type.Array(ResourceLabelEventEntity) } }, ...readable }, async (req, reply) => {
      const rows = await paginate(req, reply, labelEvents(db, await load(req, req.params.eventable_id)));
      const relations = await eventRelations(db, rows);
      return rows.map((row) => presentLabelEvent(row, relations, view(req)));
    });

    api.get(`${base}/resource_label_events/:event_id`, { schema: { params: LabelEventParams, response: { 200: ResourceLabelEventEntity } }, ...readable }, async (req) => {
      const issuable = await load(req, req.params.eventable_id);
      const id = /^\d{1,15}$/.test(req.params.event_id) ? Number(req.params.event_id) : null;
      const row = id === null ? undefined : await labelEvents(db, issuable).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound();
      return presentLabelEvent(row, await eventRelations(db, [row]), view(req));
    });

    api.get(`${base}/resource_state_events`, { schema: { params: EventableParams, querystring: ListResourceEventsQuery, response: { 200: Type.Array(ResourceStateEventEntity) } }, ...readable }, async (req, reply) => {
      const rows = await paginate(req, reply, stateEvents(db, await load(req, req.params.eventable_id)));
      const relations = await eventRelations(db, rows);
      return rows.map((row) => presentStateEvent(row, relations, view(req)));
    });

    api.get(`${base}/resource_state_events/:event_id`, { schema: { params: EventParams, response: { 200: ResourceStateEventEntity } }, ...readable }, async (req) => {
      const row = await stateEvents(db, await load(req, req.params.eventable_id)).where('id', '=', req.params.event_id).executeTakeFirst();
      if (!row) throw notFound();
      return presentStateEvent(row, await eventRelations(db, [row]), view(req));
    });

    api.get(`${base}/resource_milestone_events`, { schema: { params: EventableParams, querystring: ListResourceEventsQuery, response: { 200: Type.Array(ResourceMilestoneEventEntity) } }, ...readable }, async (req, reply) => {
      const rows = await paginate(req, reply, milestoneEvents(db, await load(req, req.params.eventable_id)));
      const relations = await eventRelations(db, rows);
      return rows.map((row) => presentMilestoneEvent(row, relations, view(req)));
    });

    api.get(`${base}/resource_milestone_events/:event_id`, { schema: { params: EventParams, response: { 200: ResourceMilestoneEventEntity } }, ...readable }, async (req) => {
      const row = await milestoneEvents(db, await load(req, req.params.eventable_id)).where('id', '=', req.params.event_id).executeTakeFirst();
      if (!row) throw notFound();
      return presentMilestoneEvent(row, await eventRelations(db, [row]), view(req));
    });
  };
}
