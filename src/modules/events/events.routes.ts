// Activity events (spec Part 2 §4.6): the caller's own, a user's, and a project's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { requireUser } from '../../core/access/guards.ts';
import { notFound } from '../../core/errors.ts';
import { pageOf, paginate, setOffsetHeaders } from '../../core/pagination.ts';
import type { EventRow } from '../../db/schema.ts';
import { noteAuthors, notesByIds } from '../notes/notes.finder.ts';
import { canReadProfile } from '../users/users.presenter.ts';
import { type EventSource, findEvents, findUserByIdOrUsername, loadAuthors } from './events.finder.ts';
import { presentEvent } from './events.presenter.ts';
import { EventEntity, ListEventsQuery, OwnEventsQuery, ProjectEventsParams, UserEventsParams } from './events.schemas.ts';

const response = { 200: Type.Array(EventEntity) };

/** The notes a page of events targets. */
const noteIds = (rows: EventRow[]) => rows.flatMap((row) => (row.target_type === 'Note' && row.target_id !== null ? [row.target_id] : []));

export const eventRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  async function list(req: FastifyRequest, reply: FastifyReply, source: EventSource, filters: ListEventsQuery) {
    const rows: EventRow[] = await paginate(req, reply, findEvents(db, source, req.actor, filters));
    const [authors, notes] = await Promise.all([loadAuthors(db, rows), notesByIds(db, noteIds(rows))]);
    const noteAuthorRows = await noteAuthors(db, [...notes.values()].map((n) => n.note));
    return rows.map((row) => presentEvent(row, { baseUrl: config.externalUrl, authors, notes, noteAuthors: noteAuthorRows }));
  }

  api.get(
    '/events',
    { schema: { querystring: OwnEventsQuery, response }, config: { auth: 'required', scopes: ['read_user'] } },
    async (req, reply) => {
      const actor = requireUser(req);
      const { scope, ...filters } = req.query;
      const source = scope === 'all' ? { authorizedUserId: actor.user.id } : { authorId: actor.user.id };
      return list(req, reply, source, filters);
    },
  );

  api.get(
    '/users/:id/events',
    { schema: { params: UserEventsParams, querystring: ListEventsQuery, response }, config: { auth: 'optional', scopes: ['read_user'] } },
    async (req, reply) => {
      const user = await findUserByIdOrUsername(db, req.params.id);
      if (!user) throw notFound('User');
      const actor = req.actor;
      if (!canReadProfile(user, actor ? { id: actor.user.id, isAdmin: actor.isAdmin } : null)) {
        setOffsetHeaders(req, reply, pageOf(req.query), 0, 0);
        return [];
      }
      return list(req, reply, { authorId: user.id }, req.query);
    },
  );

  api.get(
    '/projects/:id/events',
    { schema: { params: ProjectEventsParams, querystring: ListEventsQuery, response }, config: { auth: 'optional' }, preHandler: loadProject('read_project') },
    async (req, reply) => list(req, reply, { projectId: loadedProject(req).row.id }, req.query),
  );
};
