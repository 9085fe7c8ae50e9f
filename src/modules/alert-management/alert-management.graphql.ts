// Alert management in GraphQL, as the platform serves it (14.x with the premium fields):
//   project { alertManagementHttpIntegrations(id:) { nodes { id type name active token url apiUrl
//     payloadExample payloadAttributeMappings { fieldName path type label } } } }
//   project { alertManagementAlerts(iid:, statuses:) { nodes { iid title severity status
//     eventCount startedAt endedAt … } } }
//   httpIntegrationCreate, httpIntegrationUpdate, httpIntegrationResetToken, httpIntegrationDestroy
//     (input { … clientMutationId } → { integration { … } errors clientMutationId })
//   updateAlertStatus, alertSetAssignees, alertTodoCreate and the alert's assignees, todos and
//     notes (alert-actions.graphql.ts)
// Lists the caller may not read are empty (integrations need Maintainer, alerts Developer); a
// mutation on a project or integration the caller may not manage (or that does not exist) is the
// platform's "resource not available" error. Model failures come back in `errors`, in full
// messages ("Name can't be blank"), with no integration.
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type ValueNode,
} from 'graphql';
import type { SelectQueryBuilder } from 'kysely';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import type { ServiceContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import type { AlertManagementAlertRow, AlertManagementHttpIntegrationRow, ProjectRow } from '../../db/schema.ts';
import { type ConnectionArgs, connectionArgs, connectionType, keysetConnection } from '../../graphql/connection.ts';
import { type GraphqlContext, mutationContext, resourceNotAvailable } from '../../graphql/context.ts';
import type { GraphqlContribution, GraphqlProject } from '../../graphql/contribution.ts';
import { globalId, globalIdScalar, parseGlobalId } from '../../graphql/ids.ts';
import { TimeType } from '../../graphql/types.ts';
import { findIntegration, projectAlerts, projectIntegrations } from './alert-management.finder.ts';
import { alertWebUrl, fieldMappings, integrationUrl } from './alert-management.presenter.ts';
import { MAPPABLE_FIELDS, MAPPING_TYPES, SEVERITIES, STATUSES } from './alert-payload.ts';
import { type Owned, alertActionFields, alertActionMutations } from './alert-actions.graphql.ts';
import { createIntegration, destroyIntegration, integrationToken, resetIntegrationToken, updateIntegration } from './http-integrations.service.ts';
import { type FieldMappingInput, attributeMappingOf, fullMessages, mappingOf, payloadExampleProblem, payloadExampleOf } from './http-integrations.validation.ts';

const INTEGRATION_MODEL = 'AlertManagement::HttpIntegration';
const ALERT_MODEL = 'AlertManagement::Alert';


/** An enum whose GraphQL names are the stored values in upper case. */
function upperEnum(name: string, values: readonly string[], description: string): GraphQLEnumType {
  return new GraphQLEnumType({ name, description, values: Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v }])) });
}

const SeverityEnum = upperEnum('AlertManagementSeverity', SEVERITIES, 'Alert severity values.');
const StatusEnum = upperEnum('AlertManagementStatus', STATUSES, 'Alert status values.');
const IntegrationTypeEnum = upperEnum('AlertManagementIntegrationType', ['prometheus', 'http'], 'Values of types of integrations.');
const FieldNameEnum = upperEnum('AlertManagementPayloadAlertFieldName', MAPPABLE_FIELDS, 'Values for alert field names used in the custom mapping.');
const FieldTypeEnum = upperEnum('AlertManagementPayloadAlertFieldType', MAPPING_TYPES, 'Values for alert field types used in the custom mapping.');

/** JSON given and shown as text. */
const JsonStringType = new GraphQLScalarType<unknown, string>({
  name: 'JsonString',
  description: 'JSON object as raw string.',
  serialize: (value) => JSON.stringify(value),
  parseValue: (value) => {
    if (typeof value !== 'string') throw new GraphQLError('JsonString must be a string');
    try {
      return JSON.parse(value);
    } catch {
      throw new GraphQLError('Invalid JSON string');
    }
  },
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('JsonString must be a string');
    try {
      return JSON.parse(ast.value);
    } catch {
      throw new GraphQLError('Invalid JSON string');
    }
  },
});

/** A key (text) or an array index (a whole number) of a path into a payload. */
const PathSegmentType = new GraphQLScalarType<string | number, string | number>({
  name: 'PayloadAlertFieldPathSegment',
  description: 'String or integer.',
  serialize: (value) => value as string | number,
  parseValue: (value) => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))) return value;
    throw new GraphQLError('PayloadAlertFieldPathSegment must be a string or an integer');
  },
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.STRING) return ast.value;
    if (ast.kind === Kind.INT) return Number(ast.value);
    throw new GraphQLError('PayloadAlertFieldPathSegment must be a string or an integer');
  },
});

/** The global ID of an HTTP integration, as text. */
const IntegrationIdType = globalIdScalar('AlertManagementHttpIntegrationID', INTEGRATION_MODEL);

const MappingFieldType = new GraphQLObjectType<ReturnType<typeof fieldMappings>[number], GraphqlContext>({
  name: 'AlertManagementPayloadAlertMappingField',
  description: 'Parsed field (with its name) from an alert used for custom mappings.',
  fields: {
    fieldName: { type: FieldNameEnum, resolve: (m) => m.field_name },
    label: { type: GraphQLString },
    path: { type: new GraphQLList(new GraphQLNonNull(PathSegmentType)) },
    type: { type: FieldTypeEnum },
  },
});

const IntegrationType = new GraphQLObjectType<Owned<AlertManagementHttpIntegrationRow>, GraphqlContext>({
  name: 'AlertManagementHttpIntegration',
  description: 'An endpoint and credentials used to accept alerts for a project.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: ({ row }) => globalId(INTEGRATION_MODEL, row.id) },
    type: { type: new GraphQLNonNull(IntegrationTypeEnum), resolve: () => 'http' },
    name: { type: GraphQLString, resolve: ({ row }) => row.name },
    active: { type: GraphQLBoolean, resolve: ({ row }) => row.active },
    token: { type: GraphQLString, resolve: ({ row }, _args, ctx) => integrationToken(ctx.deps, row) },
    url: { type: GraphQLString, resolve: ({ row, projectFullPath }, _args, ctx) => integrationUrl(row, ctx.deps.config.externalUrl, projectFullPath) },
    apiUrl: { type: GraphQLString, description: 'Only Prometheus integrations have one.', resolve: () => null },
    payloadExample: { type: JsonStringType, resolve: ({ row }) => payloadExampleOf(row) },
    payloadAttributeMappings: { type: new GraphQLList(new GraphQLNonNull(MappingFieldType)), resolve: ({ row }) => fieldMappings(mappingOf(row)) },
  },
});

const AlertType = new GraphQLObjectType<Owned<AlertManagementAlertRow>, GraphqlContext>({
  name: 'AlertManagementAlert',
  description: 'Describes an alert from the project\'s Alert Management.',
  fields: () => ({
    id: { type: new GraphQLNonNull(GraphQLID), resolve: ({ row }) => globalId(ALERT_MODEL, row.id) },
    iid: { type: new GraphQLNonNull(GraphQLID), description: 'Internal ID of the alert.', resolve: ({ row }) => String(row.iid) },
    title: { type: GraphQLString, resolve: ({ row }) => row.title },
    description: { type: GraphQLString, resolve: ({ row }) => row.description },
    severity: { type: SeverityEnum, resolve: ({ row }) => row.severity },
    status: { type: StatusEnum, resolve: ({ row }) => row.status },
    service: { type: GraphQLString, resolve: ({ row }) => row.service },
    monitoringTool: { type: GraphQLString, resolve: ({ row }) => row.monitoring_tool },
    hosts: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)), resolve: ({ row }) => JSON.parse(row.hosts) as string[] },
    eventCount: { type: GraphQLInt, description: 'Number of events of this alert.', resolve: ({ row }) => row.events },
    startedAt: { type: TimeType, resolve: ({ row }) => row.started_at },
    endedAt: { type: TimeType, resolve: ({ row }) => row.ended_at },
    createdAt: { type: TimeType, resolve: ({ row }) => row.created_at },
    updatedAt: { type: TimeType, resolve: ({ row }) => row.updated_at },
    detailsUrl: { type: new GraphQLNonNull(GraphQLString), resolve: ({ row, projectFullPath }, _args, ctx) => alertWebUrl(ctx.deps.config.externalUrl, projectFullPath, row.iid) },
    webUrl: { type: new GraphQLNonNull(GraphQLString), resolve: ({ row, projectFullPath }, _args, ctx) => alertWebUrl(ctx.deps.config.externalUrl, projectFullPath, row.iid) },
    ...alertActionFields(),
  }),
});

/** The connection with each node paired with its project's path. */
async function ownedConnection<Row extends { id: number }>(
  project: GraphqlProject,
  query: SelectQueryBuilder<any, any, Row>,
  direction: 'asc' | 'desc',
  args: ConnectionArgs,
) {
  const page = await keysetConnection<Row>(
    { query, keys: [{ column: 'id', direction, value: (row) => row.id }], count: async () => Number((await query.clearSelect().select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0) },
    args,
  );
  const batch = { ids: page.nodes.map((row) => row.id) };
  const owned = (row: Row): Owned<Row> => ({ row, projectFullPath: project.row.full_path, batch });
  return { ...page, nodes: page.nodes.map(owned), edges: page.edges.map((e) => ({ cursor: e.cursor, node: owned(e.node) })) };
}

/** An empty page: what a caller who may not read the list sees. */
const EMPTY = { nodes: [], edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, count: async () => 0 };

function projectFields(): GraphQLFieldConfigMap<GraphqlProject, GraphqlContext> {
  return {
    alertManagementHttpIntegrations: {
      type: connectionType(IntegrationType),
      description: 'HTTP Integrations which can receive alerts for the project.',
      args: { ...connectionArgs, id: { type: IntegrationIdType, description: 'ID of the integration.' } },
      resolve: async (project, args: ConnectionArgs & { id?: string | null }, ctx) => {
        if (!project.can.has('admin_operations')) return EMPTY;
        const id = args.id ? parseGlobalId(args.id, INTEGRATION_MODEL) : null;
        const query = projectIntegrations(ctx.deps.db, project.row.id).clearOrderBy().$if(id !== null, (q) => q.where('id', '=', id as number));
        return ownedConnection(project, query, 'asc', args);
      },
    },
    alertManagementAlerts: {
      type: connectionType(AlertType),
      description: 'Alert Management alerts of the project.',
      args: {
        ...connectionArgs,
        iid: { type: GraphQLString, description: 'IID of the alert. For example, "1".' },
        statuses: { type: new GraphQLList(new GraphQLNonNull(StatusEnum)), description: 'Alerts with the specified statues. For example, `[TRIGGERED]`.' },
      },
      resolve: async (project, args: ConnectionArgs & { iid?: string | null; statuses?: string[] | null }, ctx) => {
        if (!project.can.has('read_alert_management_alert')) return EMPTY;
        const iid = args.iid === null || args.iid === undefined ? null : Number(args.iid);
        if (iid !== null && !Number.isSafeInteger(iid)) return EMPTY;
        const query = projectAlerts(ctx.deps.db, project.row.id)
          .clearOrderBy()
          .$if(iid !== null, (q) => q.where('iid', '=', iid as number))
          .$if(!!args.statuses && args.statuses.length > 0, (q) => q.where('status', 'in', args.statuses as string[]));
        return ownedConnection(project, query, 'desc', args);
      },
    },
  };
}

// ---- Mutations ------------------------------------------------------------------------------------

interface IntegrationArgs {
  clientMutationId?: string | null;
  name?: string | null;
  active?: boolean | null;
  payloadExample?: unknown;
  payloadAttributeMappings?: { fieldName: FieldMappingInput['field_name']; path: unknown; label?: string | null; type: FieldMappingInput['type'] }[] | null;
}

const MappingInputType = new GraphQLInputObjectType({
  name: 'AlertManagementPayloadAlertFieldInput',
  description: 'Field that are available while modifying the custom mapping attributes for an HTTP integration.',
  fields: {
    fieldName: { type: new GraphQLNonNull(FieldNameEnum) },
    path: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(PathSegmentType))) },
    label: { type: GraphQLString },
    type: { type: new GraphQLNonNull(FieldTypeEnum) },
  },
});

const premiumInputFields = {
  payloadExample: { type: JsonStringType, description: 'Example of an alert payload.' },
  payloadAttributeMappings: { type: new GraphQLList(new GraphQLNonNull(MappingInputType)), description: 'Custom mapping of GitLab alert attributes to fields from the payload example.' },
};

function payloadType(name: string): GraphQLObjectType {
  return new GraphQLObjectType({
    name: `${name}Payload`,
    description: `Autogenerated return type of ${name}.`,
    fields: {
      clientMutationId: { type: GraphQLString },
      errors: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
      integration: { type: IntegrationType, description: 'HTTP integration.' },
    },
  });
}

function inputType(name: string, fields: Record<string, { type: unknown; description?: string }>): GraphQLNonNull<GraphQLInputObjectType> {
  return new GraphQLNonNull(
    new GraphQLInputObjectType({
      name: `${name}Input`,
      description: `Autogenerated input type of ${name}.`,
      fields: { clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' }, ...fields } as never,
    }),
  );
}

/** The payload example and mapping of the arguments; their argument errors as the platform words them. */
function premiumArgs(args: IntegrationArgs) {
  let payloadExample;
  let mapping;
  if (args.payloadExample !== undefined && args.payloadExample !== null) {
    const read = payloadExampleProblem(args.payloadExample);
    if ('problem' in read) throw new GraphQLError(read.problem === 'too_big' ? 'payloadExample JSON is too big' : 'payloadExample must be a JSON object');
    payloadExample = read.example;
  }
  if (args.payloadAttributeMappings !== undefined && args.payloadAttributeMappings !== null) {
    const read = attributeMappingOf(args.payloadAttributeMappings.map((m) => ({ field_name: m.fieldName, path: m.path, type: m.type, label: m.label })));
    if (!read) throw new GraphQLError('payloadAttributeMappings: a path is a list of keys and array indexes');
    mapping = read;
  }
  return { payloadExample, mapping };
}

/** The project the caller manages the integrations of, or the platform's refusal. */
async function managedProject(ctx: GraphqlContext, project: ProjectRow | undefined): Promise<ProjectRow> {
  if (!project) throw resourceNotAvailable();
  const { can } = await accessToProject(ctx.request, project);
  if (!can.has('admin_operations')) throw resourceNotAvailable();
  return project;
}

/** The integration a global ID names, when the caller manages its project. */
async function managedIntegration(ctx: GraphqlContext, id: string): Promise<{ row: AlertManagementHttpIntegrationRow; project: ProjectRow }> {
  const row = await findIntegration(ctx.deps.db, parseGlobalId(id, INTEGRATION_MODEL));
  if (!row) throw resourceNotAvailable();
  const project = await ctx.deps.db.selectFrom('projects').selectAll().where('id', '=', row.project_id).executeTakeFirst();
  return { row, project: await managedProject(ctx, project) };
}

/** Runs a service; a model failure becomes the payload's `errors`, with no integration. */
async function answer(
  args: { clientMutationId?: string | null },
  project: ProjectRow,
  write: () => Promise<AlertManagementHttpIntegrationRow>,
): Promise<{ clientMutationId: string | null; errors: string[]; integration: Owned<AlertManagementHttpIntegrationRow> | null }> {
  const clientMutationId = args.clientMutationId ?? null;
  try {
    return { clientMutationId, errors: [], integration: { row: await write(), projectFullPath: project.full_path } };
  } catch (error) {
    if (error instanceof DomainError && error.fields && !Array.isArray(error.fields)) return { clientMutationId, errors: fullMessages(error.fields as Record<string, string[]>), integration: null };
    throw error;
  }
}

function mutation(name: string, fields: Record<string, { type: unknown; description?: string }>, resolve: (input: never, ctx: GraphqlContext, service: ServiceContext) => Promise<unknown>): GraphQLFieldConfig<unknown, GraphqlContext> {
  return {
    type: payloadType(name),
    args: { input: { type: inputType(name, fields) } },
    resolve: (_root, args: { input: never }, ctx) => resolve(args.input, ctx, mutationContext(ctx)),
  };
}

function mutationFields(): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const id = { type: new GraphQLNonNull(IntegrationIdType), description: 'ID of the integration to mutate.' };
  return {
    httpIntegrationCreate: mutation(
      'HttpIntegrationCreate',
      {
        projectPath: { type: new GraphQLNonNull(GraphQLID), description: 'Project to create the integration in.' },
        name: { type: new GraphQLNonNull(GraphQLString), description: 'Name of the integration.' },
        active: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether the integration is receiving alerts.' },
        ...premiumInputFields,
      },
      async (input: IntegrationArgs & { projectPath: string; name: string; active: boolean }, ctx, service) => {
        const project = await managedProject(ctx, (await findProjectByFullPath(service.db, input.projectPath))?.row);
        const premium = premiumArgs(input);
        return answer(input, project, () => createIntegration(service, project, { name: input.name, active: input.active, ...premium }));
      },
    ),
    httpIntegrationUpdate: mutation(
      'HttpIntegrationUpdate',
      { id, name: { type: GraphQLString, description: 'Name of the integration.' }, active: { type: GraphQLBoolean, description: 'Whether the integration is receiving alerts.' }, ...premiumInputFields },
      async (input: IntegrationArgs & { id: string }, ctx, service) => {
        const { row, project } = await managedIntegration(ctx, input.id);
        const premium = premiumArgs(input);
        return answer(input, project, () => updateIntegration(service, row, { name: input.name ?? undefined, active: input.active ?? undefined, ...premium }));
      },
    ),
    httpIntegrationResetToken: mutation('HttpIntegrationResetToken', { id }, async (input: { id: string; clientMutationId?: string | null }, ctx, service) => {
      const { row, project } = await managedIntegration(ctx, input.id);
      return answer(input, project, () => resetIntegrationToken(service, row));
    }),
    httpIntegrationDestroy: mutation('HttpIntegrationDestroy', { id: { ...id, description: 'ID of the integration to remove.' } }, async (input: { id: string; clientMutationId?: string | null }, ctx, service) => {
      const { row, project } = await managedIntegration(ctx, input.id);
      return answer(input, project, async () => {
        await destroyIntegration(service, row);
        return row;
      });
    }),
    ...alertActionMutations(AlertType, StatusEnum),
  };
}

export const alertManagementGraphql: GraphqlContribution = { projectFields, mutationFields };
