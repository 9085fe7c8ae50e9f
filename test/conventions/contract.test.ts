// The contract every route declares (src/core/contract.ts), read from the routes of a real
// application as they are registered: how each one authenticates, and for each route that answers
// JSON a strict response schema for its successes; a route that answers something else says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import Fastify, { type RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createDeps } from '../../src/bootstrap.ts';
import { loadConfig } from '../../src/config.ts';
import { loadedGroup, loadedProject } from '../../src/core/access/loaders.ts';
import { Entity, NoContent } from '../../src/core/schema.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';

const AUTH = new Set(['required', 'optional', 'none']);

type Schema = Record<string, unknown>;

const methodsOf = (route: RouteOptions) => (Array.isArray(route.method) ? route.method : [route.method]).join(',');
const nameOf = (route: RouteOptions) => `${methodsOf(route)} ${route.url}`;
const isSuccess = (status: string) => status === '2xx' || (Number(status) >= 200 && Number(status) < 300);

/** Objects in a response schema that would let undeclared keys through (a record's keys are its data). */
function looseObjects(schema: unknown, where: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Schema;
  const found: string[] = [];
  if (s.type === 'object' && s.additionalProperties !== false && !s.patternProperties) found.push(where);
  for (const [key, value] of Object.entries(s.properties ?? {})) found.push(...looseObjects(value, `${where}.${key}`));
  for (const value of Object.values(s.patternProperties ?? {})) found.push(...looseObjects(value, `${where}[*]`));
  if (s.items) found.push(...looseObjects(s.items, `${where}[]`));
  for (const member of (s.anyOf ?? []) as unknown[]) found.push(...looseObjects(member, where));
  return found;
}

/** What is wrong with the declarations of these routes, one line per fault. */
function contractViolations(routes: readonly RouteOptions[]): string[] {
  const faults: string[] = [];
  for (const route of routes) {
    const name = nameOf(route);
    const config = (route.config ?? {}) as { auth?: unknown; json?: unknown };
    if (!AUTH.has(String(config.auth))) faults.push(`${name}: declares no auth (config.auth)`);
    const response = (route.schema?.response ?? {}) as Record<string, unknown>;
    const statuses = Object.keys(response);
    if (config.json === false) {
      if (statuses.length > 0) faults.push(`${name}: says it is not JSON but has response schemas`);
      continue;
    }
    if (!statuses.some(isSuccess)) faults.push(`${name}: answers JSON without a success response schema`);
    for (const status of statuses) for (const loose of looseObjects(response[status], `${status}`)) faults.push(`${name}: response ${loose} is not strict`);
  }
  return faults;
}

describe('the routes of the application', () => {
  const routes: RouteOptions[] = [];
  let database: Database;
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-contract-'));
    // Registering routes reads no rows: an empty in-memory database does, whatever DATABASE_URL says.
    database = openDatabase({ url: null, poolSize: 1 });
    const app = await buildApp(createDeps(loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' }), database), {
      onRoute: (route) => routes.push(route),
      // Ephemeral mode's routes too, which only that mode registers.
      testMode: { startState: () => null },
    });
    // Every parameter schema passed the validator's keyword check: ready() would throw otherwise.
    await app.ready();
    await app.close();
  });
  after(async () => {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the hook saw the whole application', () => {
    const names = new Set(routes.map(nameOf));
    for (const name of ['GET /api/v4/projects', 'POST /api/v4/users', 'DELETE /api/v4/groups/:id', 'GET /-/health', 'OPTIONS *', 'GET /:s0/:s1/info/refs']) {
      assert.ok(names.has(name), name);
    }
  });

  test('every route declares how it authenticates, and every JSON route a strict schema for its successes', () => {
    assert.deepEqual(contractViolations(routes), []);
  });

  test('the routes that say they are not JSON are the git, raw file, snippet raw, archive, project and group export, job log, job artifact, package file, runner update and upload, health, metrics, landing, sign-in, sign-up, confirmation (of accounts and of further addresses), invitation, admin mode, terms, OAuth authorization, OAuth applications and API reference page routes', () => {
    const notJson = new Set(routes.filter((r) => r.config?.json === false && !r.url.startsWith('/:s0')).map(nameOf));
    // OPTIONS answers every known path alike: 204, no body.
    assert.deepEqual([...notJson].sort(), [
      'DELETE /oauth/applications/:id',
      'DELETE /oauth/authorize',
      'GET /',
      'GET /-/api-docs',
      'GET /-/api-docs/:asset',
      'GET /-/health',
      'GET /-/invites/:token',
      'GET /-/metrics',
      'GET /-/profile/emails/confirmation',
      'GET /-/users/terms',
      'GET /admin/session/new',
      'GET /api/v4/groups/:id/export/download',
      'GET /api/v4/jobs/:id/artifacts',
      'GET /api/v4/projects/:id/export/download',
      'GET /api/v4/projects/:id/jobs/:job_id/artifacts',
      'GET /api/v4/projects/:id/jobs/:job_id/artifacts/*',
      'GET /api/v4/projects/:id/jobs/:job_id/trace',
      'GET /api/v4/projects/:id/jobs/artifacts/:ref_name/download',
      'GET /api/v4/projects/:id/jobs/artifacts/:ref_name/raw/*',
      'GET /api/v4/projects/:id/packages/generic/:package_name/:package_version/:file_name',
      'GET /api/v4/projects/:id/repository/archive',
      'GET /api/v4/projects/:id/repository/archive.:format',
      'GET /api/v4/projects/:id/repository/files/:file_path/raw',
      'GET /api/v4/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw',
      'GET /api/v4/projects/:id/snippets/:snippet_id/raw',
      'GET /api/v4/snippets/:id/files/:ref/:file_path/raw',
      'GET /api/v4/snippets/:id/raw',
      'GET /oauth/applications',
      'GET /oauth/applications/:id',
      'GET /oauth/authorize',
      'GET /oauth/authorize/native',
      'GET /users/confirmation',
      'GET /users/sign_in',
      'GET /users/sign_up',
      'PATCH /api/v4/jobs/:id/trace',
      'POST /-/users/terms/accept',
      'POST /admin/session',
      'POST /admin/session/destroy',
      'POST /api/v4/jobs/:id/artifacts',
      'POST /oauth/applications',
      'POST /oauth/applications/:id',
      'POST /oauth/authorize',
      'POST /users/sign_in',
      'POST /users/sign_out',
      'POST /users/sign_up',
      'PUT /api/v4/jobs/:id',
    ]);
    // Under a project's full path: git over HTTP, a pipeline's licenses.json and an error's status
    // change (JSON, with their schemas), the alert receivers (which answer JSON), and uploaded files
    // (to readers, signed in or not).
    const byPath = routes.filter((r) => r.url.startsWith('/:s0') && r.method !== 'OPTIONS');
    const licenses = byPath.filter((r) => r.url.endsWith('/-/pipelines/:pipeline_id/licenses.json'));
    const alerts = byPath.filter((r) => r.url.includes('/-/alerts/notify'));
    const uploads = byPath.filter((r) => r.url.endsWith('/uploads/:secret/:filename'));
    const errors = byPath.filter((r) => r.url.endsWith('/-/error_tracking/:issue_id.json'));
    const git = byPath.filter((r) => !licenses.includes(r) && !alerts.includes(r) && !uploads.includes(r) && !errors.includes(r));
    assert.ok(git.length > 0 && git.every((r) => r.config?.json === false && r.config.auth === 'none'));
    assert.ok(licenses.length > 0 && licenses.every((r) => r.config?.json !== false && r.config?.auth === 'optional'));
    assert.ok(alerts.length > 0 && alerts.every((r) => r.config?.json === undefined && r.config?.auth === 'none'));
    assert.ok(uploads.length > 0 && uploads.every((r) => r.config?.json === false && r.config?.auth === 'optional'));
    assert.ok(errors.length > 0 && errors.every((r) => r.method === 'PUT' && r.config?.json !== false && r.config?.auth === 'optional'));
  });
});

describe('the contract check itself', () => {
  const route = (options: Partial<RouteOptions>): RouteOptions => ({ method: 'GET', url: '/x', handler: async () => null, ...options });

  test('finds a missing auth, a missing success schema, a loose entity, and schemas on a route that is not JSON', () => {
    const faults = contractViolations([
      route({ url: '/no-auth', schema: { response: { 200: Entity({ a: Type.String() }) } } }),
      route({ url: '/errors-only', config: { auth: 'optional' }, schema: { response: { 404: Entity({ a: Type.String() }) } } }),
      route({ url: '/loose', config: { auth: 'required' }, schema: { response: { 200: Type.Array(Type.Object({ nested: Entity({ a: Type.String() }) })) } } }),
      route({ url: '/raw', config: { auth: 'none', json: false }, schema: { response: { 200: NoContent } } }),
      route({ url: '/fine', config: { auth: 'none' }, schema: { response: { 204: NoContent } } }),
    ]);
    assert.deepEqual(faults, [
      'GET /no-auth: declares no auth (config.auth)',
      'GET /errors-only: answers JSON without a success response schema',
      'GET /loose: response 200[] is not strict',
      'GET /raw: says it is not JSON but has response schemas',
    ]);
  });
});

describe('the loaded project and group', () => {
  const app = Fastify();
  app.get('/no-loader', { config: { auth: 'none' } }, async (req) => loadedProject(req).row.id);
  app.get('/no-group-loader', { config: { auth: 'none' } }, async (req) => loadedGroup(req).row.id);
  const errors: Error[] = [];
  app.setErrorHandler(async (error: Error, _req, reply) => {
    errors.push(error);
    return reply.code(500).send('failed');
  });
  after(() => app.close());

  test('reading them without the pre-handler fails loudly, naming the route', async () => {
    assert.equal((await app.inject({ url: '/no-loader' })).statusCode, 500);
    assert.equal((await app.inject({ url: '/no-group-loader' })).statusCode, 500);
    assert.deepEqual(
      errors.map((e) => e.message),
      ['GET /no-loader: no project was loaded (the route has no loadProject preHandler)', 'GET /no-group-loader: no group was loaded (the route has no loadGroup preHandler)'],
    );
  });
});
