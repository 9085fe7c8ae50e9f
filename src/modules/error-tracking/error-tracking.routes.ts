// A project's error tracking (spec Part 1 §4.12): settings and client keys for Maintainers and up
// (a project the caller may not see is 404, one they see without the role 403, anonymous 401);
// and the integrated tracker's errors, a REST list and detail that the platform serves only
// through GraphQL (a Quarry extension), for Reporters and up, who may also change an error's status
// (the platform does that through its web interface's JSON route, error-tracking-web.routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { ERROR_ORDER, findClientKey, findError, findSettings, latestEvent, projectClientKeys, projectErrors } from './error-tracking.finder.ts';
import { presentClientKey, presentError, presentErrorDetail, presentSettings } from './error-tracking.presenter.ts';
import {
  ClientKeyEntity,
  ClientKeyParams,
  ErrorDetailEntity,
  ErrorEntity,
  ErrorParams,
  ListErrorsQuery,
  ListQuery,
  PatchSettingsBody,
  ProjectParams,
  PutSettingsBody,
  SettingsEntity,
  UpdateErrorBody,
} from './error-tracking.schemas.ts';
import { createClientKey, deleteClientKey, patchSettings, putSettings, settingsNotFound, updateErrorStatus } from './error-tracking.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const READ = { auth: 'optional' } as const;

export const errorTrackingRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const maintainers = loadProject('admin_operations');
  const reporters = loadProject('read_sentry_issue');
  const updaters = loadProject('update_sentry_issue');

  api.get(
    '/projects/:id/error_tracking/settings',
    { schema: { params: ProjectParams, response: { 200: SettingsEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => {
      const row = await findSettings(db, loadedProject(req).row.id);
      if (!row) throw settingsNotFound();
      return presentSettings(row);
    },
  );

  api.patch(
    '/projects/:id/error_tracking/settings',
    { schema: { params: ProjectParams, body: PatchSettingsBody, response: { 200: SettingsEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => presentSettings(await patchSettings(serviceContext(req), loadedProject(req).row, req.body)),
  );

  api.put(
    '/projects/:id/error_tracking/settings',
    { schema: { params: ProjectParams, body: PutSettingsBody, response: { 200: SettingsEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => presentSettings(await putSettings(serviceContext(req), loadedProject(req).row, req.body)),
  );

  api.get(
    '/projects/:id/error_tracking/client_keys',
    { schema: { params: ProjectParams, querystring: ListQuery, response: { 200: Type.Array(ClientKeyEntity) } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const keys = await paginate(req, reply, projectClientKeys(db, loadedProject(req).row.id));
      return keys.map((key) => presentClientKey(key, config.externalUrl));
    },
  );

  api.post(
    '/projects/:id/error_tracking/client_keys',
    { schema: { params: ProjectParams, response: { 201: ClientKeyEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => reply.code(201).send(presentClientKey(await createClientKey(serviceContext(req), loadedProject(req).row), config.externalUrl)),
  );

  // The spec (§4.12) answers "empty"; release 14.x answers 200 with the deleted key.
  api.delete(
    '/projects/:id/error_tracking/client_keys/:key_id',
    { schema: { params: ClientKeyParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const key = await findClientKey(db, loadedProject(req).row.id, req.params.key_id);
      if (!key) throw apiError(404, '404 Not found');
      await deleteClientKey(serviceContext(req), key);
      return reply.code(204).send();
    },
  );

  api.get(
    '/projects/:id/error_tracking/errors',
    { schema: { params: ProjectParams, querystring: ListErrorsQuery, response: { 200: Type.Array(ErrorEntity) } }, config: READ, preHandler: reporters },
    async (req, reply) => {
      const { status, search_term: search, sort = 'last_seen' } = req.query;
      const order = ERROR_ORDER[sort];
      const query = projectErrors(db, loadedProject(req).row.id, { status, search }).orderBy(order.column, 'desc').orderBy('id', 'desc');
      return (await paginate(req, reply, query)).map(presentError);
    },
  );

  api.get(
    '/projects/:id/error_tracking/errors/:error_id',
    { schema: { params: ErrorParams, response: { 200: ErrorDetailEntity } }, config: READ, preHandler: reporters },
    async (req) => {
      const error = await findError(db, loadedProject(req).row.id, req.params.error_id);
      if (!error) throw apiError(404, '404 Error Not Found');
      return presentErrorDetail(error, await latestEvent(db, error.id));
    },
  );

  api.put(
    '/projects/:id/error_tracking/errors/:error_id',
    { schema: { params: ErrorParams, body: UpdateErrorBody, response: { 200: ErrorEntity } }, config: SIGNED_IN, preHandler: updaters },
    async (req) => {
      const error = await findError(db, loadedProject(req).row.id, req.params.error_id);
      if (!error) throw apiError(404, '404 Error Not Found');
      return presentError(await updateErrorStatus(serviceContext(req), error, req.body.status));
    },
  );
};
