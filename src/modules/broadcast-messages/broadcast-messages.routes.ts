// Broadcast messages: anyone reads them (newest first); administrators create, change and delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { presentBroadcastMessage } from './broadcast-messages.presenter.ts';
import { BroadcastMessageEntity, CreateBroadcastMessageBody, ListBroadcastMessagesQuery, MessageParams, UpdateBroadcastMessageBody } from './broadcast-messages.schemas.ts';
import { createBroadcastMessage, deleteBroadcastMessage, findBroadcastMessage, updateBroadcastMessage } from './broadcast-messages.service.ts';

const ANYONE = { auth: 'optional' } as const;
const SIGNED_IN = { auth: 'required' } as const;

export const broadcastMessageRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, now } = api.deps;

  api.get(
    '/broadcast_messages',
    { schema: { querystring: ListBroadcastMessagesQuery, response: { 200: Type.Array(BroadcastMessageEntity) } }, config: ANYONE },
    async (req, reply) => {
      const rows = await paginate(req, reply, db.selectFrom('broadcast_messages').selectAll().orderBy('id', 'desc'));
      const at = now();
      return rows.map((row) => presentBroadcastMessage(row, at));
    },
  );

  api.get('/broadcast_messages/:id', { schema: { params: MessageParams, response: { 200: BroadcastMessageEntity } }, config: ANYONE }, async (req) =>
    presentBroadcastMessage(await findBroadcastMessage({ db }, req.params.id), now()),
  );

  api.post(
    '/broadcast_messages',
    { schema: { body: CreateBroadcastMessageBody, response: { 201: BroadcastMessageEntity } }, config: SIGNED_IN, preHandler: adminOnly },
    async (req, reply) => {
      const row = await createBroadcastMessage(serviceContext(req), req.body);
      reply.code(201);
      return presentBroadcastMessage(row, now());
    },
  );

  api.put(
    '/broadcast_messages/:id',
    { schema: { params: MessageParams, body: UpdateBroadcastMessageBody, response: { 200: BroadcastMessageEntity } }, config: SIGNED_IN, preHandler: adminOnly },
    async (req) => presentBroadcastMessage(await updateBroadcastMessage(serviceContext(req), req.params.id, req.body), now()),
  );

  api.delete(
    '/broadcast_messages/:id',
    { schema: { params: MessageParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: adminOnly },
    async (req, reply) => {
      await deleteBroadcastMessage(serviceContext(req), req.params.id);
      return reply.code(204).send();
    },
  );
};
