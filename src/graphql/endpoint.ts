// POST /api/graphql (and GET, for queries): the platform's GraphQL endpoint. Callers authenticate as
// on the REST API (PRIVATE-TOKEN, a bearer OAuth or personal token, the session cookie); anonymous
// callers see public data. The answer is `{data, errors}` with status 200, whatever the query's
// faults (syntax, validation, a resolver's refusal); the request's own faults answer as the
// platform's controller does: 401 "Invalid token" for a credential that does not authenticate,
// 403 for a user who may not use the API, 422 for unreadable variables, a query over 10,000
// characters or a mutation sent with GET. A JSON array of queries runs each in turn (batching).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  type ValidationContext,
  type ASTVisitor,
  type SelectionSetNode,
  type FragmentDefinitionNode,
  Kind,
  execute,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { Actor } from '../core/auth/actor.ts';
import { resolveActor } from '../core/auth/resolve.ts';
import { hasAnyScope } from '../core/auth/scopes.ts';
import { DomainError } from '../core/errors.ts';
import { THROTTLED_BODY, throttledHeaders } from '../core/rate-limit.ts';
import { Entity } from '../core/schema.ts';
import type { GraphqlContext } from './context.ts';
import { platformValidationErrors, variableErrors } from './platform-errors.ts';

/** The platform's limit on a query's text, in characters. */
export const MAX_QUERY_SIZE = 10_000;
/** The platform's limits on how deeply fields nest: anonymous callers, then signed-in ones. */
export const MAX_DEPTH = { anonymous: 15, authenticated: 20 } as const;

/** A request's fault, answered before any query runs: {"errors": [{"message": …}]} at this status. */
class RequestFault extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface Operation {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readVariables(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (isObject(raw)) return raw;
  if (typeof raw === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new RequestFault(422, (error as Error).message);
    }
    if (parsed === null) return {};
    if (isObject(parsed)) return parsed;
  }
  throw new RequestFault(422, `Unexpected parameter: ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`);
}

function readOperation(raw: unknown): Operation {
  const params = isObject(raw) ? raw : {};
  const query = typeof params.query === 'string' ? params.query : '';
  const operationName = typeof params.operationName === 'string' && params.operationName !== '' ? params.operationName : null;
  return { query, variables: readVariables(params.variables), operationName };
}

/** The operations a request carries: one, or a batch (a JSON array, or `_json` as the platform names it). */
function readOperations(req: FastifyRequest): { operations: Operation[]; batch: boolean } {
  const raw = req.method === 'GET' || req.method === 'HEAD' ? req.query : req.body;
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw._json) ? raw._json : null;
  if (list) return { operations: list.map(readOperation), batch: true };
  // A query string and a body may both carry parameters; the body wins.
  const merged = { ...(isObject(req.query) ? req.query : {}), ...(isObject(req.body) ? req.body : {}) };
  return { operations: [readOperation(merged)], batch: false };
}

/** Parses the text once; a syntax error is the query's fault, answered in `errors`. */
function parseDocument(text: string): DocumentNode | GraphQLError {
  try {
    return parse(text, { maxTokens: 20_000 });
  } catch (error) {
    if (error instanceof GraphQLError) return error;
    throw error;
  }
}

function isMutation(document: DocumentNode | GraphQLError, operationName: string | null): boolean {
  if (document instanceof GraphQLError) return false;
  return getOperationAST(document, operationName)?.operation === 'mutation';
}

/** A validation rule: fields nested deeper than the limit (fragments followed) refuse the query. */
function depthLimit(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!set) return 0;
      let deepest = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, selection.selectionSet ? 1 + depthOf(selection.selectionSet, seen) : 1);
        else if (selection.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
        else if (!seen.has(selection.name.value)) {
          const fragment = fragments.get(selection.name.value);
          deepest = Math.max(deepest, depthOf(fragment?.selectionSet, new Set([...seen, selection.name.value])));
        }
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > max) context.reportError(new GraphQLError(`Query has depth of ${depth}, which exceeds max depth of ${max}`));
      },
    };
  };
}

/** The caller, resolved as the REST API resolves it; a mutation needs the session's CSRF token as a write does. */
async function callerOf(req: FastifyRequest, mutating: boolean): Promise<{ actor: Actor | null; canWrite: boolean }> {
  const deps = req.server.deps;
  const cookies = (req as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies ?? {};
  const { sudo: _sudo, ...params } = req.rawParams ?? {};
  let actor: Actor | null;
  try {
    actor = await resolveActor(deps, { method: mutating ? 'POST' : 'GET', headers: { ...req.headers, sudo: undefined }, params, cookies }, { auth: 'optional', anyScope: true });
  } catch (error) {
    if (error instanceof DomainError && error.status === 403) throw new RequestFault(403, 'API not accessible for user');
    throw new RequestFault(401, 'Invalid token');
  }
  if (!actor) return { actor: null, canWrite: false };
  const tokenBased = actor.via === 'personal_access_token' || actor.via === 'oauth';
  // Tokens that carry neither api nor read_api do not authenticate here.
  if (tokenBased && !hasAnyScope(actor.scopes, ['api', 'read_api'])) throw new RequestFault(401, 'Invalid token');
  return { actor, canWrite: !tokenBased || actor.scopes.includes('api') };
}

/** A resolver's failure as the caller sees it: its own words for refusals, nothing of the internals. */
function formatResult(req: FastifyRequest, result: ExecutionResult): FormattedExecutionResult {
  const errors = result.errors?.map((error) => {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) return error.toJSON();
    if (original instanceof DomainError) return new GraphQLError(original.message, { nodes: error.nodes, path: error.path }).toJSON();
    req.log.error({ err: original, path: error.path }, 'GraphQL resolver failed');
    return new GraphQLError('Internal server error', { nodes: error.nodes, path: error.path }).toJSON();
  });
  return { ...(errors ? { errors } : {}), ...('data' in result ? { data: result.data } : {}) };
}

async function run(req: FastifyRequest, schema: GraphQLSchema, operation: Operation, document: DocumentNode | GraphQLError, context: GraphqlContext): Promise<FormattedExecutionResult> {
  if (operation.query.trim() === '') return { errors: [{ message: 'No query string was present' }] };
  if (document instanceof GraphQLError) return { errors: [document.toJSON()] };
  const max = context.actor ? MAX_DEPTH.authenticated : MAX_DEPTH.anonymous;
  const faults = validate(schema, document, [...specifiedRules, depthLimit(max)]);
  if (faults.length > 0) return { errors: platformValidationErrors(schema, document, faults).map((f) => f.toJSON()) };
  const operationNode = getOperationAST(document, operation.operationName);
  const invalid = operationNode ? variableErrors(schema, operationNode, operation.variables) : [];
  if (invalid.length > 0) return { errors: invalid.map((f) => f.toJSON()) };
  const result = await execute({ schema, document, variableValues: operation.variables, operationName: operation.operationName, contextValue: context });
  return formatResult(req, result);
}

const GraphqlResult = Entity({ data: Type.Optional(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Unknown())) });

export interface GraphqlEndpointOptions {
  schema: GraphQLSchema;
}

export const graphqlEndpoint: FastifyPluginAsync<GraphqlEndpointOptions> = async (app, { schema }) => {
  const answer = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json').send(JSON.stringify(body));

  async function handle(req: FastifyRequest, reply: FastifyReply) {
    try {
      const { operations, batch } = readOperations(req);
      if (operations.reduce((size, op) => size + op.query.length, 0) > MAX_QUERY_SIZE) throw new RequestFault(422, 'Query too large');
      const documents = operations.map((op) => parseDocument(op.query));
      const mutating = operations.some((op, i) => isMutation(documents[i], op.operationName));
      if (mutating && (req.method === 'GET' || req.method === 'HEAD')) throw new RequestFault(422, `Mutations are forbidden in ${req.method} requests`);
      const { actor, canWrite } = await callerOf(req, mutating);
      if (app.throttle.limiting) {
        const name = actor ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api';
        const verdict = await app.throttle.hit(name, actor ? `user:${actor.user.id}` : `ip:${req.ip}`);
        if (verdict && !verdict.allowed) return reply.code(429).headers(throttledHeaders(name, verdict)).type('text/plain').send(THROTTLED_BODY);
      }
      req.actor = actor;
      const context: GraphqlContext = { deps: app.deps, request: req, actor, canWrite };
      const results: FormattedExecutionResult[] = [];
      for (const [i, op] of operations.entries()) results.push(await run(req, schema, op, documents[i], context));
      return answer(reply, 200, batch ? results : results[0]);
    } catch (error) {
      if (error instanceof RequestFault) return answer(reply, error.status, { errors: [{ message: error.message }] });
      throw error;
    }
  }

  const config = { auth: 'none' } as const;
  const response = { 200: Type.Union([GraphqlResult, Type.Array(GraphqlResult)]) };
  app.post('/api/graphql', { schema: { response }, config }, handle);
  app.get('/api/graphql', { schema: { response }, config }, handle);
};
