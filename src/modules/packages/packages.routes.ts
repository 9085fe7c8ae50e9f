// A project's packages (the platform's packages API, 14.x): list, one package with its other
// versions, its files, and deletion. Reporters and readers of public projects read; maintainers
// delete. A package or file the project does not have is the record-not-found 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { findPackage, loadPackagesView, otherVersions, packageFiles, projectPackages } from './packages.finder.ts';
import { type PackageProject, presentPackage, presentPackageDetail, presentPackageFile } from './packages.presenter.ts';
import { ListPackageFilesQuery, ListPackagesQuery, PackageDetailEntity, PackageEntity, PackageFileEntity, PackageFileParams, PackageParams, ProjectParams } from './packages.schemas.ts';
import { deletePackage, deletePackageFile } from './packages.service.ts';

const READ = { auth: 'optional', jobToken: true } as const;
const recordNotFound = () => apiError(404, '404 Not found');

export const packageRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  function packageProject(req: FastifyRequest): PackageProject {
    const { row, can } = loadedProject(req);
    return { id: row.id, full_path: row.full_path, canDestroy: can.has('destroy_package') };
  }

  async function requirePackage(req: FastifyRequest, packageId: number) {
    const pkg = await findPackage(db, loadedProject(req).row.id, packageId);
    if (!pkg) throw recordNotFound();
    return pkg;
  }

  api.get(
    '/projects/:id/packages',
    { schema: { params: ProjectParams, querystring: ListPackagesQuery, response: { 200: Type.Array(PackageEntity) } }, config: READ, preHandler: loadProject('read_package') },
    async (req, reply) => {
      const rows = await paginate(req, reply, projectPackages(db, loadedProject(req).row.id, req.query));
      const view = await loadPackagesView(db, config.externalUrl, rows.map((r) => r.id));
      const project = packageProject(req);
      return rows.map((row) => presentPackage(row, project, view));
    },
  );

  api.get(
    '/projects/:id/packages/:package_id',
    { schema: { params: PackageParams, response: { 200: PackageDetailEntity } }, config: READ, preHandler: loadProject('read_package') },
    async (req) => {
      const pkg = await requirePackage(req, req.params.package_id);
      const versions = await otherVersions(db, pkg);
      const view = await loadPackagesView(db, config.externalUrl, [pkg.id, ...versions.map((v) => v.id)]);
      return presentPackageDetail(pkg, versions, packageProject(req), view);
    },
  );

  api.get(
    '/projects/:id/packages/:package_id/package_files',
    { schema: { params: PackageParams, querystring: ListPackageFilesQuery, response: { 200: Type.Array(PackageFileEntity) } }, config: READ, preHandler: loadProject('read_package') },
    async (req, reply) => {
      const pkg = await requirePackage(req, req.params.package_id);
      const files = await paginate(req, reply, packageFiles(db, pkg.id));
      const view = await loadPackagesView(db, config.externalUrl, [], files);
      const project = packageProject(req);
      return files.map((file) => presentPackageFile(file, project, view));
    },
  );

  api.delete(
    '/projects/:id/packages/:package_id',
    { schema: { params: PackageParams, response: { 204: NoContent } }, config: { auth: 'required', jobToken: true }, preHandler: loadProject('destroy_package') },
    async (req, reply) => {
      await deletePackage(serviceContext(req), await requirePackage(req, req.params.package_id));
      return reply.code(204).send();
    },
  );

  api.delete(
    '/projects/:id/packages/:package_id/package_files/:package_file_id',
    { schema: { params: PackageFileParams, response: { 204: NoContent } }, config: { auth: 'required', jobToken: true }, preHandler: loadProject('destroy_package') },
    async (req, reply) => {
      const pkg = await requirePackage(req, req.params.package_id);
      const file = await packageFiles(db, pkg.id).where('id', '=', req.params.package_file_id).executeTakeFirst();
      if (!file) throw recordNotFound();
      await deletePackageFile(serviceContext(req), file);
      return reply.code(204).send();
    },
  );
};
