// The integrated tracker's errors through GraphQL, as the platform serves them to its clients:
// `project { sentryErrors { errors(…) detailedError(id:) errorStackTrace(id:) externalUrl } }`,
// for Reporters and up (null for anyone else). Fields the integrated tracker has no data for
// answer as the platform's integrated tracker does: no users counted, no frequency series, no
// release or commit.
//
// Changing an error's status: the platform does it only through its web interface's JSON route
// (error-tracking-web.routes.ts); Quarry adds the mutation `updateSentryErrorStatus(input {
// projectPath id status })` → `{ error errors clientMutationId }`, shaped as the platform's
// `updateAlertStatus`: for callers with update_sentry_issue, the same refusal whatever is missing,
// and a change the tracker refuses in `errors` beside the unchanged error.
import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { ErrorTrackingErrorEventRow, ErrorTrackingErrorRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { type ConnectionArgs, connectionArgs, connectionType, keysetConnection } from '../../graphql/connection.ts';
import { type GraphqlContext, mutationContext, resourceNotAvailable } from '../../graphql/context.ts';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import type { GraphqlContribution, GraphqlProject } from '../../graphql/contribution.ts';
import { globalId, globalIdScalar, parseGlobalId } from '../../graphql/ids.ts';
import { TimeType } from '../../graphql/types.ts';
import { ERROR_ORDER, countErrors, findError, findSettings, latestEvent, projectErrors } from './error-tracking.finder.ts';
import { presentEvent } from './error-tracking.presenter.ts';
import { ERROR_SORTS, ERROR_STATUSES, type ErrorSort, type ErrorStatus } from './error-tracking.schemas.ts';
import { updateErrorStatus } from './error-tracking.service.ts';

const ERROR_MODEL = 'Gitlab::ErrorTracking::Error';
const DETAILED_ERROR_MODEL = 'Gitlab::ErrorTracking::DetailedError';

/** An error with the project it belongs to, which several fields name. */
interface ErrorNode {
  row: ErrorTrackingErrorRow;
  project: GraphqlProject;
}

interface DetailedNode extends ErrorNode {
  event: ErrorTrackingErrorEventRow | null;
}

const DetailedErrorIdType = globalIdScalar('GitlabErrorTrackingDetailedErrorID', DETAILED_ERROR_MODEL);

const StatusType = new GraphQLEnumType({
  name: 'SentryErrorStatus',
  description: 'State of a Sentry error.',
  values: {
    RESOLVED: { value: 'resolved', description: 'Error has been resolved.' },
    RESOLVED_IN_NEXT_RELEASE: { value: 'resolvedInNextRelease', description: 'Error has been ignored until next release.' },
    UNRESOLVED: { value: 'unresolved', description: 'Error is unresolved.' },
    IGNORED: { value: 'ignored', description: 'Error has been ignored.' },
  },
});

const FrequencyType = new GraphQLObjectType({
  name: 'SentryErrorFrequency',
  fields: { count: { type: new GraphQLNonNull(GraphQLInt) }, time: { type: new GraphQLNonNull(TimeType) } },
});

const TagsType = new GraphQLObjectType<ErrorTrackingErrorEventRow | null>({
  name: 'SentryErrorTags',
  description: 'State of a Sentry error.',
  fields: {
    level: { type: GraphQLString, description: 'Severity level of the Sentry Error.', resolve: (event) => event?.level ?? null },
    logger: { type: GraphQLString, description: 'Logger of the Sentry Error.', resolve: (event) => loggerOf(event) },
  },
});

function loggerOf(event: ErrorTrackingErrorEventRow | null): string | null {
  if (!event) return null;
  try {
    const payload = JSON.parse(event.payload) as { logger?: unknown };
    return typeof payload.logger === 'string' ? payload.logger : null;
  } catch {
    return null;
  }
}

const errorUrl = (node: ErrorNode, ctx: GraphqlContext) => `${projectWebUrl(ctx.deps.config.externalUrl, node.project.row)}/-/error_tracking/${node.row.id}/details`;

/** The fields SentryError and SentryDetailedError share. */
function errorFields<T extends ErrorNode>(): GraphQLFieldConfigMap<T, GraphqlContext> {
  return {
    id: { type: new GraphQLNonNull(GraphQLID), description: 'ID (global ID) of the error.', resolve: (n) => globalId(ERROR_MODEL, n.row.id) },
    sentryId: { type: new GraphQLNonNull(GraphQLString), description: 'ID (Sentry ID) of the error.', resolve: (n) => String(n.row.id) },
    shortId: { type: new GraphQLNonNull(GraphQLString), description: 'Short ID (Sentry ID) of the error.', resolve: (n) => String(n.row.id) },
    title: { type: new GraphQLNonNull(GraphQLString), description: 'Title of the error.', resolve: (n) => (n.row.description ? `${n.row.name}: ${n.row.description}` : n.row.name) },
    type: { type: new GraphQLNonNull(GraphQLString), description: 'Type of the error.', resolve: () => 'error' },
    message: { type: GraphQLString, description: 'Sentry metadata message of the error.', resolve: (n) => n.row.description || null },
    culprit: { type: new GraphQLNonNull(GraphQLString), description: 'Culprit of the error.', resolve: (n) => n.row.actor },
    count: { type: new GraphQLNonNull(GraphQLInt), description: 'Count of occurrences.', resolve: (n) => Number(n.row.events_count) },
    userCount: { type: new GraphQLNonNull(GraphQLInt), description: 'Count of users affected by the error.', resolve: () => 0 },
    firstSeen: { type: new GraphQLNonNull(TimeType), description: 'Timestamp when the error was first seen.', resolve: (n) => n.row.first_seen_at },
    lastSeen: { type: new GraphQLNonNull(TimeType), description: 'Timestamp when the error was last seen.', resolve: (n) => n.row.last_seen_at },
    status: { type: new GraphQLNonNull(StatusType), description: 'Status of the error.', resolve: (n) => n.row.status },
    frequency: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(FrequencyType))), description: 'Last 24hr stats of the error.', resolve: () => [] },
    externalUrl: { type: new GraphQLNonNull(GraphQLString), description: 'External URL of the error.', resolve: (n, _a, ctx) => errorUrl(n, ctx) },
    sentryProjectId: { type: new GraphQLNonNull(GraphQLID), description: 'ID of the project (Sentry project).', resolve: (n) => globalId('Project', n.project.row.id) },
    sentryProjectName: { type: new GraphQLNonNull(GraphQLString), description: 'Name of the project affected by the error.', resolve: (n) => n.project.row.name },
    sentryProjectSlug: { type: new GraphQLNonNull(GraphQLString), description: 'Slug of the project affected by the error.', resolve: (n) => n.project.row.path },
  };
}

const SentryErrorType = new GraphQLObjectType<ErrorNode, GraphqlContext>({
  name: 'SentryError',
  description: 'A Sentry error. A simplified version of SentryDetailedError',
  fields: errorFields<ErrorNode>,
});

const nullString = { type: GraphQLString, resolve: () => null };

const SentryDetailedErrorType = new GraphQLObjectType<DetailedNode, GraphqlContext>({
  name: 'SentryDetailedError',
  description: 'A Sentry error',
  fields: () => ({
    ...errorFields<DetailedNode>(),
    externalBaseUrl: { type: new GraphQLNonNull(GraphQLString), description: 'External Base URL of the Sentry Instance.', resolve: (n, _a, ctx) => projectWebUrl(ctx.deps.config.externalUrl, n.project.row) },
    firstReleaseLastCommit: nullString,
    lastReleaseLastCommit: nullString,
    firstReleaseShortVersion: nullString,
    lastReleaseShortVersion: nullString,
    firstReleaseVersion: nullString,
    lastReleaseVersion: nullString,
    gitlabCommit: nullString,
    gitlabCommitPath: nullString,
    gitlabIssuePath: nullString,
    integrated: { type: GraphQLString, resolve: () => null },
    tags: { type: new GraphQLNonNull(TagsType), description: 'Tags associated with the Sentry Error.', resolve: (n) => n.event },
  }),
});

const ContextLineType = new GraphQLObjectType({
  name: 'SentryErrorStackTraceContext',
  fields: { line: { type: new GraphQLNonNull(GraphQLInt) }, code: { type: new GraphQLNonNull(GraphQLString) } },
});

interface StackEntry {
  function: string | null;
  col: string | null;
  line: string | null;
  fileName: string | null;
  traceContext: { line: number; code: string }[];
}

const StackEntryType = new GraphQLObjectType<StackEntry>({
  name: 'SentryErrorStackTraceEntry',
  description: 'An object containing a stack trace entry for a Sentry error',
  fields: {
    function: { type: GraphQLString },
    col: { type: GraphQLString },
    line: { type: GraphQLString },
    fileName: { type: GraphQLString },
    traceContext: { type: new GraphQLList(new GraphQLNonNull(ContextLineType)) },
  },
});

const StackTraceType = new GraphQLObjectType<DetailedNode>({
  name: 'SentryErrorStackTrace',
  description: 'An object containing a stack trace entry for a Sentry error',
  fields: {
    issueId: { type: new GraphQLNonNull(GraphQLString), resolve: (n) => String(n.row.id) },
    dateReceived: { type: new GraphQLNonNull(GraphQLString), resolve: (n) => n.event?.occurred_at ?? n.row.last_seen_at },
    stackTraceEntries: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(StackEntryType))), resolve: (n) => stackEntries(n.event) },
  },
});

/** The latest event's frames with their source lines, as the platform lists them. */
function stackEntries(event: ErrorTrackingErrorEventRow | null): StackEntry[] {
  if (!event) return [];
  let frames: unknown[] = [];
  try {
    const payload = JSON.parse(event.payload) as { exception?: { values?: { stacktrace?: { frames?: unknown[] } }[] } };
    frames = payload.exception?.values?.[0]?.stacktrace?.frames ?? [];
  } catch {
    return [];
  }
  const listed = presentEvent(event).stack_trace;
  return listed.map((frame, i) => {
    const raw = (frames[i] ?? {}) as { pre_context?: unknown; context_line?: unknown; post_context?: unknown };
    const lines = (v: unknown) => (Array.isArray(v) ? v.filter((l): l is string => typeof l === 'string') : []);
    const pre = lines(raw.pre_context);
    const context: { line: number; code: string }[] = [];
    if (frame.lineno !== null && typeof raw.context_line === 'string') {
      pre.forEach((code, j) => context.push({ line: (frame.lineno as number) - pre.length + j, code }));
      context.push({ line: frame.lineno, code: raw.context_line });
      lines(raw.post_context).forEach((code, j) => context.push({ line: (frame.lineno as number) + 1 + j, code }));
    }
    return {
      function: frame.function,
      col: frame.colno === null ? null : String(frame.colno),
      line: frame.lineno === null ? null : String(frame.lineno),
      fileName: frame.filename,
      traceContext: context,
    };
  });
}

/** The error a detailed-error ID names in this project, with its latest event; null when it names none. */
async function detailed(project: GraphqlProject, id: string, ctx: GraphqlContext): Promise<DetailedNode | null> {
  const errorId = parseGlobalId(id, DETAILED_ERROR_MODEL);
  const row = await findError(ctx.deps.db, project.row.id, errorId);
  if (!row) return null;
  return { row, project, event: await latestEvent(ctx.deps.db, row.id) };
}

interface ErrorsArgs extends ConnectionArgs {
  searchTerm?: string | null;
  sort?: string | null;
}

const SentryErrorCollectionType = new GraphQLObjectType<GraphqlProject, GraphqlContext>({
  name: 'SentryErrorCollection',
  description: 'An object containing a collection of Sentry errors, and a detailed error',
  fields: () => ({
    errors: {
      type: connectionType(SentryErrorType),
      description: 'Collection of Sentry Errors.',
      args: {
        ...connectionArgs,
        searchTerm: { type: GraphQLString, description: 'Search query for the Sentry error details.' },
        sort: { type: GraphQLString, description: 'Attribute to sort on. Options are frequency, first_seen, last_seen. last_seen is default.' },
      },
      resolve: async (project, args: ErrorsArgs, ctx) => {
        const sort: ErrorSort = (ERROR_SORTS as readonly string[]).includes(args.sort ?? '') ? (args.sort as ErrorSort) : 'last_seen';
        const order = ERROR_ORDER[sort];
        const filters = { search: args.searchTerm ?? null };
        const page = await keysetConnection(
          {
            query: projectErrors(ctx.deps.db, project.row.id, filters),
            keys: [
              { column: order.column, direction: 'desc', value: order.value },
              { column: 'id', direction: 'desc', value: (row: ErrorTrackingErrorRow) => row.id },
            ],
            count: () => countErrors(ctx.deps.db, project.row.id, filters),
          },
          args,
        );
        const wrap = (row: ErrorTrackingErrorRow): ErrorNode => ({ row, project });
        return { ...page, nodes: page.nodes.map(wrap), edges: page.edges.map((e) => ({ cursor: e.cursor, node: wrap(e.node) })) };
      },
    },
    detailedError: {
      type: SentryDetailedErrorType,
      description: 'Detailed version of a Sentry error on the project.',
      args: { id: { type: new GraphQLNonNull(DetailedErrorIdType), description: 'ID of the Sentry issue.' } },
      resolve: (project, args: { id: string }, ctx) => detailed(project, args.id, ctx),
    },
    errorStackTrace: {
      type: StackTraceType,
      description: 'Stack Trace of Sentry Error.',
      args: { id: { type: new GraphQLNonNull(DetailedErrorIdType), description: 'ID of the Sentry issue.' } },
      resolve: (project, args: { id: string }, ctx) => detailed(project, args.id, ctx),
    },
    externalUrl: { type: GraphQLString, description: 'External URL for Sentry.', resolve: (project, _a, ctx) => `${projectWebUrl(ctx.deps.config.externalUrl, project.row)}/-/error_tracking` },
  }),
});

interface UpdateStatusInput {
  projectPath: string;
  id: string;
  status: string;
  clientMutationId?: string | null;
}

const UpdateStatusPayload = new GraphQLObjectType<{ clientMutationId: string | null; errors: string[]; error: DetailedNode }, GraphqlContext>({
  name: 'UpdateSentryErrorStatusPayload',
  description: 'Autogenerated return type of UpdateSentryErrorStatus.',
  fields: () => ({
    clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' },
    errors: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Errors encountered during execution of the mutation.' },
    error: { type: SentryDetailedErrorType, description: 'Error after mutation.' },
  }),
});

const UpdateStatusInputType = new GraphQLInputObjectType({
  name: 'UpdateSentryErrorStatusInput',
  description: 'Autogenerated input type of UpdateSentryErrorStatus.',
  fields: () => ({
    projectPath: { type: new GraphQLNonNull(GraphQLID), description: 'Project the error to mutate is in.' },
    id: { type: new GraphQLNonNull(DetailedErrorIdType), description: 'ID of the Sentry issue.' },
    status: { type: new GraphQLNonNull(StatusType), description: 'Status to set the error.' },
    clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' },
  }),
});

/** The integrated tracker keeps these; `resolvedInNextRelease` needs releases it does not know. */
const storable = (status: string): status is ErrorStatus => (ERROR_STATUSES as readonly string[]).includes(status);

async function updateStatus(input: UpdateStatusInput, ctx: GraphqlContext) {
  const service = mutationContext(ctx);
  const errorId = parseGlobalId(input.id, DETAILED_ERROR_MODEL);
  const found = await findProjectByFullPath(ctx.deps.db, input.projectPath);
  if (!found) throw resourceNotAvailable();
  const { access, can } = await accessToProject(ctx.request, found.row);
  if (!can.has('update_sentry_issue')) throw resourceNotAvailable();
  const row = await findError(ctx.deps.db, found.row.id, errorId);
  if (!row) throw resourceNotAvailable();
  const project: GraphqlProject = { ...found, access, can };
  const answer = async (next: ErrorTrackingErrorRow, errors: string[]) => ({
    clientMutationId: input.clientMutationId ?? null,
    errors,
    error: { row: next, project, event: await latestEvent(ctx.deps.db, next.id) },
  });
  if (!(await findSettings(ctx.deps.db, found.row.id))?.enabled) return answer(row, ['Error Tracking is not enabled']);
  if (!storable(input.status)) return answer(row, ['Status is not supported by the integrated error tracker']);
  return answer(await updateErrorStatus(service, row, input.status), []);
}

export const errorTrackingGraphql: GraphqlContribution = {
  projectFields: () => ({
    sentryErrors: {
      type: SentryErrorCollectionType,
      description: 'Paginated collection of Sentry errors on the project.',
      // Reporters and up; the platform answers null to anyone else.
      resolve: (project) => (project.can.has('read_sentry_issue') ? project : null),
    },
  }),
  mutationFields: () => ({
    updateSentryErrorStatus: {
      type: UpdateStatusPayload,
      description: "Changes an error's status (a Quarry extension: the platform does it through its web interface).",
      args: { input: { type: new GraphQLNonNull(UpdateStatusInputType) } },
      resolve: (_root, args: { input: UpdateStatusInput }, ctx) => updateStatus(args.input, ctx),
    },
  }),
};
