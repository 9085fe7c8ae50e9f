// The generic package registry (the platform's generic packages API, 14.x): PUT publishes a file,
// as the request body itself (curl --upload-file) or as a multipart `file` part, streamed to disk
// and never held in memory; GET downloads the newest file of that name. Developers publish (with
// their token or a CI job's), reporters and readers of public projects download.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, badRequest, paramError } from '../../core/errors.ts';
import { packagesStorage } from '../../storage/file-storage.ts';
import { fileDownloadHeaders } from '../ci-artifacts/artifacts.presenter.ts';
import { findGenericPackage, findNamedFile, loadPackagesView } from './packages.finder.ts';
import { presentPackageFile } from './packages.presenter.ts';
import { CreatedEntity, GenericFileParams, GenericUploadQuery, PackageFileEntity } from './packages.schemas.ts';
import { publishGenericFile } from './packages.service.ts';

const ROUTE = '/projects/:id/packages/generic/:package_name/:package_version/:file_name';
const recordNotFound = () => apiError(404, '404 Not found');

/** The file's bytes: the multipart `file` part, or else the body itself; and its declared length. */
async function uploadedFile(req: FastifyRequest): Promise<{ body: Readable; declaredSize: number | null }> {
  if (req.isMultipart()) {
    let part;
    try {
      // The plan's limit bounds the file (publishGenericFile), not the request body limit.
      part = await req.file({ limits: { fileSize: Number.MAX_SAFE_INTEGER, files: 1, fields: 10 } });
    } catch {
      throw badRequest();
    }
    if (!part || part.fieldname !== 'file') throw paramError('file is missing');
    return { body: part.file, declaredSize: null };
  }
  const length = req.headers['content-length'];
  return { body: req.raw, declaredSize: length !== undefined && /^\d+$/.test(length) ? Number(length) : null };
}

export const genericPackageRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  // The body is the file, whatever its type: it streams to the service unparsed.
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', (_req, _payload, done) => done(null));

  api.put(
    ROUTE,
    {
      schema: { params: GenericFileParams, querystring: GenericUploadQuery, response: { 201: Type.Union([CreatedEntity, PackageFileEntity]) } },
      config: { auth: 'required', jobToken: true, streamsMultipart: true },
      preHandler: loadProject('create_package'),
    },
    async (req, reply) => {
      const project = loadedProject(req);
      const { body, declaredSize } = await uploadedFile(req);
      const file = await publishGenericFile(serviceContext(req), project.row.id, {
        name: req.params.package_name,
        version: req.params.package_version,
        fileName: req.params.file_name,
        status: req.query.status,
        declaredSize,
        body,
      });
      if (req.query.select !== 'package_file') return reply.code(201).send({ message: '201 Created' });
      const view = await loadPackagesView(db, config.externalUrl, [], [file]);
      return reply.code(201).send(presentPackageFile(file, { id: project.row.id, full_path: project.row.full_path, canDestroy: project.can.has('destroy_package') }, view));
    },
  );

  api.get(
    ROUTE,
    { schema: { params: GenericFileParams }, config: { auth: 'optional', jobToken: true, json: false }, preHandler: loadProject('read_package') },
    async (req, reply) => {
      const project = loadedProject(req);
      const pkg = await findGenericPackage(db, project.row.id, req.params.package_name, req.params.package_version);
      const file = pkg ? await findNamedFile(db, pkg.id, req.params.file_name) : undefined;
      const storage = packagesStorage(config);
      if (!file || !(await storage.exists(file.file_path))) throw recordNotFound();
      reply.headers(fileDownloadHeaders(file.file_name, Number(file.size)));
      return reply.send(storage.read(file.file_path));
    },
  );
};
