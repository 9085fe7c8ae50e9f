// Repository tags (spec part 1 §4.4): list (ordered, searched), show, create, delete. Reads need
// download_code (anonymous callers read public repositories); writes need push_code and pass the
// protected-tag rules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { DetailedRef } from '../../git/ref-details.ts';
import { repositoryDir, requireRepositoryDir } from '../../domain/project-repository.ts';
import { paginateList, searchRefs } from '../../domain/ref-list.ts';
import { releasesOfTags } from '../../domain/releases.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { loadRepository } from '../repository/index.ts';
import { listTags, readTags } from './tags.finder.ts';
import { type TagView, presentTag } from './tags.presenter.ts';
import { CreateTagBody, ListTagsQuery, ProjectParams, type Tag, TagEntity, TagParams } from './tags.schemas.ts';
import { createTag, deleteTag } from './tags.service.ts';

/** Anonymous callers read public repositories; writes need a user, which the pre-handlers' abilities require. */
const OPTIONAL = { auth: 'optional' } as const;

export const tagRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;
  const read = loadRepository('download_code');
  const write = loadRepository('push_code');

  /** What presenting these tags needs, read once for all of them. */
  async function view(req: FastifyRequest, tags: readonly DetailedRef[]): Promise<TagView> {
    const row = loadedProject(req).row;
    const [protections, releases] = await Promise.all([
      loadRefProtections(db, row.id),
      releasesOfTags(db, row.id, tags.map((t) => t.name)),
    ]);
    return { protections, releases, projectWebUrl: projectWebUrl(config.externalUrl, row) };
  }

  async function requireTag(dir: string | null, name: string): Promise<DetailedRef> {
    const tag = (await readTags(dir)).byName.get(name);
    if (!tag) throw notFound('Tag');
    return tag;
  }

  async function showTag(req: FastifyRequest, dir: string | null, name: string): Promise<Tag> {
    const tag = await requireTag(dir, name);
    return presentTag(tag, await view(req, [tag]));
  }

  api.get(
    '/projects/:id/repository/tags',
    { schema: { params: ProjectParams, querystring: ListTagsQuery, response: { 200: Type.Array(TagEntity) } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const { query } = req;
      const tags = await listTags(repositoryDir(config, loadedProject(req).row), query.order_by ?? 'updated', query.sort ?? 'desc');
      const page = paginateList(req, reply, searchRefs(tags, query.search));
      const shown = await view(req, page);
      return page.map((t) => presentTag(t, shown));
    },
  );

  api.get('/projects/:id/repository/tags/:tag_name', { schema: { params: TagParams, response: { 200: TagEntity } }, config: OPTIONAL, preHandler: read }, async (req) => {
    return showTag(req, repositoryDir(config, loadedProject(req).row), req.params.tag_name);
  });

  api.post('/projects/:id/repository/tags', { schema: { params: ProjectParams, body: CreateTagBody, response: { 201: TagEntity } }, config: OPTIONAL, preHandler: write }, async (req, reply) => {
    const { body } = req;
    const project = loadedProject(req);
    const dir = requireRepositoryDir(config, project.row);
    await createTag(serviceContext(req), project, dir, body);
    reply.code(201);
    return showTag(req, dir, body.tag_name);
  });

  // The tag is found before the ability is checked, as the platform does (an absent tag is a 404 to any reader).
  api.delete('/projects/:id/repository/tags/:tag_name', { schema: { params: TagParams, response: { 204: NoContent } }, config: OPTIONAL, preHandler: read }, async (req, reply) => {
    const project = loadedProject(req);
    const dir = requireRepositoryDir(config, project.row);
    const tag = await requireTag(dir, req.params.tag_name);
    if (!project.can.has('push_code')) throw forbidden();
    if (tag.details) checkUnmodifiedSince(req.headers['if-unmodified-since'], tag.details.author.timestamp * 1000);
    await deleteTag(serviceContext(req), project, dir, tag);
    return reply.code(204).send();
  });
};
