// POST /markdown (the platform's markdown API, 14.x): Markdown rendered to HTML for anyone, with a
// project's full path as the context the caller must be able to read (404 otherwise). Both the
// plain and the `gfm` pipelines render CommonMark with tables, strikethrough and autolinks, raw
// HTML escaped; the platform's references, emoji and source positions are not rendered.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import { notFound } from '../../core/errors.ts';
import { Bool, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';
import { renderMarkdown } from '../../domain/markdown.ts';

export const RenderMarkdownBody = Params({
  text: Type.String(),
  gfm: Type.Optional(Bool()),
  /** The full path of a project to render in. */
  project: Type.Optional(Type.String()),
});

export const MarkdownEntity = Entity({ html: Type.String() });

export const markdownRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  api.post('/markdown', { schema: { body: RenderMarkdownBody, response: { 201: MarkdownEntity } }, config: { auth: 'optional' } }, async (req, reply) => {
    if (req.body.project !== undefined) {
      const found = await findProjectByFullPath(db, req.body.project);
      if (!found || !(await accessToProject(req, found.row)).can.has('read_project')) throw notFound('Project');
    }
    reply.code(201);
    return { html: renderMarkdown(req.body.text) };
  });
};
