// The runner protocol's artifact calls (notes gitlab-ci.md §1.7, §8.9–8.10, §8.16): a running job
// uploads its archive and reports as multipart (one `file` part, streamed to disk under a size
// limit of its own, never held in memory), and a job downloads the archive of a job it depends on.
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { digest } from '../../core/auth/secrets.ts';
import { serviceContext } from '../../core/context.ts';
import { DomainError, apiError, badRequest, forbidden, notFound, paramError } from '../../core/errors.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { type FileStorage, type StagedFile, artifactsStorage } from '../../storage/file-storage.ts';
import { availableArchive, findJob } from './artifacts.finder.ts';
import { fileDownloadHeaders } from './artifacts.presenter.ts';
import { ARTIFACT_FORMATS, ARTIFACT_TYPES, RunnerDownloadQuery, RunnerJobParams, UploadQuery } from './artifacts.schemas.ts';
import { storeArtifact } from './artifacts.service.ts';

const UPLOAD = { auth: 'none', json: false, streamsMultipart: true } as const;
const DOWNLOAD = { auth: 'none', json: false } as const;

const header = (req: FastifyRequest, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const jobForbidden = (job: CiBuildRow, reason: string) => new DomainError({ status: 403, message: `403 Forbidden - ${reason}`, headers: { 'job-status': job.status } });

/** authenticate_job!: the job of the token, not erased; running unless said. */
async function authenticateJob(req: FastifyRequest, id: number, token: string | undefined, requireRunning: boolean): Promise<CiBuildRow> {
  const job = await findJob(req.server.deps.db, id);
  if (!job || !token || job.token_digest !== digest(token)) throw forbidden();
  if (job.erased_at !== null) throw forbidden('Job has been erased!');
  if (requireRunning && job.status !== 'running') throw jobForbidden(job, 'Job is not running');
  return job;
}

interface Upload {
  staged: StagedFile | null;
  filename: string;
  truncated: boolean;
  fields: Record<string, string>;
}

/** Reads the multipart body: the `file` part to disk (at most `maxBytes` of it), the other fields as text. */
async function readUpload(req: FastifyRequest, storage: FileStorage, maxBytes: number): Promise<Upload> {
  const upload: Upload = { staged: null, filename: '', truncated: false, fields: {} };
  try {
    // Past the limit the part is cut short and marked truncated (the caller answers 413).
    const options = { limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 4096 }, throwFileSizeLimit: false };
    for await (const part of req.parts(options)) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw badRequest(`invalid form field: ${part.fieldname}`);
        upload.staged = await storage.stage(part.file);
        upload.truncated = part.file.truncated;
        upload.filename = path.posix.basename(part.filename.replaceAll('\\', '/')).slice(0, 255);
      } else if (typeof part.value === 'string') {
        upload.fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    await upload.staged?.discard();
    if (error instanceof DomainError) throw error;
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') throw badRequest('artifacts request contains more than one file');
    throw badRequest();
  }
  return upload;
}

function oneOf<T extends string>(name: string, value: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(value)) throw paramError(`${name} does not have a valid value`);
  return value as T;
}

/** A body of the status code, as JSON, which every runner accepts. */
function status(reply: FastifyReply, code: number) {
  return reply.code(code).type('application/json').send(JSON.stringify(String(code)));
}

export const runnerArtifactRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { config, db } = api.deps;
  const storage = artifactsStorage(config);

  api.post('/jobs/:id/artifacts', { schema: { params: RunnerJobParams, querystring: UploadQuery }, config: UPLOAD }, async (req, reply) => {
    // A token outside the body is checked before the body is read (the parameter first, as the platform reads it).
    const outsideToken = req.query.token ?? header(req, 'job-token');
    if (outsideToken !== undefined) await authenticateJob(req, req.params.id, outsideToken, true);
    if (!req.isMultipart()) throw paramError('file is missing');
    // The instance's max_artifacts_size (MB), within the node's own bound.
    const limit = Math.min(config.artifactsMaxBytes, (await applicationSettings(db)).max_artifacts_size * 1024 * 1024);
    const upload = await readUpload(req, storage, limit);
    const { staged, fields } = upload;
    try {
      const job = await authenticateJob(req, req.params.id, outsideToken ?? fields.token, true);
      if (!staged) throw paramError('file is missing');
      const type = oneOf('artifact_type', req.query.artifact_type ?? fields.artifact_type ?? 'archive', ARTIFACT_TYPES);
      const format = oneOf('artifact_format', req.query.artifact_format ?? fields.artifact_format ?? 'zip', ARTIFACT_FORMATS);
      if (upload.truncated) throw apiError(413, 'file size has reached maximum size limit');
      const filename = upload.filename || (type === 'archive' ? 'artifacts.zip' : type);
      await storeArtifact(serviceContext(req), job, staged, { type, format, expireIn: req.query.expire_in ?? fields.expire_in, filename });
    } finally {
      await staged?.discard();
    }
    return status(reply, 201);
  });

  // The job's own token (14.x), or that of a running job of the same pipeline, which the job
  // payload hands out for each dependency (as newer releases of the platform do).
  api.get('/jobs/:id/artifacts', { schema: { params: RunnerJobParams, querystring: RunnerDownloadQuery }, config: DOWNLOAD }, async (req, reply) => {
    const token = req.query.token ?? header(req, 'job-token');
    if (!token) throw forbidden();
    const job = await findJob(db, req.params.id);
    if (!job) throw forbidden();
    if (job.token_digest !== digest(token)) {
      const reader = await db.selectFrom('ci_builds').select(['pipeline_id', 'status']).where('token_digest', '=', digest(token)).executeTakeFirst();
      if (reader?.status !== 'running' || reader.pipeline_id !== job.pipeline_id) throw forbidden();
    }
    if (job.erased_at !== null) throw forbidden('Job has been erased!');
    const archive = await availableArchive(db, job.id, api.deps.now());
    if (!archive || !(await storage.exists(archive.file_path))) throw notFound();
    reply.headers(fileDownloadHeaders(archive.filename, Number(archive.size)));
    return reply.send(storage.read(archive.file_path));
  });
};
