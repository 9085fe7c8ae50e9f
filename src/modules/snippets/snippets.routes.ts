// Snippets (14.x lib/api/snippets.rb and project_snippets.rb): personal ones under /snippets and
// a project's under /projects/:id/snippets, each with its files in a repository of its own.
// Personal: the caller's list, the public list, everything the caller may read (/all), one, its
// raw content and files, and the administrators' user agent detail; the author changes them.
// Project: every route first needs the project (404) and its snippets feature (403); guests read,
// Reporters and up create, the author or a Maintainer change. A snippet the caller may not read
// is absent: "404 Snippet Not Found" (a project's, fetched alone, "404 Not found" as the platform's
// record lookup answers).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { accessToProject, findProject, loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound, paramError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { resolveRevision } from '../../domain/project-repository.ts';
import { applicationSettings, defaultBranchName } from '../../domain/settings/application-settings.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { existingSnippetRepository } from '../../domain/snippet-repositories.ts';
import { readBlob } from '../../git/commits.ts';
import { contentDisposition, isBinary } from '../repository-files/repository-files.presenter.ts';
import { type ProjectSnippetScope, canChangeSnippet, canCreatePersonalSnippet, canCreateProjectSnippet, canReadSnippet } from './snippets.access.ts';
import {
  type SnippetRecord,
  allReadableSnippets,
  authoredSnippets,
  findProjectSnippet,
  findSnippet,
  projectSnippets,
  publicPersonalSnippets,
  readSnippetFiles,
  snippetAuthors,
} from './snippets.finder.ts';
import { presentSnippet, presentUserAgentDetail } from './snippets.presenter.ts';
import {
  type CreateSnippetBody,
  CreatePersonalSnippetBody,
  CreateProjectSnippetBody,
  ListSnippetsQuery,
  ProjectParams,
  ProjectSnippetFileParams,
  ProjectSnippetParams,
  ProjectSnippetsQuery,
  SnippetEntity,
  SnippetFileParams,
  SnippetParams,
  UpdateSnippetBody,
  UserAgentDetailEntity,
} from './snippets.schemas.ts';
import { createSnippet, deleteSnippet, updateSnippet } from './snippets.service.ts';

const ANYONE = { auth: 'optional' } as const;
const SIGNED_IN = { auth: 'required' } as const;
const RAW = { auth: 'optional', json: false } as const;

const snippetNotFound = () => notFound('Snippet');
/** ActiveRecord's RecordNotFound, as the platform's API renders it. */
const recordNotFound = () => apiError(404, '404 Not found');

/** What the caller holds on the loaded project, for the snippet checks. */
export function loadedScope(req: FastifyRequest): ProjectSnippetScope {
  const project = loadedProject(req);
  return { access: project.access, archived: project.row.archived };
}

/** Whether the loaded project's snippets feature is open to the caller. */
export async function snippetsFeatureOpen(req: FastifyRequest): Promise<boolean> {
  const project = loadedProject(req);
  const level = await readFeatureLevel(req.server.deps.db, project.row, 'snippets');
  return projectFeatureAvailable(req.actor, project.row, project.access, 'snippets', level);
}

/** check_snippets_enabled: the project's snippets feature, open to the caller, else 403. */
async function snippetsEnabled(req: FastifyRequest): Promise<void> {
  if (!(await snippetsFeatureOpen(req))) throw forbidden();
}

export const snippetRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const view = { baseUrl: config.externalUrl, sshUrlPrefix: config.sshUrlPrefix };

  async function fallbackBranch(): Promise<string> {
    return defaultBranchName(await applicationSettings(db));
  }

  /** Snippet entities for records: their authors in one query, their files from their repositories. */
  async function present(records: SnippetRecord[]) {
    const [authors, ref] = await Promise.all([snippetAuthors(db, records), fallbackBranch()]);
    const files = await Promise.all(records.map((r) => readSnippetFiles(existingSnippetRepository(config, r), ref)));
    return records.map((r, i) => presentSnippet(r, authors.get(r.author_id)!, files[i], view));
  }

  /**
   * The caller's scope on a project snippet's project, or null for a personal snippet; 'hidden'
   * when the caller does not read the project or reach its snippets feature.
   */
  async function scopeOf(req: FastifyRequest, record: SnippetRecord): Promise<ProjectSnippetScope | null | 'hidden'> {
    if (record.project_id === null) return null;
    const found = await findProject(req, String(record.project_id));
    if (!found) return 'hidden';
    const { access, can } = await accessToProject(req, found.row);
    if (!can.has('read_project')) return 'hidden';
    const level = await readFeatureLevel(db, found.row, 'snippets');
    if (!projectFeatureAvailable(req.actor, found.row, access, 'snippets', level)) return 'hidden';
    return { access, archived: found.row.archived };
  }

  /** A snippet by id the caller may read (personal or a project's, as SnippetsFinder finds them). */
  async function readableSnippet(req: FastifyRequest, id: number): Promise<SnippetRecord> {
    const record = await findSnippet(db, id);
    if (!record) throw snippetNotFound();
    const scope = await scopeOf(req, record);
    if (scope === 'hidden' || !canReadSnippet(req.actor, record, scope)) throw snippetNotFound();
    return record;
  }

  /** A project's snippet the caller may read; `missing` is the refusal when there is none. */
  async function readableProjectSnippet(req: FastifyRequest, id: number, missing = snippetNotFound): Promise<SnippetRecord> {
    const record = await findProjectSnippet(db, loadedProject(req).row.id, id);
    if (!record || !canReadSnippet(req.actor, record, loadedScope(req))) throw missing();
    return record;
  }

  /** The snippet's first file (its content when it has no files: empty), as the platform's raw routes send it. */
  async function sendFirstFile(reply: FastifyReply, record: SnippetRecord) {
    const gitDir = existingSnippetRepository(config, record);
    const files = await readSnippetFiles(gitDir, await fallbackBranch());
    const blob = gitDir !== null && files.paths.length > 0 ? await readBlob(gitDir, `refs/heads/${files.ref}`, files.paths[0]) : null;
    if (blob === null) return reply.code(200).type('text/plain; charset=utf-8').header('Content-Disposition', 'attachment').send('');
    return sendBlob(reply, blob.path, blob.content);
  }

  function sendBlob(reply: FastifyReply, filePath: string, content: Buffer) {
    return reply
      .code(200)
      .headers({ 'Content-Disposition': contentDisposition(filePath.split('/').pop() ?? filePath), 'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate' })
      .type(isBinary(content) ? 'application/octet-stream' : 'text/plain; charset=utf-8')
      .send(content);
  }

  /** A file of the snippet's repository at a ref: "404 Reference Not Found", "404 File Not Found". */
  async function sendFileAt(reply: FastifyReply, record: SnippetRecord, ref: string, filePath: string) {
    const gitDir = existingSnippetRepository(config, record);
    if (gitDir === null) throw snippetNotFound();
    const commit = await resolveRevision(gitDir, ref);
    if (commit === null) throw notFound('Reference');
    const blob = await readBlob(gitDir, commit, filePath).catch(() => null);
    if (blob === null) throw notFound('File');
    return sendBlob(reply, blob.path, blob.content);
  }

  /** The new snippet's files: `files`, or the legacy file_name with its content (Grape's `given :content`). */
  function newFiles(body: CreateSnippetBody): { path: string; content: string }[] {
    if (body.files) return body.files.map((f) => ({ path: f.file_path, content: f.content }));
    if (body.file_name === undefined) throw paramError('file_name is missing');
    return [{ path: body.file_name, content: body.content ?? '' }];
  }

  function client(req: FastifyRequest) {
    const agent = req.headers['user-agent'];
    return { userAgent: typeof agent === 'string' ? agent : null, ipAddress: req.ip ?? null };
  }

  const list = { 200: Type.Array(SnippetEntity) };

  // ---- Personal snippets ---------------------------------------------------------------------

  api.get('/snippets', { schema: { querystring: ListSnippetsQuery, response: list }, config: SIGNED_IN }, async (req, reply) =>
    present(await paginate(req, reply, authoredSnippets(db, requireUser(req).user.id, req.query))),
  );

  api.get('/snippets/public', { schema: { querystring: ListSnippetsQuery, response: list }, config: SIGNED_IN }, async (req, reply) =>
    present(await paginate(req, reply, publicPersonalSnippets(db, req.query))),
  );

  api.get('/snippets/all', { schema: { querystring: ListSnippetsQuery, response: list }, config: SIGNED_IN }, async (req, reply) =>
    present(await paginate(req, reply, allReadableSnippets(db, requireUser(req), req.query))),
  );

  api.get('/snippets/:id', { schema: { params: SnippetParams, response: { 200: SnippetEntity } }, config: ANYONE }, async (req) => {
    const [entity] = await present([await readableSnippet(req, req.params.id)]);
    return entity;
  });

  api.post('/snippets', { schema: { body: CreatePersonalSnippetBody, response: { 201: SnippetEntity } }, config: SIGNED_IN }, async (req, reply) => {
    if (!canCreatePersonalSnippet(req.actor)) throw forbidden();
    const body = req.body;
    const row = await createSnippet(serviceContext(req), {
      projectId: null,
      title: body.title,
      description: body.description,
      visibility: body.visibility ?? 'internal',
      files: newFiles(body as CreateSnippetBody),
      ...client(req),
    });
    reply.code(201);
    return (await present([(await findSnippet(db, row.id))!]))[0];
  });

  /** PUT and DELETE find the snippet among the caller's own (snippets_for_current_user). */
  async function ownSnippet(req: FastifyRequest, id: number): Promise<SnippetRecord> {
    const actor = requireUser(req);
    const record = await findSnippet(db, id);
    if (!record || record.author_id !== actor.user.id) throw snippetNotFound();
    const scope = await scopeOf(req, record);
    if (scope === 'hidden') throw snippetNotFound();
    if (!canChangeSnippet(actor, record, scope)) throw forbidden();
    return record;
  }

  api.put('/snippets/:id', { schema: { params: SnippetParams, body: UpdateSnippetBody, response: { 200: SnippetEntity } }, config: SIGNED_IN }, async (req) => {
    const record = await ownSnippet(req, req.params.id);
    await updateSnippet(serviceContext(req), record, req.body);
    return (await present([(await findSnippet(db, record.id))!]))[0];
  });

  api.delete('/snippets/:id', { schema: { params: SnippetParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    await deleteSnippet(serviceContext(req), await ownSnippet(req, req.params.id));
    return reply.code(204).send();
  });

  api.get('/snippets/:id/raw', { schema: { params: SnippetParams }, config: RAW }, async (req, reply) => sendFirstFile(reply, await readableSnippet(req, req.params.id)));

  api.get('/snippets/:id/files/:ref/:file_path/raw', { schema: { params: SnippetFileParams }, config: RAW }, async (req, reply) =>
    sendFileAt(reply, await readableSnippet(req, req.params.id), req.params.ref, req.params.file_path),
  );

  api.get('/snippets/:id/user_agent_detail', { schema: { params: SnippetParams, response: { 200: UserAgentDetailEntity } }, config: SIGNED_IN }, async (req) => {
    requireAdmin(req);
    const record = await findSnippet(db, req.params.id);
    if (!record) throw recordNotFound();
    if (record.user_agent === null && record.ip_address === null) throw notFound('UserAgentDetail');
    return presentUserAgentDetail(record);
  });

  // ---- Project snippets ----------------------------------------------------------------------

  const inProject = [loadProject('read_project'), snippetsEnabled];

  api.get('/projects/:id/snippets', { schema: { params: ProjectParams, querystring: ProjectSnippetsQuery, response: list }, config: ANYONE, preHandler: inProject }, async (req, reply) => {
    const project = loadedProject(req);
    return present(await paginate(req, reply, projectSnippets(db, project.row.id, req.actor, project.access)));
  });

  api.get('/projects/:id/snippets/:snippet_id', { schema: { params: ProjectSnippetParams, response: { 200: SnippetEntity } }, config: ANYONE, preHandler: inProject }, async (req) => {
    const [entity] = await present([await readableProjectSnippet(req, req.params.snippet_id, recordNotFound)]);
    return entity;
  });

  api.post('/projects/:id/snippets', { schema: { params: ProjectParams, body: CreateProjectSnippetBody, response: { 201: SnippetEntity } }, config: SIGNED_IN, preHandler: inProject }, async (req, reply) => {
    if (!canCreateProjectSnippet(req.actor, loadedScope(req))) throw forbidden();
    const body = req.body;
    const row = await createSnippet(serviceContext(req), {
      projectId: loadedProject(req).row.id,
      title: body.title,
      description: body.description,
      visibility: body.visibility,
      files: newFiles(body),
      ...client(req),
    });
    reply.code(201);
    return (await present([(await findSnippet(db, row.id))!]))[0];
  });

  /** A project's snippet the caller may change (update_snippet / admin_snippet), else 403. */
  async function changeableProjectSnippet(req: FastifyRequest, id: number): Promise<SnippetRecord> {
    const record = await readableProjectSnippet(req, id);
    if (!canChangeSnippet(req.actor, record, loadedScope(req))) throw forbidden();
    return record;
  }

  api.put(
    '/projects/:id/snippets/:snippet_id',
    { schema: { params: ProjectSnippetParams, body: UpdateSnippetBody, response: { 200: SnippetEntity } }, config: SIGNED_IN, preHandler: inProject },
    async (req) => {
      const record = await changeableProjectSnippet(req, req.params.snippet_id);
      await updateSnippet(serviceContext(req), record, req.body);
      return (await present([(await findSnippet(db, record.id))!]))[0];
    },
  );

  api.delete(
    '/projects/:id/snippets/:snippet_id',
    { schema: { params: ProjectSnippetParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: inProject },
    async (req, reply) => {
      await deleteSnippet(serviceContext(req), await changeableProjectSnippet(req, req.params.snippet_id));
      return reply.code(204).send();
    },
  );

  api.get('/projects/:id/snippets/:snippet_id/raw', { schema: { params: ProjectSnippetParams }, config: RAW, preHandler: inProject }, async (req, reply) =>
    sendFirstFile(reply, await readableProjectSnippet(req, req.params.snippet_id)),
  );

  api.get('/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw', { schema: { params: ProjectSnippetFileParams }, config: RAW, preHandler: inProject }, async (req, reply) =>
    sendFileAt(reply, await readableProjectSnippet(req, req.params.snippet_id), req.params.ref, req.params.file_path),
  );

  api.get(
    '/projects/:id/snippets/:snippet_id/user_agent_detail',
    { schema: { params: ProjectSnippetParams, response: { 200: UserAgentDetailEntity } }, config: SIGNED_IN, preHandler: inProject },
    async (req) => {
      requireAdmin(req);
      const record = await findProjectSnippet(db, loadedProject(req).row.id, req.params.snippet_id);
      if (!record) throw recordNotFound();
      if (record.user_agent === null && record.ip_address === null) throw notFound('UserAgentDetail');
      return presentUserAgentDetail(record);
    },
  );
};
