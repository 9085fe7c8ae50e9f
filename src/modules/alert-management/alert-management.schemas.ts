// Alert management's REST shapes (a Quarry extension: in 14.x the platform offers these through
// GraphQL only): a project's HTTP integrations, with their address and token, which only those
// who manage them see; and the alerts they received, their status and assignee changed as the
// GraphQL mutations do.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';
import { MAPPABLE_FIELDS, MAPPING_TYPES, SEVERITIES, STATUSES } from './alert-payload.ts';

const JsonObject = Type.Record(Type.String(), Type.Unknown());
const PathSegment = Type.Union([Type.String(), Type.Integer()]);

export const FieldMappingEntity = Entity({
  field_name: Literals(MAPPABLE_FIELDS),
  path: Type.Array(PathSegment),
  type: Literals(MAPPING_TYPES),
  label: Nullable(Type.String()),
});

export const HttpIntegrationEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  active: Type.Boolean(),
  type: Type.Literal('http'),
  /** Where the monitoring tool posts its alerts. */
  url: Type.String(),
  /** What it sends as `Authorization: Bearer <token>`. */
  token: Type.String(),
  /** Only Prometheus integrations have an API address. */
  api_url: Type.Null(),
  payload_example: JsonObject,
  payload_attribute_mappings: Type.Array(FieldMappingEntity),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type HttpIntegration = Static<typeof HttpIntegrationEntity>;

export const AlertEntity = Entity({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  severity: Literals(SEVERITIES),
  status: Literals(STATUSES),
  service: Nullable(Type.String()),
  monitoring_tool: Nullable(Type.String()),
  hosts: Type.Array(Type.String()),
  /** How many times the alert was received. */
  event_count: Type.Integer(),
  fingerprint: Nullable(Type.String()),
  started_at: Timestamp,
  ended_at: Nullable(Timestamp),
  /** The payload as last received (the first one, for an alert received again). */
  payload: JsonObject,
  /** Who the alert is assigned to (one user at most, as the platform). */
  assignees: Type.Array(Entity(userBasicFields)),
  web_url: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Alert = Static<typeof AlertEntity>;

/** What the alert receiver answers (14.5): each alert the payload created or touched. */
export const NotifiedAlertEntity = Entity({ iid: Type.Integer(), title: Type.String() });

export const ProjectParams = Params({ id: IdOrPath });
export const IntegrationParams = Params({ id: IdOrPath, integration_id: Type.Integer() });
export const AlertParams = Params({ id: IdOrPath, alert_iid: Type.Integer() });
export const ListIntegrationsQuery = Params({ ...PageParams });
export const ListAlertsQuery = Params({
  ...PageParams,
  status: Type.Optional(OneOf(STATUSES)),
  severity: Type.Optional(OneOf(SEVERITIES)),
});

/** PUT …/alert_management_alerts/:alert_iid: a new status, new assignees (replacing the others), or both. */
export const UpdateAlertBody = Params(
  {
    status: Type.Optional(OneOf(STATUSES)),
    assignee_ids: Type.Optional(CommaList(Type.Integer())),
  },
  { 'x-at-least-one-of': [['status', 'assignee_ids']] },
);

const FieldMappingParams = Params({
  field_name: OneOf(MAPPABLE_FIELDS),
  /** Keys and array indexes, from the payload's top down; checked by the service. */
  path: Type.Unknown(),
  type: OneOf(MAPPING_TYPES),
  label: Type.Optional(Type.String()),
});

const integrationFields = {
  /** A JSON object, or its text. */
  payload_example: Type.Optional(Type.Union([Type.String(), JsonObject])),
  payload_attribute_mappings: Type.Optional(Type.Array(FieldMappingParams)),
};

export const CreateIntegrationBody = Params({
  name: Type.String(),
  active: Type.Optional(Bool({ default: true })),
  ...integrationFields,
});
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;

export const UpdateIntegrationBody = Params({
  name: Type.Optional(Type.String()),
  active: Type.Optional(Bool()),
  ...integrationFields,
});
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;
export type FieldMappingInput = Static<typeof FieldMappingParams>;
