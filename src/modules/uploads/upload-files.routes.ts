// GET /<project full path>/uploads/<secret>/<name>: an uploaded file, to whoever reads the project
// (images, videos and audio inline, anything else as an attachment). As the platform's web pages,
// a caller who is not signed in is sent to sign in, and a signed-in one who may not read it gets 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import { fieldsOf } from '../../core/params.ts';
import { headerText } from '../../core/header-text.ts';
import { html, page } from '../../core/html-page.ts';
import { uploadsStorage } from '../../storage/file-storage.ts';
import { MAX_ANCESTORS } from '../groups/groups.validation.ts';
import { findUpload } from './uploads.finder.ts';
import { contentTypeOf, isEmbeddable } from './uploads.files.ts';

/** A project sits in up to MAX_ANCESTORS + 1 nested groups or in a user's namespace. */
const MAX_SEGMENTS = MAX_ANCESTORS + 2;
const SECRET = /^[0-9a-f]{32}$/;

function notFound(req: FastifyRequest, reply: FastifyReply) {
  if (!req.actor) return reply.code(302).header('location', `/users/sign_in?redirect_to=${encodeURIComponent(req.url)}`).send();
  return html(reply, 404, page('Not Found', '<p>The page could not be found or you don’t have permission to view it.</p>'));
}

export const uploadFileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app.deps;

  async function serve(req: FastifyRequest, reply: FastifyReply) {
    const params = fieldsOf(req.params);
    const segments = Array.from({ length: MAX_SEGMENTS }, (_, i) => params[`s${i}`]).filter((s): s is string => typeof s === 'string');
    const secret = String(params.secret ?? '');
    const filename = String(params.filename ?? '');
    if (!SECRET.test(secret)) return notFound(req, reply);
    const found = await findProjectByFullPath(db, segments.join('/'));
    if (!found || !(await accessToProject(req, found.row)).can.has('read_project')) return notFound(req, reply);
    const upload = await findUpload(db, found.row.id, secret, filename);
    const storage = uploadsStorage(config);
    if (!upload || !(await storage.exists(upload.file_path))) return notFound(req, reply);
    const disposition = isEmbeddable(upload.filename) ? 'inline' : 'attachment';
    reply.headers({
      'content-type': contentTypeOf(upload.filename),
      'content-length': String(upload.size),
      'content-disposition': `${disposition}; filename="${headerText(upload.filename).replace(/"/g, '\\"')}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private',
    });
    return reply.send(storage.read(upload.file_path));
  }

  for (let depth = 2; depth <= MAX_SEGMENTS; depth++) {
    const base = Array.from({ length: depth }, (_, i) => `/:s${i}`).join('');
    app.get(`${base}/uploads/:secret/:filename`, { config: { auth: 'optional', json: false } }, serve);
  }
};
