// PUT <full path>/-/error_tracking/:issue_id.json with `status`: where the platform's web interface
// resolves, ignores and reopens an error (it has no API route nor GraphQL mutation for it). For
// callers who may update the project's errors (update_sentry_issue, Reporters and up in 14.x);
// anyone else, and an error the project does not have, gets 404. Tracking switched off (or never
// set up) is the platform's 400 "Error Tracking is not enabled". The answer is the platform's
// `{ result: { status, updated, closed_issue_iid } }`; errors link to no issue here, so the last is null.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { fieldsOf } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';
import { MAX_ANCESTORS } from '../groups/groups.validation.ts';
import { findError, findSettings } from './error-tracking.finder.ts';
import { UpdateErrorBody } from './error-tracking.schemas.ts';
import { updateErrorStatus } from './error-tracking.service.ts';

/** Groups nest up to MAX_ANCESTORS + 1 deep, and the project comes last. */
const MAX_SEGMENTS = MAX_ANCESTORS + 2;

const UpdateResult = Entity({
  result: Entity({ status: Type.Literal('success'), updated: Type.Boolean(), closed_issue_iid: Nullable(Type.Integer()) }),
});

export const errorTrackingWebRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;
  for (let depth = 2; depth <= MAX_SEGMENTS; depth++) {
    const base = Array.from({ length: depth }, (_, i) => `/:s${i}`).join('');
    app.put(`${base}/-/error_tracking/:issue_id.json`, { schema: { body: UpdateErrorBody, response: { 200: UpdateResult } }, config: { auth: 'optional' } }, async (req) => {
      const params = fieldsOf(req.params);
      const fullPath = Array.from({ length: depth }, (_, i) => String(params[`s${i}`])).join('/');
      const issueId = /^\d{1,15}$/.test(String(params.issue_id)) ? Number(params.issue_id) : null;
      const found = await findProjectByFullPath(db, fullPath);
      if (!found) throw notFound();
      const { can } = await accessToProject(req, found.row);
      if (!can.has('update_sentry_issue')) throw notFound();
      const settings = await findSettings(db, found.row.id);
      if (!settings?.enabled) throw apiError(400, 'Error Tracking is not enabled');
      const error = issueId === null ? null : await findError(db, found.row.id, issueId);
      if (!error) throw notFound();
      const updated = await updateErrorStatus(serviceContext(req), error, req.body.status);
      return { result: { status: 'success' as const, updated: updated !== error, closed_issue_iid: null } };
    });
  }
};
