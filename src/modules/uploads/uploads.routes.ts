// POST /projects/:id/uploads: any signed-in user who reads the project uploads a file for its
// Markdown (release 14.x asks nothing more), as the multipart part `file`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { badRequest, paramError } from '../../core/errors.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { presentProjectUpload } from './uploads.presenter.ts';
import { ProjectParams, ProjectUploadEntity } from './uploads.schemas.ts';
import { type IncomingFile, storeUpload } from './uploads.service.ts';

const MEGABYTE = 1024 * 1024;

/** The multipart `file` part, read no further than maxBytes. */
async function uploadedFile(req: FastifyRequest, maxBytes: number): Promise<IncomingFile> {
  if (!req.isMultipart()) throw paramError('file is missing');
  let part;
  try {
    part = await req.file({ limits: { fileSize: maxBytes, files: 1, fields: 10 } });
  } catch {
    throw badRequest();
  }
  if (!part || part.fieldname !== 'file') throw paramError('file is missing');
  if (part.filename === '') throw paramError('file is invalid');
  const stream = part.file;
  return { filename: part.filename, stream, truncated: () => stream.truncated };
}

export const uploadRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  api.post(
    '/projects/:id/uploads',
    { schema: { params: ProjectParams, response: { 201: ProjectUploadEntity } }, config: { auth: 'required', streamsMultipart: true }, preHandler: loadProject('read_project') },
    async (req, reply) => {
      const project = loadedProject(req);
      const maxBytes = (await applicationSettings(db)).max_attachment_size * MEGABYTE;
      const row = await storeUpload(serviceContext(req), project.row.id, await uploadedFile(req, maxBytes));
      reply.code(201);
      return presentProjectUpload(row, project.row.full_path);
    },
  );
};
