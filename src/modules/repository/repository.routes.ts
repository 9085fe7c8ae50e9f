// A project's repository as a whole (the platform's repositories API, 14.x): the tree of a ref
// (a directory, or everything below it), and an archive of a commit (tar.gz, tar.bz2, tar, zip),
// streamed as git writes it. Both need download_code and work without authentication on public
// repositories.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { notFound, paramError } from '../../core/errors.ts';
import { pageOf, setOffsetHeaders } from '../../core/pagination.ts';
import { safeRepoPath } from '../../git/args.ts';
import { type ArchiveFormat, archiveStream } from '../../git/archive.ts';
import { pathExists } from '../../git/history.ts';
import { readDefaultBranch } from '../../git/repository.ts';
import { loadRepository } from './repository.access.ts';
import { findTree } from './repository.finder.ts';
import { headerText } from '../../core/header-text.ts';
import { repositoryDir, resolveRevision } from '../../domain/project-repository.ts';
import { ARCHIVE_EXTENSIONS, ArchiveParams, ArchiveQuery, ProjectParams, TreeObjectEntity, TreeQuery } from './repository.schemas.ts';

/** A path inside the tree; '' for the root. */
function treePath(raw: string | undefined): string {
  if (raw === undefined || raw.replace(/\/+/g, '') === '') return '';
  const path = safeRepoPath(raw);
  if (path === null) throw paramError('path should be a valid file path');
  return path;
}

/** What git writes for a requested format: bzip2 names, tar, zip, and tar.gz for anything else (as the platform falls back). */
function archiveFormat(requested: string | undefined): ArchiveFormat {
  if (requested === 'zip' || requested === 'tar') return requested;
  if (requested !== undefined && ['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'].includes(requested)) return 'tar.bz2';
  return 'tar.gz';
}

/** Anonymous callers read public repositories. */
const OPTIONAL = { auth: 'optional' } as const;

export const repositoryRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { config } = api.deps;
  const read = loadRepository('download_code');

  api.get(
    '/projects/:id/repository/tree',
    { schema: { params: ProjectParams, querystring: TreeQuery, response: { 200: Type.Array(TreeObjectEntity) } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const q = req.query;
      const path = treePath(q.path);
      const { row } = loadedProject(req);
      const dir = repositoryDir(config, row);
      const commitId = await resolveRevision(dir, q.ref || row.default_branch || 'HEAD');
      if (dir === null || commitId === null) throw notFound('Tree');
      const entries = await findTree(dir, commitId, path, Boolean(q.recursive));
      const page = pageOf(q);
      const rows = entries.slice((page.page - 1) * page.perPage, page.page * page.perPage);
      setOffsetHeaders(req, reply, page, entries.length, rows.length);
      return rows;
    },
  );

  async function archive(req: FastifyRequest, reply: FastifyReply, extension: string | undefined, q: ArchiveQuery) {
    // Other extensions do not route on the platform.
    if (extension !== undefined && !(ARCHIVE_EXTENSIONS as readonly string[]).includes(extension)) throw paramError('404 Not Found', 404);
    const path = q.path === undefined ? '' : treePath(q.path);
    const { row } = loadedProject(req);
    const dir = repositoryDir(config, row);
    const ref = q.sha || (dir !== null ? await readDefaultBranch(dir) : null) || 'HEAD';
    const commitId = await resolveRevision(dir, ref);
    if (dir === null || commitId === null || (path !== '' && !(await pathExists(dir, commitId, path)))) throw notFound('File');
    const format = archiveFormat(extension ?? q.format);
    // <project>-<ref>-<sha>[-<path>], as the platform names it (append_sha: true).
    const prefix = [row.path, ref.replace(/\//g, '-'), commitId, ...(path !== '' ? [path.replace(/\//g, '-')] : [])].join('-');
    const filename = `${prefix}.${format}`;
    reply.headers({
      'Content-Disposition': `attachment; filename="${headerText(filename).replace(/["\\]/g, '\\$&')}"`,
      'Content-Type': format === 'zip' ? 'application/zip' : 'application/octet-stream',
      'Content-Transfer-Encoding': 'binary',
    });
    return reply.send(archiveStream(dir, { commit: commitId, format, prefix, path: path === '' ? undefined : path }));
  }

  // The archive streams as git writes it: not JSON.
  const options = { schema: { params: ArchiveParams, querystring: ArchiveQuery }, config: { ...OPTIONAL, json: false }, preHandler: read } as const;
  api.get('/projects/:id/repository/archive', options, (req, reply) => archive(req, reply, req.params.format, req.query));
  api.get('/projects/:id/repository/archive.:format', options, (req, reply) => archive(req, reply, req.params.format, req.query));
};
