// Job artifacts through the API (the platform's lib/api/ci/job_artifacts.rb, 14.x): a job's
// archive, one file out of it, the same by ref and job name (the latest successful pipeline of the
// ref), and deleting them. Job tokens may download, acting as the user who started their job.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, badRequest, notFound } from '../../core/errors.ts';
import { NoContent } from '../../core/schema.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { loadCi } from '../pipelines/index.ts';
import { openZipEntry } from '../../storage/zip-archive.ts';
import { findArtifact, findJob, latestSuccessfulJobForRef } from './artifacts.finder.ts';
import { entryDownloadHeaders, fileDownloadHeaders } from './artifacts.presenter.ts';
import { ArtifactPathParams, JobArtifactsParams, JobNameQuery, RefParams, RefPathParams } from './artifacts.schemas.ts';
import { deleteArtifacts } from './artifacts.service.ts';

const DOWNLOAD = { auth: 'optional', jobToken: true, json: false } as const;

/** Gitlab::Ci::Build::Artifacts::Path#valid?: no NUL byte, valid UTF-8 (the router decoded it already). */
const validPath = (value: string) => value !== '' && !value.includes('\0') && !value.includes('\uFFFD');

export const artifactRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const storage = artifactsStorage(config);

  async function requireJob(req: FastifyRequest, id: number): Promise<CiBuildRow> {
    const job = await findJob(db, id, loadedProject(req).row.id);
    if (!job) throw notFound();
    return job;
  }

  /** The latest successful job of the name on the ref, or the platform's RecordNotFound answer. */
  async function jobForRef(req: FastifyRequest, ref: string, name: string): Promise<CiBuildRow> {
    const job = await latestSuccessfulJobForRef(db, loadedProject(req).row.id, ref, name, api.deps.now());
    if (!job) throw apiError(404, '404 Not found');
    return job;
  }

  async function sendArchive(reply: FastifyReply, job: CiBuildRow) {
    const archive = await findArtifact(db, job.id, 'archive', api.deps.now());
    if (!archive || !(await storage.exists(archive.file_path))) throw notFound();
    reply.headers(fileDownloadHeaders(archive.filename, Number(archive.size)));
    return reply.send(storage.read(archive.file_path));
  }

  async function sendEntry(reply: FastifyReply, job: CiBuildRow, entryPath: string) {
    const archive = await findArtifact(db, job.id, 'archive', api.deps.now());
    if (!archive || !(await storage.exists(archive.file_path))) throw notFound();
    if (!validPath(entryPath)) throw badRequest();
    const entry = await openZipEntry(storage.localPath(archive.file_path), entryPath).catch(() => null);
    if (!entry) throw notFound();
    reply.headers(entryDownloadHeaders(entryPath, entry.size));
    return reply.send(entry.stream);
  }

  api.get(
    '/projects/:id/jobs/:job_id/artifacts',
    { schema: { params: JobArtifactsParams }, config: DOWNLOAD, preHandler: loadCi('read_build') },
    async (req, reply) => sendArchive(reply, await requireJob(req, req.params.job_id)),
  );

  api.get(
    '/projects/:id/jobs/:job_id/artifacts/*',
    { schema: { params: ArtifactPathParams }, config: DOWNLOAD, preHandler: loadCi('read_build') },
    async (req, reply) => sendEntry(reply, await requireJob(req, req.params.job_id), req.params['*']),
  );

  api.get(
    '/projects/:id/jobs/artifacts/:ref_name/download',
    { schema: { params: RefParams, querystring: JobNameQuery }, config: DOWNLOAD, preHandler: loadCi('read_build') },
    async (req, reply) => sendArchive(reply, await jobForRef(req, req.params.ref_name, req.query.job)),
  );

  api.get(
    '/projects/:id/jobs/artifacts/:ref_name/raw/*',
    { schema: { params: RefPathParams, querystring: JobNameQuery }, config: DOWNLOAD, preHandler: loadCi('read_build') },
    async (req, reply) => sendEntry(reply, await jobForRef(req, req.params.ref_name, req.query.job), req.params['*']),
  );

  api.delete(
    '/projects/:id/jobs/:job_id/artifacts',
    { schema: { params: JobArtifactsParams, response: { 204: NoContent } }, config: { auth: 'required' }, preHandler: loadCi('admin_build') },
    async (req, reply) => {
      await deleteArtifacts(serviceContext(req), await requireJob(req, req.params.job_id));
      return reply.code(204).send();
    },
  );
};
