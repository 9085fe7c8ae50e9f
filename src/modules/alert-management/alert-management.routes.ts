// Alert management over REST, a Quarry extension (release 14.x offers it through GraphQL only):
// a project's HTTP integrations, for Maintainers and up, with their address and token;
// and the alerts they received, for Developers and up. A project the caller may not see is 404;
// one they see without the role, 403. An integration or alert is looked for before the caller's
// role is checked, so one the project does not have is 404 for anyone who sees the project.
// PUT …/alert_management_alerts/:alert_iid changes an alert's status and assignees (Developers and
// up) as updateAlertStatus and alertSetAssignees do; what they would refuse in `errors` is a 400
// `{"message": …}` here.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, paramError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { AlertManagementAlertRow, AlertManagementHttpIntegrationRow } from '../../db/schema.ts';
import { alertAssignees, findProjectAlert, findProjectIntegration, projectAlerts, projectIntegrations } from './alert-management.finder.ts';
import { changeAlertStatus, setAlertAssignees } from './alert-actions.service.ts';
import { presentAlert, presentIntegration } from './alert-management.presenter.ts';
import {
  AlertEntity,
  AlertParams,
  CreateIntegrationBody,
  HttpIntegrationEntity,
  IntegrationParams,
  ListAlertsQuery,
  ListIntegrationsQuery,
  ProjectParams,
  UpdateAlertBody,
  type UpdateIntegrationBody,
  UpdateIntegrationBody as UpdateIntegrationSchema,
} from './alert-management.schemas.ts';
import type { AttributeMapping, JsonObject } from './alert-payload.ts';
import { type IntegrationInput, createIntegration, destroyIntegration, integrationToken, resetIntegrationToken, updateIntegration } from './http-integrations.service.ts';
import { attributeMappingOf, payloadExampleProblem } from './http-integrations.validation.ts';

const SIGNED_IN = { auth: 'required' } as const;

/** The payload example and mapping of a REST body, checked; the parameter's own 400 otherwise. */
function premiumFields(body: Pick<UpdateIntegrationBody, 'payload_example' | 'payload_attribute_mappings'>): Pick<IntegrationInput, 'payloadExample' | 'mapping'> {
  let payloadExample: JsonObject | undefined;
  let mapping: AttributeMapping | undefined;
  if (body.payload_example !== undefined) {
    const read = payloadExampleProblem(body.payload_example);
    if ('problem' in read) throw paramError(read.problem === 'too_big' ? 'payload_example JSON is too big' : 'payload_example is invalid');
    payloadExample = read.example;
  }
  if (body.payload_attribute_mappings !== undefined) {
    const read = attributeMappingOf(body.payload_attribute_mappings);
    if (!read) throw paramError('payload_attribute_mappings[][path] is invalid');
    mapping = read;
  }
  return { payloadExample, mapping };
}

export const alertManagementRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const visible = loadProject('read_project');
  const integrations = '/projects/:id/alert_management_http_integrations';

  /** The project's integration, then the Maintainer's ability. */
  async function requireIntegration(req: FastifyRequest, id: number): Promise<AlertManagementHttpIntegrationRow> {
    const project = loadedProject(req);
    const row = await findProjectIntegration(db, project.row.id, id);
    if (!row) throw apiError(404, '404 Integration Not Found');
    if (!project.can.has('admin_operations')) throw forbidden();
    return row;
  }

  const present = (req: FastifyRequest, row: AlertManagementHttpIntegrationRow) =>
    presentIntegration(row, { baseUrl: config.externalUrl, projectFullPath: loadedProject(req).row.full_path, token: integrationToken(api.deps, row) });

  api.get(
    integrations,
    { schema: { params: ProjectParams, querystring: ListIntegrationsQuery, response: { 200: Type.Array(HttpIntegrationEntity) } }, config: SIGNED_IN, preHandler: loadProject('admin_operations') },
    async (req, reply) => {
      const rows = await paginate(req, reply, projectIntegrations(db, loadedProject(req).row.id));
      return rows.map((row) => present(req, row));
    },
  );

  api.get(
    `${integrations}/:integration_id`,
    { schema: { params: IntegrationParams, response: { 200: HttpIntegrationEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => present(req, await requireIntegration(req, req.params.integration_id)),
  );

  api.post(
    integrations,
    { schema: { params: ProjectParams, body: CreateIntegrationBody, response: { 201: HttpIntegrationEntity } }, config: SIGNED_IN, preHandler: loadProject('admin_operations') },
    async (req, reply) => {
      const { name, active } = req.body;
      const row = await createIntegration(serviceContext(req), loadedProject(req).row, { name, active: active ?? true, ...premiumFields(req.body) });
      return reply.code(201).send(present(req, row));
    },
  );

  api.put(
    `${integrations}/:integration_id`,
    { schema: { params: IntegrationParams, body: UpdateIntegrationSchema, response: { 200: HttpIntegrationEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => {
      const row = await requireIntegration(req, req.params.integration_id);
      const { name, active } = req.body;
      return present(req, await updateIntegration(serviceContext(req), row, { name, active, ...premiumFields(req.body) }));
    },
  );

  api.post(
    `${integrations}/:integration_id/reset_token`,
    { schema: { params: IntegrationParams, response: { 201: HttpIntegrationEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req, reply) => {
      const row = await requireIntegration(req, req.params.integration_id);
      return reply.code(201).send(present(req, await resetIntegrationToken(serviceContext(req), row)));
    },
  );

  api.delete(
    `${integrations}/:integration_id`,
    { schema: { params: IntegrationParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: visible },
    async (req, reply) => {
      await destroyIntegration(serviceContext(req), await requireIntegration(req, req.params.integration_id));
      return reply.code(204).send();
    },
  );

  const alerts = '/projects/:id/alert_management_alerts';
  /** The alerts as entities, their assignees read in one query. */
  const presentAlerts = async (req: FastifyRequest, rows: AlertManagementAlertRow[]) => {
    const view = { baseUrl: config.externalUrl, projectFullPath: loadedProject(req).row.full_path, assignees: await alertAssignees(db, rows.map((row) => row.id)) };
    return rows.map((row) => presentAlert(row, view));
  };

  /** The project's alert, then the ability the caller needs for it. */
  async function requireAlert(req: FastifyRequest, iid: number, ability: 'read_alert_management_alert' | 'update_alert_management_alert'): Promise<AlertManagementAlertRow> {
    const project = loadedProject(req);
    const row = await findProjectAlert(db, project.row.id, iid);
    if (!row) throw apiError(404, '404 Alert Not Found');
    if (!project.can.has(ability)) throw forbidden();
    return row;
  }

  api.get(
    alerts,
    { schema: { params: ProjectParams, querystring: ListAlertsQuery, response: { 200: Type.Array(AlertEntity) } }, config: SIGNED_IN, preHandler: loadProject('read_alert_management_alert') },
    async (req, reply) => {
      const { status, severity } = req.query;
      const rows = await paginate(req, reply, projectAlerts(db, loadedProject(req).row.id, { status, severity }));
      return presentAlerts(req, rows);
    },
  );

  api.get(
    `${alerts}/:alert_iid`,
    { schema: { params: AlertParams, response: { 200: AlertEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => (await presentAlerts(req, [await requireAlert(req, req.params.alert_iid, 'read_alert_management_alert')]))[0],
  );

  api.put(
    `${alerts}/:alert_iid`,
    { schema: { params: AlertParams, body: UpdateAlertBody, response: { 200: AlertEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => {
      let alert = await requireAlert(req, req.params.alert_iid, 'update_alert_management_alert');
      const project = loadedProject(req).row;
      const ctx = serviceContext(req);
      const { status, assignee_ids: assigneeIds } = req.body;
      const steps = [
        assigneeIds === undefined ? null : () => setAlertAssignees(ctx, project, alert, assigneeIds, 'replace'),
        status === undefined || status === alert.status ? null : () => changeAlertStatus(ctx, project, alert, status),
      ];
      for (const step of steps) {
        if (!step) continue;
        const result = await step();
        if (result.errors.length > 0) throw apiError(400, result.errors[0]);
        alert = result.alert;
      }
      return (await presentAlerts(req, [alert]))[0];
    },
  );
};
