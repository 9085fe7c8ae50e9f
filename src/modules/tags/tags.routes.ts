// Repository tags (spec part 1 §4.4): list (ordered, searched), show, create, delete. Reads need
// download_code (anonymous callers read public repositories); writes need push_code and pass the
// protected-tag rules.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { requireUser } from '../../core/access/guards.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import type { DetailedRef } from '../../git/ref-details.ts';
import { paginateList, searchRefs } from '../branches/ref-list.ts';
import { projectWebUrl } from '../projects/projects.presenter.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.rules.ts';
import { loadRepository, repositoryDir, requireRepositoryDir } from '../repository/repository.access.ts';
import { listTags, readTags } from './tags.finder.ts';
import { type TagView, presentTag } from './tags.presenter.ts';
import { CreateTagBody, ListTagsQuery, ProjectParams, type Tag, TagEntity, TagParams } from './tags.schemas.ts';
import { createTag, deleteTag } from './tags.service.ts';

export const tagRoutes: FastifyPluginAsync = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;
  const read = loadRepository('download_code');
  const write = loadRepository('push_code');

  async function view(req: FastifyRequest): Promise<TagView> {
    const row = loadedProject(req).row;
    return { protections: await loadRefProtections(db, row.id), projectWebUrl: projectWebUrl(config.externalUrl, row) };
  }

  async function requireTag(dir: string | null, name: string): Promise<DetailedRef> {
    const tag = (await readTags(dir)).byName.get(name);
    if (!tag) throw notFound('Tag');
    return tag;
  }

  async function showTag(req: FastifyRequest, dir: string | null, name: string): Promise<Tag> {
    const [tag, shown] = await Promise.all([requireTag(dir, name), view(req)]);
    return presentTag(tag, shown);
  }

  api.get(
    '/projects/:id/repository/tags',
    { schema: { params: ProjectParams, querystring: ListTagsQuery, response: { 200: Type.Array(TagEntity) } }, preHandler: read },
    async (req, reply) => {
      const query = req.query as ListTagsQuery;
      const [tags, shown] = await Promise.all([listTags(repositoryDir(config, loadedProject(req).row), query.order_by ?? 'updated', query.sort ?? 'desc'), view(req)]);
      return paginateList(req, reply, searchRefs(tags, query.search)).map((t) => presentTag(t, shown));
    },
  );

  api.get('/projects/:id/repository/tags/:tag_name', { schema: { params: TagParams, response: { 200: TagEntity } }, preHandler: read }, async (req) => {
    return showTag(req, repositoryDir(config, loadedProject(req).row), (req.params as TagParams).tag_name);
  });

  api.post('/projects/:id/repository/tags', { schema: { params: ProjectParams, body: CreateTagBody, response: { 201: TagEntity } }, preHandler: write }, async (req, reply) => {
    const body = req.body as CreateTagBody;
    const dir = requireRepositoryDir(config, loadedProject(req).row);
    await createTag(deps, loadedProject(req), requireUser(req), dir, body);
    reply.code(201);
    return showTag(req, dir, body.tag_name);
  });

  // The tag is found before the ability is checked, as the platform does (an absent tag is a 404 to any reader).
  api.delete('/projects/:id/repository/tags/:tag_name', { schema: { params: TagParams }, preHandler: read }, async (req, reply) => {
    const dir = requireRepositoryDir(config, loadedProject(req).row);
    const tag = await requireTag(dir, (req.params as TagParams).tag_name);
    if (!loadedProject(req).can.has('push_code')) throw forbidden();
    if (tag.details) checkUnmodifiedSince(req.headers['if-unmodified-since'], tag.details.author.timestamp * 1000);
    await deleteTag(deps, loadedProject(req), requireUser(req), dir, tag);
    return reply.code(204).send();
  });
};
