// Repository files (the platform's files API, 14.x): GET and HEAD a file's metadata and base64
// content (with X-Gitlab-* headers), its raw content, and POST / PUT / DELETE it as one commit.
// Reads need download_code and work without authentication on public repositories; writes need
// push_code (403), then a push to the branch (400 "You are not allowed to push into this branch").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound, paramError } from '../../core/errors.ts';
import { repositoryDir, resolveRevision } from '../../domain/project-repository.ts';
import { loadRepository } from '../repository/index.ts';
import { fieldsOf } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import { type FoundFile, findFile } from './repository-files.finder.ts';
import { fileHeaders, presentFileData, rawHeaders } from './repository-files.presenter.ts';
import {
  DeleteFileBody,
  FileCommitEntity,
  FileEntity,
  FileParams,
  RawFileQuery,
  ShowFileQuery,
  WriteFileBody,
} from './repository-files.schemas.ts';
import { createFile, deleteFile, updateFile } from './repository-files.service.ts';

// The platform's file_path validator (Gitlab::Utils.check_path_traversal!): no `.` or `..` alone,
// no `..` component (`/` or `\` separated), no newline, checked once more after URL-decoding; and
// no absolute path.
const TRAVERSAL = /^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n/;

/** A parameter check, so it runs before the project is looked at, as the platform's does. */
async function checkFilePath(req: FastifyRequest): Promise<void> {
  const raw = String(fieldsOf(req.params).file_path);
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not URL-encoded: checked as it is.
  }
  if ([raw, decoded].some((p) => TRAVERSAL.test(p) || p.startsWith('/'))) throw paramError('file_path should be a valid file path');
}

/** Anonymous callers read public repositories; the abilities of the pre-handlers refuse their writes. */
const READ = { auth: 'optional', scopes: ['read_repository'] } as const;
const WRITE = { auth: 'optional' } as const;

export const repositoryFileRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { config } = deps;
  const read = [checkFilePath, loadRepository('download_code')];
  const write = [checkFilePath, loadRepository('push_code')];

  /** The file at a ref: 404 "404 Commit Not Found" when the ref names no commit, "404 File Not Found" when the file is not there. */
  async function fileAt(req: FastifyRequest, filePath: string, ref: string): Promise<FoundFile> {
    const dir = repositoryDir(config, loadedProject(req).row);
    const commitId = await resolveRevision(dir, ref);
    if (dir === null || commitId === null) throw notFound('Commit');
    const file = await findFile(dir, commitId, filePath);
    if (file === null) throw notFound('File');
    return file;
  }

  api.get(
    '/projects/:id/repository/files/:file_path',
    { schema: { params: FileParams, querystring: ShowFileQuery, response: { 200: FileEntity } }, config: READ, preHandler: read },
    async (req, reply) => {
      const { ref } = req.query;
      const file = await fileAt(req, req.params.file_path, ref);
      const data = presentFileData(file, ref);
      reply.headers(fileHeaders(data));
      return { ...data, content: file.blob.content.toString('base64') };
    },
  );

  api.get(
    '/projects/:id/repository/files/:file_path/raw',
    { schema: { params: FileParams, querystring: RawFileQuery }, config: { ...READ, json: false }, preHandler: read },
    async (req, reply) => {
      const { ref } = req.query;
      // Without a ref, HEAD: the default branch.
      const file = await fileAt(req, req.params.file_path, ref ?? 'HEAD');
      reply.headers(rawHeaders(file, presentFileData(file, ref ?? '')));
      return reply.send(file.blob.content);
    },
  );

  api.post(
    '/projects/:id/repository/files/:file_path',
    { schema: { params: FileParams, body: WriteFileBody, response: { 201: FileCommitEntity } }, config: WRITE, preHandler: write },
    async (req, reply) => {
      const { body } = req;
      const filePath = req.params.file_path;
      await createFile(serviceContext(req), loadedProject(req), filePath, body);
      reply.code(201);
      return { file_path: filePath, branch: body.branch };
    },
  );

  api.put(
    '/projects/:id/repository/files/:file_path',
    { schema: { params: FileParams, body: WriteFileBody, response: { 200: FileCommitEntity } }, config: WRITE, preHandler: write },
    async (req) => {
      const { body } = req;
      const filePath = req.params.file_path;
      await updateFile(serviceContext(req), loadedProject(req), filePath, body);
      return { file_path: filePath, branch: body.branch };
    },
  );

  api.delete(
    '/projects/:id/repository/files/:file_path',
    { schema: { params: FileParams, body: DeleteFileBody, response: { 204: NoContent } }, config: WRITE, preHandler: write },
    async (req, reply) => {
      await deleteFile(serviceContext(req), loadedProject(req), req.params.file_path, req.body);
      return reply.code(204).send();
    },
  );
};
