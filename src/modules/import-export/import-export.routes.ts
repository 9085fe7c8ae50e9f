// Project export and import (spec Part 2 §4.10; the platform's ProjectExport and ProjectImport
// APIs, 14.x). Exports need admin_project (Maintainer); an invisible project is 404. The
// application rate limits are the platform's: project_export, project_download_export (per user
// and project) and project_import, a minute each. The import archive is read from the multipart
// body as it arrives, to disk, never held in memory.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { requireActor, serviceContext } from '../../core/context.ts';
import { apiError, forbidden, invalidFields, messageError, notFound, paramError, payloadTooLarge } from '../../core/errors.ts';
import { AcceptedEntity } from '../../core/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { blockedUrlMessage } from '../../domain/url-blocker.ts';
import { checkedRequest, OutboundError } from '../../core/outbound-http.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { fileDownloadHeaders } from '../ci-artifacts/artifacts.presenter.ts';
import { EXPORT_TTL_MS, scheduleExport } from './exports.service.ts';
import { findExport, findImportState, importFailures } from './import-export.finder.ts';
import { exportStatusOf, presentExportStatus, presentImportStatus } from './import-export.presenter.ts';
import { ExportBody, ExportStatusEntity, ImportStatusEntity, ProjectParams, RemoteImportBody } from './import-export.schemas.ts';
import { type ImportRequest, cleanOverrideParams, remoteHeadersError, scheduleImport } from './imports.service.ts';
import { NOT_GZ, TOO_MANY_REQUESTS, readImportForm, uploadLimit } from './upload-form.ts';

const SIGNED_IN = { auth: 'required' } as const;
const NOT_AVAILABLE = '404 Not found or has expired';
const NOT_YET = 'The project export file is not available yet';

const truthy = (v: string | undefined) => v !== undefined && ['true', '1', 'yes', 'on', 't', 'y'].includes(v.toLowerCase());

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const importExportRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  async function limit(name: string, who: string, threshold: number) {
    if (await api.throttle.overLimit(name, who, threshold, 60)) throw messageError(429, TOO_MANY_REQUESTS);
  }

  async function requireExportEnabled() {
    if (!(await applicationSettings(db)).project_export_enabled) throw notFound();
  }

  api.post(
    '/projects/:id/export',
    { schema: { params: ProjectParams, body: ExportBody, response: { 202: AcceptedEntity } }, config: SIGNED_IN, preHandler: loadProject('admin_project') },
    async (req, reply) => {
      await requireExportEnabled();
      const actor = requireActor(serviceContext(req));
      await limit('project_export', `user:${actor.user.id}`, (await applicationSettings(db)).project_export_limit);
      const upload = req.body.upload;
      let target: { url: string; method: 'PUT' | 'POST' } | undefined;
      if (upload?.url !== undefined && upload.url !== '') {
        const method = (upload.http_method ?? 'PUT').toUpperCase();
        if (method !== 'PUT' && method !== 'POST') throw invalidFields({ http_method: ['invalid. Only PUT and POST methods allowed.'] });
        const blocked = blockedUrlMessage(upload.url, ['http', 'https']);
        if (blocked) throw invalidFields({ url: [blocked] });
        target = { url: upload.url, method };
      } else if (upload?.http_method !== undefined && !['PUT', 'POST'].includes(upload.http_method.toUpperCase())) {
        throw invalidFields({ http_method: ['invalid. Only PUT and POST methods allowed.'] });
      }
      await scheduleExport(serviceContext(req), loadedProject(req).row, { description: req.body.description, upload: target });
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );

  api.get(
    '/projects/:id/export',
    { schema: { params: ProjectParams, response: { 200: ExportStatusEntity } }, config: SIGNED_IN, preHandler: loadProject('admin_project') },
    async (req) => {
      await requireExportEnabled();
      const { row } = loadedProject(req);
      const status = exportStatusOf(await findExport(db, row.id), api.deps.now(), EXPORT_TTL_MS);
      return presentExportStatus(row, status, config.externalUrl);
    },
  );

  api.get(
    '/projects/:id/export/download',
    { schema: { params: ProjectParams }, config: { ...SIGNED_IN, json: false }, preHandler: loadProject('admin_project') },
    async (req, reply) => {
      await requireExportEnabled();
      const { row } = loadedProject(req);
      const actor = requireActor(serviceContext(req));
      await limit('project_download_export', `user:${actor.user.id}:project:${row.id}`, (await applicationSettings(db)).project_download_export_limit);
      const state = await findExport(db, row.id);
      const status = exportStatusOf(state, api.deps.now(), EXPORT_TTL_MS);
      const storage = artifactsStorage(config);
      if ((status === 'finished' || status === 'regeneration_in_progress') && state?.file_path && state.file_name && (await storage.exists(state.file_path))) {
        reply.headers(fileDownloadHeaders(state.file_name, Number(state.file_size)));
        return reply.send(storage.read(state.file_path));
      }
      if (status === 'queued' || status === 'started') throw apiError(404, NOT_YET);
      throw apiError(404, NOT_AVAILABLE);
    },
  );

  /** The checks both imports make first: the source is enabled, and the rate limit. */
  async function beforeImport(req: FastifyRequest) {
    const actor = requireActor(serviceContext(req));
    const settings = await applicationSettings(db);
    if (!(settings.import_sources as readonly string[]).includes('gitlab_project')) throw forbidden();
    await limit('project_import', `user:${actor.user.id}`, settings.project_import_limit);
    return settings;
  }

  /** The scheduled import, as both import routes answer it. */
  async function scheduled(projectId: number) {
    const row = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
    return presentImportStatus(row, await findImportState(db, projectId), [], true);
  }

  api.post(
    '/projects/import',
    { schema: { response: { 201: ImportStatusEntity } }, config: { ...SIGNED_IN, streamsMultipart: true } },
    async (req, reply) => {
      const settings = await beforeImport(req);
      if (!req.isMultipart()) throw paramError('path is missing');
      const form = await readImportForm(req, uploadLimit(settings.max_import_size));
      try {
        const fields = form.fields;
        const importPath = text(fields.path);
        if (importPath === undefined || importPath === '') throw paramError('path is missing');
        if (!form.staged) throw paramError('file is missing');
        if (form.truncated) throw payloadTooLarge();
        if (!/\.gz$/i.test(form.filename)) throw messageError(422, NOT_GZ);
        const request: ImportRequest = {
          path: importPath,
          name: text(fields.name),
          namespace: text(fields.namespace),
          overwrite: truthy(text(fields.overwrite)),
          overrideParams: cleanOverrideParams(fields.override_params),
        };
        const project = await scheduleImport(serviceContext(req), request, { upload: form.staged });
        form.staged = null;
        return reply.code(201).send(await scheduled(project.id));
      } finally {
        await form.staged?.discard();
      }
    },
  );

  api.post(
    '/projects/remote-import',
    { schema: { body: RemoteImportBody, response: { 201: ImportStatusEntity } }, config: SIGNED_IN },
    async (req, reply) => {
      if (!config.remoteImportEnabled) throw notFound();
      const settings = await beforeImport(req);
      const { url } = req.body;
      const blocked = blockedUrlMessage(url, ['http', 'https']);
      if (blocked) throw apiError(400, `Url ${blocked}`);
      // The remote must declare its archive before anything is created (RemoteFileValidator).
      let headers: Record<string, string | string[] | undefined>;
      try {
        headers = (await checkedRequest(url, { method: 'HEAD' }, { allowLocal: settings.allow_local_requests_from_web_hooks_and_services, timeoutMs: 15_000, maxBytes: 64 * 1024 })).headers;
      } catch (error) {
        throw apiError(400, error instanceof OutboundError && error.failure === 'blocked' ? error.message : 'Remote file could not be reached');
      }
      const refused = remoteHeadersError(headers);
      if (refused) throw apiError(400, refused);
      const request: ImportRequest = {
        path: req.body.path,
        name: req.body.name,
        namespace: req.body.namespace,
        overwrite: req.body.overwrite === true,
        overrideParams: cleanOverrideParams(req.body.override_params),
      };
      const project = await scheduleImport(serviceContext(req), request, { url });
      return reply.code(201).send(await scheduled(project.id));
    },
  );

  api.get(
    '/projects/:id/import',
    { schema: { params: ProjectParams, response: { 200: ImportStatusEntity } }, config: SIGNED_IN, preHandler: loadProject('read_project') },
    async (req) => {
      const { row, can } = loadedProject(req);
      const state = await findImportState(db, row.id);
      const failures = state ? await importFailures(db, row.id, state.correlation_id) : [];
      return presentImportStatus(row, state, failures, can.has('admin_project'));
    },
  );
};
