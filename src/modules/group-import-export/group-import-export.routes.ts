// Group export and import (spec Part 2 §4.11; the platform's GroupExport and GroupImport APIs,
// 14.x). Exports need admin_group (Owner); an invisible group is 404. Imports need create_group,
// or create_subgroup on the parent named by parent_id. The rate limits are the platform's:
// group_export (per user), group_download_export (per user and group) and group_import (per
// user), a minute each. The archive is read from the multipart body to disk as it arrives.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { globalAbilities } from '../../core/access/abilities.ts';
import { requireUser } from '../../core/access/guards.ts';
import { accessToGroup, findGroup, loadGroup, loadedGroup } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, messageError, notFound, paramError, payloadTooLarge } from '../../core/errors.ts';
import { AcceptedEntity } from '../../core/schema.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { fileDownloadHeaders } from '../ci-artifacts/artifacts.presenter.ts';
import { GroupIdParams } from '../groups/groups.schemas.ts';
import { EXPORT_TTL_MS, NOT_GZ, TOO_MANY_REQUESTS, readImportForm, uploadLimit } from '../import-export/index.ts';
import { exportStatusOf } from '../import-export/import-export.presenter.ts';
import { scheduleGroupExport } from './group-exports.service.ts';
import { findGroupExport } from './group-import-export.finder.ts';
import { scheduleGroupImport } from './group-imports.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const NOT_AVAILABLE = '404 Not found or has expired';

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const groupImportExportRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  async function limit(name: string, who: string, threshold: number) {
    if (await api.throttle.overLimit(name, who, threshold, 60)) throw messageError(429, TOO_MANY_REQUESTS);
  }

  api.post(
    '/groups/:id/export',
    { schema: { params: GroupIdParams, response: { 202: AcceptedEntity } }, config: SIGNED_IN, preHandler: loadGroup('admin_group') },
    async (req, reply) => {
      const actor = requireUser(req);
      await limit('group_export', `user:${actor.user.id}`, (await applicationSettings(db)).group_export_limit);
      await scheduleGroupExport(serviceContext(req), loadedGroup(req).row);
      return reply.code(202).send({ message: '202 Accepted' });
    },
  );

  api.get(
    '/groups/:id/export/download',
    { schema: { params: GroupIdParams }, config: { ...SIGNED_IN, json: false }, preHandler: loadGroup('admin_group') },
    async (req, reply) => {
      const { row } = loadedGroup(req);
      const actor = requireUser(req);
      await limit('group_download_export', `user:${actor.user.id}:group:${row.id}`, (await applicationSettings(db)).group_download_export_limit);
      const state = await findGroupExport(db, row.id);
      const status = exportStatusOf(state, api.deps.now(), EXPORT_TTL_MS);
      const storage = artifactsStorage(config);
      if ((status === 'finished' || status === 'regeneration_in_progress') && state?.file_path && state.file_name && (await storage.exists(state.file_path))) {
        reply.headers(fileDownloadHeaders(state.file_name, Number(state.file_size)));
        return reply.send(storage.read(state.file_path));
      }
      throw apiError(404, NOT_AVAILABLE);
    },
  );

  api.post('/groups/import', { schema: { response: { 202: AcceptedEntity } }, config: { ...SIGNED_IN, streamsMultipart: true } }, async (req, reply) => {
    const actor = requireUser(req);
    if (!req.isMultipart()) throw paramError('path is missing, name is missing, file is missing');
    const settings = await applicationSettings(db);
    const form = await readImportForm(req, uploadLimit(settings.max_import_size));
    try {
      const { fields } = form;
      const groupPath = text(fields.path);
      const name = text(fields.name);
      const missing = [groupPath === undefined && 'path', name === undefined && 'name', !form.staged && 'file'].filter((p): p is string => p !== false);
      if (missing.length > 0) throw paramError(missing.map((p) => `${p} is missing`).join(', '));
      const rawParent = fields.parent_id;
      if (rawParent !== undefined && (typeof rawParent !== 'string' || !/^\d{1,15}$/.test(rawParent.trim()))) throw paramError('parent_id is invalid');

      // authorize_create_group!: create_subgroup on the parent, or create_group.
      let parent: NamespaceRow | null = null;
      if (typeof rawParent === 'string' && rawParent.trim() !== '') {
        parent = await findGroup(req, rawParent.trim());
        if (!parent) throw notFound('Group');
        const { can } = await accessToGroup(req, parent);
        if (!can.has('read_group')) throw notFound('Group');
        if (!can.has('create_subgroup')) throw forbidden();
      } else if (!globalAbilities(actor).has('create_group')) {
        throw forbidden();
      }
      await limit('group_import', `user:${actor.user.id}`, settings.group_import_limit);
      if (form.truncated) throw payloadTooLarge();
      if (!/\.gz$/i.test(form.filename)) throw messageError(422, NOT_GZ);
      await scheduleGroupImport(serviceContext(req), { name: name as string, path: groupPath as string, parent }, form.staged as NonNullable<typeof form.staged>);
      form.staged = null;
      return reply.code(202).send({ message: '202 Accepted' });
    } finally {
      await form.staged?.discard();
    }
  });
};
