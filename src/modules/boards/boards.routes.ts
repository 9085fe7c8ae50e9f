// Issue boards of projects and groups and their label lists (14.x lib/api/boards.rb and
// group_boards.rb, with the licensed edition's board writes): signed-in callers only; boards are
// read by whoever reads the parent's issues (a project whose issues they may not read is 403) and
// written, lists included, by Reporters and up. An unknown board or list is "404 Not found"; a
// list's label must be the parent's or an ancestor group's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ACCESS } from '../../core/access/levels.ts';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { BoardRow } from '../../db/schema.ts';
import { projectLabelScope } from '../../domain/labels.ts';
import { issueAccess } from '../issues/issues.routes.ts';
import { presentProject } from '../projects/projects.presenter.ts';
import { loadProjectView } from '../projects/projects.finder.ts';
import { type BoardParent, boardsOf, findBoard, findList, listsOf, loadBoardRelations } from './boards.finder.ts';
import { type BoardView, presentBoard, presentList } from './boards.presenter.ts';
import { BoardEntity, BoardListEntity, BoardParams, CreateBoardBody, CreateListBody, ListParams, MoveListBody, PageQuery, ParentParams, UpdateBoardBody } from './boards.schemas.ts';
import { type BoardScope, LABEL_NOT_FOUND, boardNotFound, createBoard, createList, deleteBoard, deleteList, labelAvailable, moveList, updateBoard } from './boards.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

/** Who the caller is to a parent's boards. */
interface BoardAccess {
  scope: BoardScope;
  read: boolean;
  admin: boolean;
}

export const boardRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;

  const PARENTS = [
    {
      prefix: '/projects/:id',
      preHandler: loadProject('read_project'),
      async access(req: FastifyRequest): Promise<BoardAccess> {
        const project = loadedProject(req);
        const issues = await issueAccess(req, project);
        const { groupIds } = projectLabelScope(project.row, project.namespace);
        return { scope: { parent: { projectId: project.row.id }, groupIds }, read: issues.read, admin: issues.admin };
      },
      async view(req: FastifyRequest): Promise<BoardView> {
        const { row } = loadedProject(req);
        const projectView = await loadProjectView(deps, req.actor, [row], { form: 'simple' });
        return { baseUrl: config.externalUrl, today: today(), project: presentProject(row, projectView, 'simple'), group: null };
      },
    },
    {
      prefix: '/groups/:id',
      preHandler: loadGroup('read_group'),
      async access(req: FastifyRequest): Promise<BoardAccess> {
        const group = loadedGroup(req);
        const groupIds = group.row.traversal_path.split('/').filter(Boolean).map(Number);
        const admin = req.actor?.isAdmin === true || group.access >= ACCESS.REPORTER;
        return { scope: { parent: { groupId: group.row.id }, groupIds }, read: true, admin };
      },
      async view(req: FastifyRequest): Promise<BoardView> {
        const { row } = loadedGroup(req);
        return { baseUrl: config.externalUrl, today: today(), project: null, group: { id: row.id, name: row.name, full_path: row.full_path } };
      },
    },
  ] as const;

  const today = () => deps.now().toISOString().slice(0, 10);

  for (const parent of PARENTS) {
    const route = { config: SIGNED_IN, preHandler: parent.preHandler };

    /** The caller's access, refusing with 403 those who may not read (or, for writes, change) the boards. */
    async function allowed(req: FastifyRequest, write: boolean): Promise<BoardAccess> {
      const access = await parent.access(req);
      if (!access.read || (write && !access.admin)) throw forbidden();
      return access;
    }

    async function requireBoard(parentOf: BoardParent, boardId: number): Promise<BoardRow> {
      const board = await findBoard(db, parentOf, boardId);
      if (!board) throw boardNotFound();
      return board;
    }

    async function present(req: FastifyRequest, boards: BoardRow[]) {
      const [relations, view] = await Promise.all([loadBoardRelations(db, boards), parent.view(req)]);
      return boards.map((board) => presentBoard(board, relations, view));
    }

    api.get(`${parent.prefix}/boards`, { ...route, schema: { params: ParentParams, querystring: PageQuery, response: { 200: Type.Array(BoardEntity) } } }, async (req, reply) => {
      const { scope } = await allowed(req, false);
      return present(req, await paginate(req, reply, boardsOf(db, scope.parent)));
    });

    api.get(`${parent.prefix}/boards/:board_id`, { ...route, schema: { params: BoardParams, response: { 200: BoardEntity } } }, async (req) => {
      const { scope } = await allowed(req, false);
      return (await present(req, [await requireBoard(scope.parent, req.params.board_id)]))[0];
    });

    api.post(`${parent.prefix}/boards`, { ...route, schema: { params: ParentParams, body: CreateBoardBody, response: { 201: BoardEntity } } }, async (req, reply) => {
      const { scope } = await allowed(req, true);
      const board = await createBoard(serviceContext(req), scope.parent, req.body.name);
      reply.code(201);
      return (await present(req, [board]))[0];
    });

    api.put(`${parent.prefix}/boards/:board_id`, { ...route, schema: { params: BoardParams, body: UpdateBoardBody, response: { 200: BoardEntity } } }, async (req) => {
      const { scope } = await allowed(req, true);
      const board = await requireBoard(scope.parent, req.params.board_id);
      return (await present(req, [await updateBoard(serviceContext(req), scope, board, req.body)]))[0];
    });

    api.delete(`${parent.prefix}/boards/:board_id`, { ...route, schema: { params: BoardParams, response: { 204: NoContent } } }, async (req, reply) => {
      const { scope } = await allowed(req, true);
      await deleteBoard(serviceContext(req), scope.parent, await requireBoard(scope.parent, req.params.board_id));
      return reply.code(204).send();
    });

    api.get(
      `${parent.prefix}/boards/:board_id/lists`,
      { ...route, schema: { params: BoardParams, querystring: PageQuery, response: { 200: Type.Array(BoardListEntity) } } },
      async (req, reply) => {
        const { scope } = await allowed(req, false);
        const board = await requireBoard(scope.parent, req.params.board_id);
        const lists = await paginate(req, reply, listsOf(db, board.id));
        return lists.map((list) => presentList(list, config.externalUrl));
      },
    );

    api.get(`${parent.prefix}/boards/:board_id/lists/:list_id`, { ...route, schema: { params: ListParams, response: { 200: BoardListEntity } } }, async (req) => {
      const { scope } = await allowed(req, false);
      const board = await requireBoard(scope.parent, req.params.board_id);
      const list = await findList(db, board.id, req.params.list_id);
      if (!list) throw boardNotFound();
      return presentList(list, config.externalUrl);
    });

    api.post(`${parent.prefix}/boards/:board_id/lists`, { ...route, schema: { params: BoardParams, body: CreateListBody, response: { 201: BoardListEntity } } }, async (req, reply) => {
      const { scope } = await allowed(req, false);
      const board = await requireBoard(scope.parent, req.params.board_id);
      // The label is checked before the ability, as the platform does.
      if (!(await labelAvailable(db, scope, req.body.label_id))) throw LABEL_NOT_FOUND();
      await allowed(req, true);
      const created = await createList(serviceContext(req), board, req.body.label_id);
      reply.code(201);
      return presentList((await findList(db, board.id, created.id))!, config.externalUrl);
    });

    api.put(`${parent.prefix}/boards/:board_id/lists/:list_id`, { ...route, schema: { params: ListParams, body: MoveListBody, response: { 200: BoardListEntity } } }, async (req) => {
      const { scope } = await allowed(req, false);
      const board = await requireBoard(scope.parent, req.params.board_id);
      const list = await findList(db, board.id, req.params.list_id);
      if (!list) throw boardNotFound();
      await allowed(req, true);
      await moveList(serviceContext(req), list, req.body.position);
      return presentList((await findList(db, board.id, list.id))!, config.externalUrl);
    });

    api.delete(`${parent.prefix}/boards/:board_id/lists/:list_id`, { ...route, schema: { params: ListParams, response: { 204: NoContent } } }, async (req, reply) => {
      const { scope } = await allowed(req, true);
      const board = await requireBoard(scope.parent, req.params.board_id);
      const list = await findList(db, board.id, req.params.list_id);
      if (!list) throw boardNotFound();
      await deleteList(serviceContext(req), list);
      return reply.code(204).send();
    });
  }
};
