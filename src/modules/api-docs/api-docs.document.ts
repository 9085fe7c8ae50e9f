// The API as an OpenAPI 3.1 document, made by @fastify/swagger from the routes' own declarations:
// their TypeBox schemas (parameters, bodies, the response of each status) and their contract
// (core/contract.ts: `config.auth` becomes each operation's security, `config.json: false` an answer
// without a JSON body). @fastify/swagger only collects the routes as they are registered; the
// document is built on its first request (api-docs.routes.ts) and kept, so start-up walks no schema.
import { STATUS_CODES } from 'node:http';
import { type FastifyDynamicSwaggerOptions, type SwaggerTransform, formatParamUrl } from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';
import type { RouteAuth } from '../../core/auth/scopes.ts';
import { acceptedScopes } from '../../core/auth/scopes.ts';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import type { GroupRules } from '../../core/params.ts';
import { PRODUCT_VERSION } from '../../version.ts';

type Json = Record<string, any>;
type RouteConfig = RouteAuth & { json?: false };

const API_PREFIX = '/api/v4';

/** The ways to authenticate (core/auth/resolve.ts), by scheme name. */
const SECURITY_SCHEMES = {
  PrivateTokenHeader: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN', description: 'A personal, project or impersonation access token.' },
  PrivateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token', description: 'The same tokens, as a query parameter.' },
  Bearer: { type: 'http', scheme: 'bearer', description: 'An OAuth 2 access token (POST /oauth/token), or an access token as above.' },
  JobToken: { type: 'apiKey', in: 'header', name: 'JOB-TOKEN', description: 'A CI job token, on the routes that accept one.' },
  SessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session of the web sign-in (/users/sign_in); writes also send its CSRF token in X-CSRF-Token.',
  },
} as const;

/** X-Total and X-Total-Pages are left out when a collection is too large to count. */
const PAGINATION_HEADERS: Record<string, [type: 'integer' | 'string', description: string]> = {
  'X-Total': ['integer', 'Number of items in the collection (absent when too many to count).'],
  'X-Total-Pages': ['integer', 'Number of pages (absent when the items are too many to count).'],
  'X-Page': ['integer', 'This page.'],
  'X-Per-Page': ['integer', 'Items per page.'],
  'X-Next-Page': ['string', 'The next page, empty on the last one.'],
  'X-Prev-Page': ['string', 'The previous page, empty on the first one.'],
  Link: ['string', 'RFC 8288 links to the prev, next, first and last pages.'],
};

/**
 * Every error body the API writes (core/error-handler.ts, and the OAuth endpoints): a parameter
 * failure or an unknown route says `error` (a text, or several); an application error says
 * `message` (a text, a model's full messages, field → messages, or an object of texts), with the
 * `error_code` of a failed commit change beside it; a refused token says `error`
 * with `error_description` (and the `scope` it needed).
 */
export const ErrorSchema = Type.Union(
  [
    Type.Object({ error: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false }),
    Type.Object(
      {
        message: Type.Union([Type.String(), Type.Array(Type.String()), Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))]),
        // Beside the message of a commit change that failed (a revert or cherry-pick): why.
        error_code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    Type.Object({ error: Type.String(), error_description: Type.String(), scope: Type.Optional(Type.String()) }, { additionalProperties: false }),
  ],
  {
    description:
      'Parameter failures and unknown routes say `error`; application errors `message`: a text, messages, or field → messages (or a text), with an `error_code` where a commit change failed; refused tokens `error` and `error_description`.',
  },
);

const DESCRIPTION = `The REST API v4 served by Quarry, with its OAuth 2 endpoints, health probes and web sign-in.

**Authentication**: send an access token in the \`PRIVATE-TOKEN\` header (or the \`private_token\` query parameter), an OAuth 2 token as \`Authorization: Bearer\`, a CI job token in \`JOB-TOKEN\` where accepted, or the session cookie of the web sign-in. Operations that also serve anonymous callers list an empty requirement.

**Parameters** may be sent in the query string or, on writes, as a JSON or form-encoded body. An array parameter marked \`x-comma\` also accepts a comma-separated list.

**Errors** are JSON (the \`Error\` schema), except for requests refused before routing: a NUL byte or broken percent-encoding in the URL is answered \`400 Bad Request\`, an over-long path segment \`414 Request-URI Too Long\`, headers over the size limit \`431 Request Header Fields Too Large\`, bytes that are no HTTP request \`400 Bad Request\`, all in plain text.

**Lists** are paginated with \`page\` and \`per_page\` (default 20, at most 100) and answer with the pagination headers.

Git over HTTP (\`<namespace>/<project>.git/info/refs\`, \`git-upload-pack\`, \`git-receive-pack\`) is served beside the API for git clients and is not described here.`;

/**
 * Routes left out of the document (HEAD routes are too: @fastify/swagger leaves them out, as they
 * answer as GET does without the body). OPTIONS answers every known path alike, 204 with the Allow
 * header (core/options-routes.ts); git's smart HTTP, registered once per depth of groups, speaks
 * git's protocol to git clients, and the document's description names it.
 */
const omitted = (route: RouteOptions) => route.method === 'OPTIONS' || route.url.startsWith('/:s0/');

const capitalized = (word: string) => word[0].toUpperCase() + word.slice(1);

/** `GET /api/v4/projects/:id/repository/branches` → getProjectsByIdRepositoryBranches. */
export function operationIdOf(method: string, url: string): string {
  const words = formatParamUrl(url)
    .replace(API_PREFIX, '')
    .replace(/\{(\w+)\}/g, '/by_$1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + (words.length > 0 ? words.map(capitalized).join('') : 'Root');
}

/** The module: the first segment after /api/v4; outside it, OAuth's token routes, the instance's /-/ routes, or the web pages. */
function tagOf(url: string): string {
  if (url.startsWith(`${API_PREFIX}/`)) return url.split('/')[3];
  // The authorization and applications pages are for people, the token routes for programs.
  if (url.startsWith('/oauth/')) return url.startsWith('/oauth/authorize') || url.startsWith('/oauth/applications') ? 'web' : 'oauth';
  // An invitation's link, the terms of service and an email's confirmation are pages for people, under /-/ as on the platform.
  const page = url.startsWith('/-/invites/') || url.startsWith('/-/users/terms') || url.startsWith('/-/profile/');
  return url.startsWith('/-/') && !page ? 'instance' : 'web';
}

/** required: any scheme; optional: any scheme or none ({}); none: no authentication at all. */
function securityOf(config: RouteConfig): Json[] {
  if (config.auth === 'none') return [];
  // A job token, where a route accepts one, is the last resort.
  const names = Object.keys(SECURITY_SCHEMES).filter((name) => name !== 'JobToken');
  const schemes = [...names, ...(config.jobToken ? ['JobToken'] : [])].map((name) => ({ [name]: [] }));
  return config.auth === 'optional' ? [...schemes, {}] : schemes;
}

/** The group rules of a parameter object (core/params.ts), in words. */
function groupRulesText(schema: unknown): string[] {
  const rules = (schema ?? {}) as GroupRules;
  const words: [keyof GroupRules, string][] = [
    ['x-mutually-exclusive', 'At most one of'],
    ['x-at-least-one-of', 'At least one of'],
    ['x-exactly-one-of', 'Exactly one of'],
    ['x-all-or-none-of', 'All or none of'],
  ];
  return words.flatMap(([rule, text]) => (rules[rule] ?? []).map((keys) => `${text}: ${keys.map((k) => `\`${k}\``).join(', ')}.`));
}

/** The document's name for a route's trailing wildcard (a path inside something: a file of an archive). */
export const WILDCARD_PARAM = 'path';

/** A trailing `*` becomes a named path parameter: OpenAPI has no wildcard, and `{*}` names no operation. */
function namedWildcard(url: string, params: unknown): { url: string; params: unknown } {
  if (!url.endsWith('*')) return { url, params };
  const object = params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  const { '*': wildcard, ...others } = object?.properties ?? {};
  const renamed = { ...object, properties: { ...others, [WILDCARD_PARAM]: wildcard ?? { type: 'string' } }, required: [...(object?.required ?? []).filter((r) => r !== '*'), WILDCARD_PARAM] };
  return { url: `${url.slice(0, -1)}:${WILDCARD_PARAM}`, params: renamed };
}

const transform: SwaggerTransform = ({ schema: routeSchema, url: routeUrl, route }) => {
  if (omitted(route)) return { schema: { ...routeSchema, hide: true }, url: routeUrl };
  const named = namedWildcard(routeUrl, routeSchema?.params);
  const url = named.url;
  const schema = named.params === undefined ? routeSchema : { ...routeSchema, params: named.params };
  const config = (route.config ?? {}) as RouteConfig;
  const method = String(route.method);
  const notes = [
    ...(config.auth === 'none' ? [] : [`Token scopes: ${acceptedScopes(method, config).join(', ')}.`]),
    ...groupRulesText(schema?.querystring),
    ...groupRulesText(schema?.body),
  ];
  return {
    url,
    schema: {
      ...schema,
      operationId: operationIdOf(method, url),
      tags: [tagOf(url)],
      security: securityOf(config),
      ...(notes.length > 0 ? { description: notes.join('\n\n') } : {}),
      // A body that is not JSON (text, HTML, a file, an archive, git's protocol) has no schema.
      ...(config.json === false ? { response: { 200: { type: 'null', description: 'Success; the body is not JSON.' } } } : {}),
    },
  };
};

/**
 * Keywords of core/params.ts that JSON Schema can say itself become JSON Schema; the others are
 * valid `x-` extensions and stay (x-comma, explained in the description; the group rules, also
 * spelled out in each operation's description).
 */
function mapVendorKeywords(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) return node.forEach(mapVendorKeywords);
  const schema = node as Json;
  if (schema['x-blank'] === false && schema.pattern === undefined) {
    schema.pattern = '\\S';
    delete schema['x-blank'];
  }
  if (Array.isArray(schema['x-except'])) {
    schema.not = { enum: schema['x-except'] };
    delete schema['x-except'];
  }
  for (const value of Object.values(schema)) mapVendorKeywords(value);
}

const isSuccess = (status: string) => /^2/.test(status);
const isClientError = (status: string) => /^4/.test(status);

function finish(document: Json): Json {
  const pagination = Object.fromEntries(Object.keys(PAGINATION_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      const statuses = Object.keys(operation.responses);
      for (const status of statuses) {
        const response = operation.responses[status];
        if (response.description === 'Default Response') response.description = STATUS_CODES[status] ?? `${status[0]}xx`;
      }
      if (operation.parameters?.some((p: Json) => p.in === 'query' && p.name === 'per_page')) {
        for (const status of statuses.filter(isSuccess)) operation.responses[status].headers = pagination;
      }
      if (path.startsWith(`${API_PREFIX}/`) && !statuses.some(isClientError)) operation.responses['4XX'] = { $ref: '#/components/responses/Error' };
    }
  }
  mapVendorKeywords(document);
  return document;
}

/** The options of @fastify/swagger, registered before every route so that it sees them all. */
export const openapiOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: { title: 'Quarry REST API v4', version: PRODUCT_VERSION, description: DESCRIPTION },
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { Error: ErrorSchema },
      responses: {
        Error: {
          description: 'A refusal: 400 bad parameters, 401, 403, 404 (also what the caller may not see), 409, 422 …',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      headers: Object.fromEntries(Object.entries(PAGINATION_HEADERS).map(([name, [type, description]]) => [name, { description, schema: { type } }])),
    },
  },
  transform,
  transformObject: (built) => finish('openapiObject' in built ? built.openapiObject : built.swaggerObject),
};
