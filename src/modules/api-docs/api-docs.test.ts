// GET /-/openapi.json against the routes of a real application, read as they are registered: every
// route is in the document with the schema of each success status it declares, each operation's
// security follows its `config.auth`, lists document their pagination headers, and the document is
// valid OpenAPI 3.1. And the reference page's files: only the package's few assets, nothing beside.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../app.ts';
import { createDeps } from '../../bootstrap.ts';
import { loadConfig } from '../../config.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import { WILDCARD_PARAM, operationIdOf } from './api-docs.document.ts';

type Json = Record<string, any>;

const routes: RouteOptions[] = [];
let app: FastifyInstance;
let database: Database;
let dataDir: string;
let doc: Json;

const methodsOf = (route: RouteOptions) => (Array.isArray(route.method) ? route.method : [route.method]);
/** `:id`, or `:id(regex)`, as `{id}`. */
const openapiPath = (url: string) => url.replace(/:(\w+)(\([^)]*\))?/g, '{$1}').replace(/\*$/, `{${WILDCARD_PARAM}}`);
const isGit = (route: RouteOptions) => route.url.startsWith('/:s0/');
/** What the document leaves out on purpose: HEAD mirrors GET, OPTIONS answers every path alike, git speaks git. */
const documented = (route: RouteOptions) => !isGit(route) && methodsOf(route).every((m) => m !== 'HEAD' && m !== 'OPTIONS');
const operationOf = (route: RouteOptions, method: string): Json | undefined => doc.paths[openapiPath(route.url)]?.[method.toLowerCase()];
const routeOf = (method: string, url: string) => {
  const found = routes.find((r) => r.url === url && methodsOf(r).includes(method));
  assert.ok(found, `${method} ${url} is registered`);
  return found;
};

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-api-docs-'));
  // The document reads no rows: an empty in-memory database does, whatever DATABASE_URL says.
  database = openDatabase({ url: null, poolSize: 1 });
  app = await buildApp(createDeps(loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' }), database), {
    onRoute: (route) => routes.push(route),
  });
  await app.ready();
  const res = await app.inject({ url: '/-/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  doc = res.json();
});
after(async () => {
  await app.close();
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /-/openapi.json', () => {
  test('is public, and the same document every time', async () => {
    const again = await app.inject({ url: '/-/openapi.json', headers: { 'private-token': 'not-a-token' } });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), doc);
  });

  test('every registered JSON route is there with the schema of each success status it declares', () => {
    const faults: string[] = [];
    const jsonRoutes = routes.filter((r) => documented(r) && r.config?.json !== false);
    assert.ok(jsonRoutes.length > 100, `${jsonRoutes.length} JSON routes`);
    for (const route of jsonRoutes) {
      for (const method of methodsOf(route)) {
        const name = `${method} ${route.url}`;
        const operation = operationOf(route, method);
        if (!operation) {
          faults.push(`${name}: missing`);
          continue;
        }
        const declared = Object.entries((route.schema?.response ?? {}) as Record<string, Json>).filter(([status]) => /^2/.test(status));
        if (declared.length === 0) faults.push(`${name}: declares no success response`);
        for (const [status, schema] of declared) {
          const response = operation.responses?.[status.toUpperCase()];
          if (!response) faults.push(`${name}: no ${status} response`);
          else if (schema.type === 'null') {
            if (response.content) faults.push(`${name}: ${status} has a body`);
          } else {
            const documentedSchema = response.content?.['application/json']?.schema;
            if (!documentedSchema) faults.push(`${name}: ${status} has no JSON schema`);
            // The same entity: the same keys, the same required ones.
            else if (schema.properties) {
              if (Object.keys(documentedSchema.properties ?? {}).join() !== Object.keys(schema.properties).join()) faults.push(`${name}: ${status} has other keys`);
              if ((documentedSchema.required ?? []).join() !== (schema.required ?? []).join()) faults.push(`${name}: ${status} requires other keys`);
            }
          }
        }
      }
    }
    assert.deepEqual(faults, []);
  });

  test('the routes that are not JSON are there too, and only git and OPTIONS are left out', () => {
    const missing = routes.filter((r) => documented(r) && methodsOf(r).some((m) => !operationOf(r, m)));
    assert.deepEqual(missing.map((r) => r.url), []);
    assert.equal(operationOf(routeOf('GET', '/-/health'), 'GET')?.responses['200'].content, undefined);
    assert.ok(routes.some(isGit) && routes.some((r) => r.method === 'OPTIONS'));
    for (const route of routes.filter(isGit)) assert.equal(doc.paths[openapiPath(route.url)], undefined, route.url);
    // Nothing in the document that is not a registered route.
    const registered = new Set(routes.flatMap((r) => methodsOf(r).map((m) => `${m.toLowerCase()} ${openapiPath(r.url)}`)));
    for (const [url, item] of Object.entries(doc.paths as Json)) for (const method of Object.keys(item)) assert.ok(registered.has(`${method} ${url}`), `${method} ${url}`);
  });

  test('parameters: path, query and body, with their types and enums', () => {
    const list = operationOf(routeOf('GET', '/api/v4/projects'), 'GET')!;
    const param = (name: string) => list.parameters.find((p: Json) => p.name === name);
    assert.deepEqual(param('visibility'), { in: 'query', name: 'visibility', required: false, schema: { type: 'string', enum: ['private', 'internal', 'public'] } });
    assert.deepEqual(param('per_page').schema, { type: 'integer', not: { enum: [0] } });
    const one = operationOf(routeOf('GET', '/api/v4/projects/:id'), 'GET')!;
    assert.deepEqual(one.parameters.find((p: Json) => p.in === 'path'), { in: 'path', name: 'id', required: true, schema: { type: 'string', minLength: 1 } });
    const create = operationOf(routeOf('POST', '/api/v4/projects'), 'POST')!;
    const body = create.requestBody.content['application/json'].schema;
    assert.equal(body.properties.visibility.enum.join(), 'private,internal,public');
    assert.match(create.description, /At least one of: `name`, `path`\./);
  });

  test('security: the five schemes, and each operation asks what its route declares', () => {
    assert.deepEqual(doc.components.securitySchemes, {
      PrivateTokenHeader: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN', description: doc.components.securitySchemes.PrivateTokenHeader.description },
      PrivateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token', description: doc.components.securitySchemes.PrivateTokenQuery.description },
      Bearer: { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.Bearer.description },
      JobToken: { type: 'apiKey', in: 'header', name: 'JOB-TOKEN', description: doc.components.securitySchemes.JobToken.description },
      SessionCookie: { type: 'apiKey', in: 'cookie', name: '_service_session', description: doc.components.securitySchemes.SessionCookie.description },
    });
    const schemes = [{ PrivateTokenHeader: [] }, { PrivateTokenQuery: [] }, { Bearer: [] }, { SessionCookie: [] }];
    const expected = { required: schemes, optional: [...schemes, {}], none: [] };
    for (const route of routes.filter(documented)) {
      const auth = route.config?.auth as keyof typeof expected;
      const jobToken = route.config?.jobToken ? [{ JobToken: [] }] : [];
      for (const method of methodsOf(route)) {
        const want = auth === 'none' ? [] : auth === 'required' ? [...schemes, ...jobToken] : [...schemes, ...jobToken, {}];
        assert.deepEqual(operationOf(route, method)?.security, want, `${method} ${route.url}`);
      }
    }
    assert.deepEqual(operationOf(routeOf('GET', '/-/openapi.json'), 'GET')?.security, []);
    assert.deepEqual(operationOf(routeOf('GET', '/api/v4/user'), 'GET')?.security, schemes);
  });

  test('lists document the pagination headers; single entities do not', () => {
    const names = ['X-Total', 'X-Total-Pages', 'X-Page', 'X-Per-Page', 'X-Next-Page', 'X-Prev-Page', 'Link'];
    assert.deepEqual(Object.keys(doc.components.headers), names);
    const headers = operationOf(routeOf('GET', '/api/v4/projects'), 'GET')!.responses['200'].headers;
    assert.deepEqual(headers, Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }])));
    assert.equal(operationOf(routeOf('GET', '/api/v4/projects/:id'), 'GET')!.responses['200'].headers, undefined);
  });

  test('operations are named by method and path, tagged by module, and unique', () => {
    const operations = Object.entries(doc.paths as Json).flatMap(([url, item]) => Object.entries(item as Json).map(([method, op]) => ({ url, method, op: op as Json })));
    const ids = operations.map((o) => o.op.operationId);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(operationOf(routeOf('GET', '/api/v4/projects/:id/repository/branches/:branch'), 'GET')!.operationId, 'getProjectsByIdRepositoryBranchesByBranch');
    assert.equal(operationIdOf('GET', '/api/v4/projects/:id/repository/archive.:format'), 'getProjectsByIdRepositoryArchiveByFormat');
    assert.equal(operationIdOf('GET', '/'), 'getRoot');
    assert.equal(operationIdOf('PUT', '/api/v4/users/:id(^\\d+$)/custom_attributes/:key'), 'putUsersByIdCustomAttributesByKey');
    for (const { url, op } of operations) {
      if (url.startsWith('/api/v4/')) assert.deepEqual(op.tags, [url.split('/')[3]], url);
      else {
        const page = url.startsWith('/-/invites/') || url.startsWith('/-/users/terms') || url.startsWith('/-/profile/') || url.startsWith('/oauth/authorize') || url.startsWith('/oauth/applications');
        assert.deepEqual(op.tags, [url.startsWith('/oauth/') && !page ? 'oauth' : url.startsWith('/-/') && !page ? 'instance' : 'web'], url);
      }
    }
  });

  test('is valid OpenAPI 3.1, every schema in it valid JSON Schema 2020-12, no vendor keyword left that JSON Schema can say', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);

    const ajv = new Ajv2020({ strict: false });
    const schemas: Json[] = [];
    const collect = (node: unknown, key?: string) => {
      if (typeof node !== 'object' || node === null) return;
      if (key === 'schema') schemas.push(node as Json);
      for (const [k, v] of Object.entries(node)) collect(v, k);
    };
    collect(doc.paths);
    schemas.push(...Object.values(doc.components.schemas as Json));
    assert.ok(schemas.length > 300);
    for (const schema of schemas) assert.ok(ajv.validateSchema(schema), JSON.stringify(ajv.errors));
    const text = JSON.stringify(doc);
    assert.doesNotMatch(text, /"x-(blank|except)"/);
  });
});

describe('GET /-/api-docs', () => {
  test('is an HTML page that loads Swagger UI from this server, with the document', async () => {
    const res = await app.inject({ url: '/-/api-docs' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /src="\/-\/api-docs\/swagger-ui-bundle\.js"/);
    assert.match(res.body, /url: '\/-\/openapi\.json'/);
    assert.doesNotMatch(res.body, /https?:\/\//);
  });

  test('serves the assets of the page from the installed package', async () => {
    const css = await app.inject({ url: '/-/api-docs/swagger-ui.css' });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.ok(css.body.length > 10_000);
    const js = await app.inject({ url: '/-/api-docs/swagger-ui-bundle.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
  });

  test('serves nothing else: no other file of the package, no path out of it', async () => {
    for (const url of [
      '/-/api-docs/index.html',
      '/-/api-docs/package.json',
      '/-/api-docs/..%2Fpackage.json',
      '/-/api-docs/..%2F..%2F..%2Fpackage.json',
      '/-/api-docs/%2e%2e%2f%2e%2e%2fswagger-ui-dist%2fswagger-ui.css',
      '/-/api-docs/..%5C..%5Cpackage.json',
      '/-/api-docs/../../package.json',
      '/-/api-docs/swagger-ui.css%00',
      '/-/api-docs/constructor',
    ]) {
      const res = await app.inject({ url });
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${url}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /"name"|swagger-ui/, url);
    }
  });
});
