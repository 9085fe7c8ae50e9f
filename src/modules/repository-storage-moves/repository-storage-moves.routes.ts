// Repository storage moves (spec Part 2 §4.12; the platform's project, snippet and group
// repository storage moves APIs, 14.x): administrators only, every route (401 anonymous, 403
// others, before anything is looked up). Storage names must be configured ones: a bulk move's
// parameters are checked as parameters (400 "… does not have a valid value"), one container's
// destination as the move's field (400 "is not included in the list").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, notFound, paramError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { fieldsOf } from '../../core/params.ts';
import { AcceptedEntity } from '../../core/schema.ts';
import { scheduleBulkProjectStorageMoves, scheduleProjectStorageMove } from '../projects/project-storage-moves.service.ts';
import { findGroupMove, findProjectMove, findSnippetMove, groupMoves, projectMoves, snippetMoves } from './repository-storage-moves.finder.ts';
import { presentGroupMove, presentProjectMove, presentSnippetMove } from './repository-storage-moves.presenter.ts';
import { findSnippet } from '../snippets/snippets.finder.ts';
import { scheduleBulkSnippetStorageMoves, scheduleSnippetStorageMove } from '../snippets/snippet-storage-moves.service.ts';
import {
  BulkMoveBody,
  ContainerMoveParams,
  ContainerParams,
  CreateMoveBody,
  GroupStorageMoveEntity,
  ListMovesQuery,
  MoveParams,
  ProjectStorageMoveEntity,
  SnippetStorageMoveEntity,
} from './repository-storage-moves.schemas.ts';
import { scheduleGroupStorageMove, scheduleGroupStorageMovesOn, storageConfigured } from './repository-storage-moves.service.ts';

const ADMIN = { auth: 'required' } as const;
/** ActiveRecord's RecordNotFound, as the platform's API renders it. */
const moveNotFound = () => apiError(404, '404 Not found');

export const repositoryStorageMoveRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  /** The bulk parameters, each a configured storage. */
  function checkBulk(body: BulkMoveBody): { source: string; destination: string | null } {
    const ctx = { config };
    if (!storageConfigured(ctx, body.source_storage_name)) throw paramError('source_storage_name does not have a valid value');
    const destination = body.destination_storage_name ?? null;
    if (destination !== null && !storageConfigured(ctx, destination)) throw paramError('destination_storage_name does not have a valid value');
    return { source: body.source_storage_name, destination };
  }

  // ---- Projects ----

  api.get(
    '/project_repository_storage_moves',
    { schema: { querystring: ListMovesQuery, response: { 200: Type.Array(ProjectStorageMoveEntity) } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => (await paginate(req, reply, projectMoves(db))).map(presentProjectMove),
  );

  api.get(
    '/project_repository_storage_moves/:repository_storage_move_id',
    { schema: { params: MoveParams, response: { 200: ProjectStorageMoveEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req) => {
      const move = await findProjectMove(db, req.params.repository_storage_move_id);
      if (!move) throw moveNotFound();
      return presentProjectMove(move);
    },
  );

  api.post(
    '/project_repository_storage_moves',
    { schema: { body: BulkMoveBody, response: { 202: AcceptedEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => {
      const { source, destination } = checkBulk(req.body);
      await scheduleBulkProjectStorageMoves(serviceContext(req), source, destination);
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );

  const adminProject = [adminOnly, loadProject('read_project')];

  api.get(
    '/projects/:id/repository_storage_moves',
    { schema: { params: ContainerParams, querystring: ListMovesQuery, response: { 200: Type.Array(ProjectStorageMoveEntity) } }, config: ADMIN, preHandler: adminProject },
    async (req, reply) => (await paginate(req, reply, projectMoves(db, loadedProject(req).row.id))).map(presentProjectMove),
  );

  api.get(
    '/projects/:id/repository_storage_moves/:repository_storage_move_id',
    { schema: { params: ContainerMoveParams, response: { 200: ProjectStorageMoveEntity } }, config: ADMIN, preHandler: adminProject },
    async (req) => {
      const move = await findProjectMove(db, req.params.repository_storage_move_id, loadedProject(req).row.id);
      if (!move) throw moveNotFound();
      return presentProjectMove(move);
    },
  );

  api.post(
    '/projects/:id/repository_storage_moves',
    { schema: { params: ContainerParams, body: CreateMoveBody, response: { 201: ProjectStorageMoveEntity } }, config: ADMIN, preHandler: adminProject },
    async (req, reply) => {
      const move = await scheduleProjectStorageMove(serviceContext(req), loadedProject(req).row.id, req.body.destination_storage_name ?? null);
      return reply.code(201).send(presentProjectMove((await findProjectMove(db, move.id))!));
    },
  );

  // ---- Groups ----

  api.get(
    '/group_repository_storage_moves',
    { schema: { querystring: ListMovesQuery, response: { 200: Type.Array(GroupStorageMoveEntity) } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => (await paginate(req, reply, groupMoves(db))).map((move) => presentGroupMove(move, config.externalUrl)),
  );

  api.get(
    '/group_repository_storage_moves/:repository_storage_move_id',
    { schema: { params: MoveParams, response: { 200: GroupStorageMoveEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req) => {
      const move = await findGroupMove(db, req.params.repository_storage_move_id);
      if (!move) throw moveNotFound();
      return presentGroupMove(move, config.externalUrl);
    },
  );

  // Every group whose wiki is on the source storage.
  api.post(
    '/group_repository_storage_moves',
    { schema: { body: BulkMoveBody, response: { 202: AcceptedEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => {
      checkBulk(req.body);
      await scheduleGroupStorageMovesOn(serviceContext(req), req.body.source_storage_name, req.body.destination_storage_name ?? null);
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );

  const adminGroup = [adminOnly, loadGroup('read_group')];

  api.get(
    '/groups/:id/repository_storage_moves',
    { schema: { params: ContainerParams, querystring: ListMovesQuery, response: { 200: Type.Array(GroupStorageMoveEntity) } }, config: ADMIN, preHandler: adminGroup },
    async (req, reply) => (await paginate(req, reply, groupMoves(db, loadedGroup(req).row.id))).map((move) => presentGroupMove(move, config.externalUrl)),
  );

  api.get(
    '/groups/:id/repository_storage_moves/:repository_storage_move_id',
    { schema: { params: ContainerMoveParams, response: { 200: GroupStorageMoveEntity } }, config: ADMIN, preHandler: adminGroup },
    async (req) => {
      const move = await findGroupMove(db, req.params.repository_storage_move_id, loadedGroup(req).row.id);
      if (!move) throw moveNotFound();
      return presentGroupMove(move, config.externalUrl);
    },
  );

  api.post(
    '/groups/:id/repository_storage_moves',
    { schema: { params: ContainerParams, body: CreateMoveBody, response: { 201: GroupStorageMoveEntity } }, config: ADMIN, preHandler: adminGroup },
    async (req, reply) => {
      const id = await scheduleGroupStorageMove(serviceContext(req), loadedGroup(req).row.id, req.body.destination_storage_name ?? null);
      return reply.code(201).send(presentGroupMove((await findGroupMove(db, id))!, config.externalUrl));
    },
  );

  // ---- Snippets ----

  const snippetView = { baseUrl: config.externalUrl, sshUrlPrefix: config.sshUrlPrefix };

  api.get(
    '/snippet_repository_storage_moves',
    { schema: { querystring: ListMovesQuery, response: { 200: Type.Array(SnippetStorageMoveEntity) } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => (await paginate(req, reply, snippetMoves(db))).map((move) => presentSnippetMove(move, snippetView)),
  );

  api.get(
    '/snippet_repository_storage_moves/:repository_storage_move_id',
    { schema: { params: MoveParams, response: { 200: SnippetStorageMoveEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req) => {
      const move = await findSnippetMove(db, req.params.repository_storage_move_id);
      if (!move) throw moveNotFound();
      return presentSnippetMove(move, snippetView);
    },
  );

  api.post(
    '/snippet_repository_storage_moves',
    { schema: { body: BulkMoveBody, response: { 202: AcceptedEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => {
      const { source, destination } = checkBulk(req.body);
      await scheduleBulkSnippetStorageMoves(serviceContext(req), source, destination);
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );

  /** The snippet of `:id` (any, for an administrator); "404 Snippet Not Found" otherwise. */
  async function snippetOf(req: FastifyRequest): Promise<number> {
    const raw = String(fieldsOf(req.params).id);
    const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
    const snippet = Number.isSafeInteger(id) ? await findSnippet(db, id) : undefined;
    if (!snippet) throw notFound('Snippet');
    return snippet.id;
  }

  api.get(
    '/snippets/:id/repository_storage_moves',
    { schema: { params: ContainerParams, querystring: ListMovesQuery, response: { 200: Type.Array(SnippetStorageMoveEntity) } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => (await paginate(req, reply, snippetMoves(db, await snippetOf(req)))).map((move) => presentSnippetMove(move, snippetView)),
  );

  api.get(
    '/snippets/:id/repository_storage_moves/:repository_storage_move_id',
    { schema: { params: ContainerMoveParams, response: { 200: SnippetStorageMoveEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req) => {
      const move = await findSnippetMove(db, req.params.repository_storage_move_id, await snippetOf(req));
      if (!move) throw moveNotFound();
      return presentSnippetMove(move, snippetView);
    },
  );

  api.post(
    '/snippets/:id/repository_storage_moves',
    { schema: { params: ContainerParams, body: CreateMoveBody, response: { 201: SnippetStorageMoveEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => {
      const id = await scheduleSnippetStorageMove(serviceContext(req), await snippetOf(req), req.body.destination_storage_name ?? null);
      return reply.code(201).send(presentSnippetMove((await findSnippetMove(db, id))!, snippetView));
    },
  );
};
