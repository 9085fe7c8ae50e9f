// Wikis of projects and of groups (premium): list, read, create, update and delete pages, and
// upload attachments into the wiki's repository. Both kinds answer alike; only whose wiki it is
// and who may use it differ.
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { serviceContext } from '../../core/context.ts';
import { DomainError, badRequest, notFound, paramError, payloadTooLarge } from '../../core/errors.ts';
import { NoContent } from '../../core/schema.ts';
import { type WikiAbility, groupWikiContainer, loadGroupWiki, loadProjectWiki, projectWikiContainer } from './wikis.access.ts';
import { findWikiPage, listWikiPages } from './wikis.finder.ts';
import { presentWikiAttachment, presentWikiPage, presentWikiPageBasic } from './wikis.presenter.ts';
import {
  ContainerParams,
  CreatePageBody,
  GetPageQuery,
  ListPagesQuery,
  PageParams,
  UpdatePageBody,
  WikiAttachmentEntity,
  WikiPageBasicEntity,
  WikiPageEntity,
} from './wikis.schemas.ts';
import { createWikiAttachment, createWikiPage, deleteWikiPage, updateWikiPage } from './wikis.service.ts';
import type { WikiContainer } from './wiki-repositories.ts';
import { existingWikiDir } from './wiki-repositories.ts';

const READ = { auth: 'optional' } as const;
const WRITE = { auth: 'required' } as const;

const OWNERS = [
  { prefix: '/projects/:id', load: loadProjectWiki, container: projectWikiContainer },
  { prefix: '/groups/:id', load: loadGroupWiki, container: groupWikiContainer },
] as const satisfies readonly { prefix: string; load: (ability: WikiAbility) => (req: FastifyRequest) => Promise<void>; container: (req: FastifyRequest) => WikiContainer }[];

const pageNotFound = () => notFound('Wiki Page');

interface AttachmentForm {
  file: { name: string; content: Buffer } | null;
  branch?: string;
}

/** The multipart form of an attachment: the `file` part (its name kept, within the body limit) and `branch`. */
async function readAttachmentForm(req: FastifyRequest, maxBytes: number): Promise<AttachmentForm> {
  const form: AttachmentForm = { file: null };
  if (!req.isMultipart()) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.file !== undefined && body.file !== null) throw paramError('file is invalid');
    return form;
  }
  const options = { limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024 }, throwFileSizeLimit: false };
  try {
    for await (const part of req.parts(options)) {
      if (part.type === 'file') {
        const content = await part.toBuffer();
        if (part.file.truncated) throw payloadTooLarge();
        if (part.fieldname === 'file') form.file = { name: path.posix.basename(part.filename.replaceAll('\\', '/')), content };
      } else if (part.fieldname === 'branch' && typeof part.value === 'string') {
        form.branch = part.value;
      } else if (part.fieldname === 'file') {
        throw paramError('file is invalid');
      }
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw badRequest();
  }
  return form;
}

export const wikiRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  for (const { prefix, load, container } of OWNERS) {
    /** The page `:slug` names on the wiki's branch (or at `version`); 404 when there is none. */
    async function pageOf(req: FastifyRequest, slug: string, version?: string) {
      const page = await findWikiPage(await existingWikiDir(db, config, container(req)), slug, version);
      if (!page) throw pageNotFound();
      return page;
    }

    api.get(
      `${prefix}/wikis`,
      { schema: { params: ContainerParams, querystring: ListPagesQuery, response: { 200: Type.Array(Type.Union([WikiPageEntity, WikiPageBasicEntity])) } }, config: READ, preHandler: load('read_wiki') },
      async (req) => {
        const withContent = req.query.with_content ?? false;
        const pages = await listWikiPages(await existingWikiDir(db, config, container(req)), withContent);
        return pages.map((page) => (withContent ? presentWikiPage({ ...page, content: page.content ?? '' }) : presentWikiPageBasic(page)));
      },
    );

    api.get(
      `${prefix}/wikis/:slug`,
      { schema: { params: PageParams, querystring: GetPageQuery, response: { 200: WikiPageEntity } }, config: READ, preHandler: load('read_wiki') },
      async (req) => presentWikiPage(await pageOf(req, req.params.slug, req.query.version || undefined), { renderHtml: req.query.render_html }),
    );

    api.post(
      `${prefix}/wikis`,
      { schema: { params: ContainerParams, body: CreatePageBody, response: { 201: WikiPageEntity } }, config: WRITE, preHandler: load('create_wiki') },
      async (req, reply) => {
        const page = await createWikiPage(serviceContext(req), container(req), { ...req.body, format: req.body.format ?? 'markdown' });
        reply.code(201);
        return presentWikiPage(page);
      },
    );

    api.put(
      `${prefix}/wikis/:slug`,
      { schema: { params: PageParams, body: UpdatePageBody, response: { 200: WikiPageEntity } }, config: WRITE, preHandler: load('create_wiki') },
      async (req) => {
        const page = await pageOf(req, req.params.slug);
        return presentWikiPage(await updateWikiPage(serviceContext(req), container(req), page, { ...req.body, format: req.body.format ?? 'markdown' }));
      },
    );

    api.delete(
      `${prefix}/wikis/:slug`,
      { schema: { params: PageParams, response: { 204: NoContent } }, config: WRITE, preHandler: load('admin_wiki') },
      async (req, reply) => {
        await deleteWikiPage(serviceContext(req), container(req), await pageOf(req, req.params.slug));
        return reply.code(204).send();
      },
    );

    api.post(
      `${prefix}/wikis/attachments`,
      { schema: { params: ContainerParams, response: { 201: WikiAttachmentEntity } }, config: { ...WRITE, streamsMultipart: true }, preHandler: load('create_wiki') },
      async (req, reply) => {
        const form = await readAttachmentForm(req, config.bodyLimit);
        if (!form.file) throw paramError('file is missing');
        const attachment = await createWikiAttachment(serviceContext(req), container(req), form.file, form.branch);
        reply.code(201);
        return presentWikiAttachment(attachment);
      },
    );
  }
};
