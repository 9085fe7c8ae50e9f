// Every operation of GET /-/openapi.json, fuzzed from its own declaration: requests are derived
// from each operation's path, query and body schemas (well-formed values that reach the handler,
// and boundary values, wrong types, missing required fields, very long strings, odd unicode, NUL,
// broken percent-encoding, path tricks, numbers beyond 2^53, deeply nested and huge JSON) and sent
// as an administrator, a regular user and anonymously, against seeded data (a group, a project with
// a repository, branches, tags, files, tokens) so that path parameters name real things. A small
// share goes over a real socket. Every answer must be below 500, on a connection that stays up; it
// must match the operation's declared schema for its status or be one of the documented error
// bodies; and no table, row (by updated_at) or git ref may change without a success.
// Operations are read from the document, so routes added later are covered without touching this.
// QUARRY_FUZZ_SEED=<n> replays a run; QUARRY_FUZZ_CASES (cases per operation, each sent by the three
// callers) and QUARRY_FUZZ_BUDGET_MS (no new round starts after it; the first round always runs)
// size it; QUARRY_FUZZ_REPORT=<file> writes the summary and the failures there.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { ACCESS } from '../../src/core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.ts';
import { createCommit } from '../../src/git/commits.ts';
import { type Ref, listRefs, updateRefs } from '../../src/git/refs.ts';
import { addMember, createGroup, createProject } from '../factories.ts';
import { AUTHOR, giveRepository } from '../fixtures/repository.ts';
import { PASSWORD, type TestApp, type TestUser } from '../harness.ts';
import { listeningTestApp } from '../listening.ts';
import { seededRandom } from '../random.ts';

const SEED = Number(process.env.QUARRY_FUZZ_SEED ?? 20251125);
const CASES = Number(process.env.QUARRY_FUZZ_CASES ?? 12);
const BUDGET_MS = Number(process.env.QUARRY_FUZZ_BUDGET_MS ?? 70_000);
/** One request in this many goes over the socket rather than through inject. */
const SOCKET_SHARE = 12;

type Json = Record<string, any>;


/** FNV-1a, to seed each (operation, case) apart: a case replays whatever ran before it. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// ---- the document ---------------------------------------------------------------------------

interface Operation {
  method: string;
  /** The document's path, `{name}` for each path parameter. */
  path: string;
  op: Json;
  pathParams: Json[];
  queryParams: Json[];
  body: Json | undefined;
  write: boolean;
  /** Matches the concrete paths of this operation. */
  pattern: RegExp;
}

function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const parameters = ((op as Json).parameters ?? []) as Json[];
      out.push({
        method: method.toUpperCase(),
        path,
        op: op as Json,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: (op as Json).requestBody?.content?.['application/json']?.schema,
        write: method !== 'get',
        pattern: new RegExp(`^${path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
      });
    }
  }
  return out;
}

/**
 * The operation a request reaches: a path trick (an empty segment, `.`, `..`) may lead to another
 * route than the one it was made for. Inject resolves dot segments as a URL does; a socket sends
 * the path as it is. Static segments win over parameters, as in the router. Undefined: no route.
 */
function reachedOperation(operations: readonly Operation[], method: string, url: string, socket: boolean): Operation | undefined {
  let path = url.split('?')[0];
  if (!socket) {
    try {
      path = new URL(`http://x${path}`).pathname;
    } catch {
      return undefined;
    }
  }
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/$/, '');
  let best: Operation | undefined;
  let bestScore = -1;
  for (const operation of operations) {
    if (operation.method !== method || !operation.pattern.test(path)) continue;
    const score = operation.path.replace(/\{\w+\}/g, '').length;
    if (score > bestScore) [best, bestScore] = [operation, score];
  }
  return best;
}

// ---- the answers' schemas ------------------------------------------------------------------

/** What answers a request no operation matches: only errors are documented for it. */
const NO_ROUTE: Operation = { method: '', path: '', op: { responses: {} }, pathParams: [], queryParams: [], body: undefined, write: false, pattern: /$^/ };

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Requests refused before any route is chosen (NUL bytes, broken percent-encoding, an over-long
 * path parameter, bytes or headers the HTTP parser refuses) are answered in plain text, as the
 * platform's front server and Rack middleware answer them (core/request-pipeline.ts).
 */
const PLAIN_REFUSALS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'Request-URI Too Long', 431: 'Request Header Fields Too Large' };

function responseChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  ajv.addFormat('date-time', ISO_MS);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('email', /@/);
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:/i);
  ajv.addSchema({ $id: 'doc', $defs: doc.components.schemas });
  const compiled = new Map<unknown, ValidateFunction>();
  const compile = (schema: Json): ValidateFunction => {
    let fn = compiled.get(schema);
    if (!fn) {
      // References point into the document's components.
      const text = JSON.stringify(schema).replaceAll('"$ref":"#/components/schemas/', '"$ref":"doc#/$defs/');
      fn = ajv.compile(JSON.parse(text));
      compiled.set(schema, fn);
    }
    return fn;
  };
  const resolve = (response: Json | undefined): Json | undefined => {
    if (response?.$ref) return doc.components.responses[String(response.$ref).split('/').pop() as string];
    return response;
  };
  const errorBody = compile({ $ref: '#/components/schemas/Error' });
  const describe = (fn: ValidateFunction) => (fn.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');

  /** What is wrong with an answer, or null. */
  return (operation: Operation, status: number, headers: Record<string, unknown>, body: string): string | null => {
    if (status >= 500) return `a server error`;
    // The web pages (sign-in) answer HTML, and redirect once done, as the platform's do.
    if (operation.op.tags?.includes('web') && (/^text\/html/.test(String(headers['content-type'] ?? '')) || (status >= 300 && status < 400 && headers.location))) return null;
    const declared = resolve(operation.op.responses?.[String(status)] ?? operation.op.responses?.[`${String(status)[0]}XX`]);
    const type = String(headers['content-type'] ?? '');
    const json = () => {
      if (!/^application\/json/.test(type)) return { fault: `not JSON (${type || 'no content-type'})` };
      try {
        return { value: JSON.parse(body) as unknown };
      } catch {
        return { fault: 'a body that does not parse' };
      }
    };
    const schema = declared?.content?.['application/json']?.schema as Json | undefined;
    if (status >= 400) {
      if (/^text\/plain/.test(type) && PLAIN_REFUSALS[status] === body) return null;
      const parsed = json();
      if ('fault' in parsed) return `an error body that is ${parsed.fault}`;
      if (schema && compile(schema)(parsed.value)) return null;
      return errorBody(parsed.value) ? null : `an error body that is none of the documented ones: ${describe(errorBody)}`;
    }
    if (!declared) return `an undeclared status`;
    if (!schema) return (status === 204 || status === 304) && body !== '' ? 'a body where none is declared' : null;
    const parsed = json();
    if ('fault' in parsed) return `a body that is ${parsed.fault}`;
    const validate = compile(schema);
    return validate(parsed.value) ? null : `a body that does not match the declared schema: ${describe(validate)}`;
  };
}

// ---- values ---------------------------------------------------------------------------------

const ODD_UNICODE = [
  '\u202Egnp.exe',
  'a\u200Bb\u200Dc\uFEFF',
  '👩‍👩‍👧‍👦🔥',
  'e\u0301\u0301\u0301',
  'ＡＢＣ',
  'مرحبا',
  '名前',
  '\uD800',
  'x\uDFFF',
  '\u0085\u2028\u2029',
  'ǅǈ İı ß',
  '\u001b[31m',
];
const NUL_STRINGS = ['\u0000', 'a\u0000b', 'main\u0000', '\u0000'.repeat(10)];
const BIG_NUMBERS = ['9007199254740993', '-9007199254740993', '18446744073709551616', '1e400', '-1e400', '1e-400', '0.30000000000000004', '123456789012345678901234567890'];
const BROKEN_PERCENT = ['%', '%%', '%ZZ', '%E0%A4', '%C0%AE', '%ED%A0%80', '%FF', 'a%2', '%u0041'];
const PATH_TRICKS = ['..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%2E%2E%2F', '.', 'a%2F..%2F..%2Fb', '%252F', '%5C..%5C', '~', 'a%2F%2Fb', '%20', '-', '--help', '.git'];

interface Fixtures {
  admin: TestUser;
  user: TestUser;
  /** Users, groups and projects the destructive operations (DELETE /users/:id …) name. */
  spareUser: TestUser;
  group: NamespaceRow;
  subgroup: NamespaceRow;
  spareGroup: NamespaceRow;
  project: ProjectRow;
  privateProject: ProjectRow;
  spareProject: ProjectRow;
  repoDir: string;
  refs: Ref[];
  commit: string;
  personalTokenIds: number[];
  projectTokenIds: number[];
}

/** Well-formed values of parameters by their name, where a name says what a value must be. */
function namedValue(name: string, rng: Rng, fx: Fixtures, schema: Json): unknown {
  const n = rng.int(1_000_000);
  switch (name) {
    case 'ref':
    case 'ref_name':
    case 'from':
    case 'to':
      return rng.pick(['main', 'feature', 'v1.0', fx.commit]);
    case 'branch':
    case 'start_branch':
      return rng.pick(['main', 'feature', `fuzz-${n}`]);
    case 'sha':
    case 'start_sha':
      return fx.commit;
    case 'tag_name':
      return rng.pick([`v${n}`, 'v1.0']);
    case 'file_path':
    case 'previous_path':
    case 'path':
      return schema.type === 'string' && name === 'path' ? rng.pick([`fuzz-${n}`, 'README.md', 'docs']) : rng.pick(['README.md', 'docs/guide.md', `fuzz-${n}.txt`]);
    case 'username':
    case 'login':
      return rng.pick([fx.user.user.username, fx.admin.user.username, `fuzz${n}`]);
    case 'password':
      return rng.chance(0.5) ? PASSWORD : `long-enough-${n}`;
    case 'email':
    case 'public_email':
    case 'commit_email':
    case 'author_email':
      return `fuzz${n}@example.com`;
    case 'user_id':
    case 'owner_id':
      return rng.pick([fx.user.user.id, fx.admin.user.id, fx.spareUser.user.id]);
    case 'namespace_id':
    case 'parent_id':
    case 'group_id':
      return rng.pick([fx.group.id, fx.subgroup.id]);
    case 'project_id':
    case 'start_project':
      return fx.project.id;
    case 'access_level':
    case 'merge_access_level':
    case 'push_access_level':
    case 'create_access_level':
    case 'unprotect_access_level':
      return schema.enum ? rng.pick(schema.enum) : rng.pick([0, 10, 20, 30, 40, 50]);
    case 'page':
      return rng.pick([1, 2]);
    case 'per_page':
      return rng.pick([1, 20, 100]);
    case 'url':
    case 'website_url':
    case 'redirect_uri':
      return `https://example.com/${n}`;
    case 'content':
      return rng.pick(['hello\n', '']);
    case 'encoding':
      return schema.enum ? rng.pick(schema.enum) : 'text';
    case 'grant_type':
      return 'password';
    case 'scopes':
      return undefined;
  }
  return undefined;
}

function wellFormed(schema: Json | undefined, name: string, rng: Rng, fx: Fixtures, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.anyOf) {
    const members = (schema.anyOf as Json[]).filter((m) => m.type !== 'null');
    return wellFormed(rng.pick(members.length > 0 ? members : schema.anyOf), name, rng, fx, depth + 1);
  }
  const named = namedValue(name, rng, fx, schema);
  if (named !== undefined && (schema.type !== 'integer' || typeof named === 'number') && (schema.type !== 'string' || typeof named === 'string')) return named;
  switch (schema.type) {
    case 'boolean':
      return rng.chance(0.5);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const max = Math.min(schema.maximum ?? 1000, min + 1000);
      let value = min + rng.int(max - min + 1);
      if (schema.not?.enum?.includes(value)) value += 1;
      return value;
    }
    case 'string': {
      const n = rng.int(1_000_000);
      switch (schema.format) {
        case 'date-time':
          return new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString();
        case 'date':
          return rng.pick(['2099-12-31', '2030-01-15']);
        case 'email':
          return `fuzz${n}@example.com`;
        case 'uri':
          return `https://example.com/${n}`;
      }
      let value = rng.pick([`fuzz-${n}`, `Fuzz ${n}`, `fuzz_${n}`]);
      if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x');
      if (schema.maxLength !== undefined) value = value.slice(0, schema.maxLength);
      return value;
    }
    case 'array':
      return Array.from({ length: 1 + rng.int(2) }, () => wellFormed(schema.items, name, rng, fx, depth + 1));
    case 'object': {
      if (schema.properties) return wellFormedObject(schema, rng, fx, depth + 1, 0.3);
      const values = schema.additionalProperties ?? Object.values(schema.patternProperties ?? {})[0];
      return { [`k${rng.int(100)}`]: typeof values === 'object' ? wellFormed(values, name, rng, fx, depth + 1) : 'v' };
    }
  }
  return `v${rng.int(1000)}`;
}

function wellFormedObject(schema: Json, rng: Rng, fx: Fixtures, depth: number, optional: number): Record<string, unknown> {
  const required = new Set<string>(schema.required ?? []);
  const out: Record<string, unknown> = {};
  // Group rules: one of each "exactly one" and "at least one" group, so that the handler is reached.
  for (const keys of [...(schema['x-exactly-one-of'] ?? []), ...(schema['x-at-least-one-of'] ?? [])] as string[][]) required.add(rng.pick(keys));
  const exclusive = new Set<string>(((schema['x-mutually-exclusive'] ?? []) as string[][]).flat());
  for (const [key, value] of Object.entries((schema.properties ?? {}) as Json)) {
    if (!required.has(key) && (exclusive.has(key) || !rng.chance(optional))) continue;
    out[key] = wellFormed(value, key, rng, fx, depth);
  }
  return out;
}

/** A value that is not what the schema asks: of another type, or at or beyond its bounds. */
function wrongType(schema: Json, rng: Rng): unknown {
  const candidates: unknown[] = [{ a: 1 }, [1, 2], 'text', 12.5, true, -1, [], {}, [{ x: [] }]];
  return rng.pick(candidates.filter((v) => typeof v !== (schema.type === 'integer' ? 'number' : schema.type)));
}

function boundary(schema: Json, rng: Rng): unknown {
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const values = [0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53) + 1];
      if (schema.minimum !== undefined) values.push(schema.minimum, schema.minimum - 1);
      if (schema.maximum !== undefined) values.push(schema.maximum, schema.maximum + 1);
      return rng.pick(values);
    }
    case 'string': {
      const values = ['', ' ', '\t\n'];
      if (schema.maxLength !== undefined) values.push('m'.repeat(schema.maxLength), 'm'.repeat(schema.maxLength + 1));
      if (schema.minLength !== undefined && schema.minLength > 0) values.push('m'.repeat(schema.minLength - 1));
      return rng.pick(values);
    }
    case 'array':
      return rng.pick([[], Array.from({ length: 101 }, (_, i) => i)]);
    case 'boolean':
      return rng.pick(['tRue', 2, '', 'null']);
  }
  return rng.pick(['', null]);
}

/** Raw JSON text to put in place of a value: JSON.stringify cannot write these. */
const RAW = (text: string) => ({ __raw: text });
const isRaw = (v: unknown): v is { __raw: string } => typeof v === 'object' && v !== null && '__raw' in v;

function deepNest(depth: number, rng: Rng): { __raw: string } {
  return rng.chance(0.5) ? RAW(`${'['.repeat(depth)}1${']'.repeat(depth)}`) : RAW(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

function huge(rng: Rng): unknown {
  switch (rng.int(3)) {
    case 0:
      return Array.from({ length: 20_000 }, (_, i) => i);
    case 1:
      return Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']));
    default:
      return 'h'.repeat(1_000_000);
  }
}

const KINDS = ['wellFormed', 'wellFormed', 'wellFormed', 'boundary', 'wrongType', 'missing', 'long', 'unicode', 'nul', 'percent', 'pathTrick', 'bigNumber', 'deep', 'huge'] as const;
type Kind = (typeof KINDS)[number];

// ---- requests -------------------------------------------------------------------------------

interface Request {
  kind: Kind;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Well-formed values of a path parameter: the seeded things it names. */
function pathValues(operation: Operation, name: string, fx: Fixtures): string[] {
  const segments = operation.path.split('/');
  const previous = segments[segments.indexOf(`{${name}}`) - 1];
  const destructive = operation.method === 'DELETE' && segments.length === 5;
  const enc = encodeURIComponent;
  const users = [fx.user.user.id, fx.admin.user.id, fx.spareUser.user.id].map(String);
  switch (name) {
    case 'id':
      switch (previous) {
        case 'projects':
          return destructive ? [String(fx.spareProject.id)] : [String(fx.project.id), enc(fx.project.full_path), String(fx.privateProject.id)];
        case 'groups':
          return destructive ? [String(fx.spareGroup.id)] : [String(fx.group.id), enc(fx.group.full_path), String(fx.subgroup.id)];
        case 'namespaces':
          return [String(fx.group.id), enc(fx.group.full_path), fx.user.user.username];
        case 'users':
          return destructive ? [String(fx.spareUser.user.id)] : users;
        case 'personal_access_tokens':
          return fx.personalTokenIds.map(String);
      }
      return [...users, String(fx.project.id)];
    case 'user_id':
      return users;
    case 'branch':
      return ['main', 'feature'];
    case 'tag_name':
      return ['v1.0', 'v2.0'];
    case 'name':
      return ['main', enc('release/*'), 'v*'];
    case 'file_path':
      return ['README.md', enc('docs/guide.md')];
    case 'sha':
      return [fx.commit, 'main', 'v1.0'];
    case 'key':
      return ['team'];
    case 'format':
      return ['zip', 'tar.gz', 'tar'];
    case 'asset':
      return ['swagger-ui.css'];
    case 'token_id':
      return fx.projectTokenIds.map(String);
  }
  return [...users, String(fx.project.id), '1'];
}

/** application/x-www-form-urlencoded, nested the way Rack reads it back (a[]=, a[][k]=, a[k]=). */
function formPairs(value: unknown, key: string, out: string[]): string[] {
  if (Array.isArray(value)) for (const item of value) formPairs(item, `${key}[]`, out);
  else if (isRaw(value)) out.push(`${encodeURIComponent(key)}=${encodeURIComponent(value.__raw.slice(0, 1000))}`);
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) formPairs(v, `${key}[${k}]`, out);
  else out.push(`${encodeURIComponent(key)}=${encodeQuery(String(value ?? ''))}`);
  return out;
}

/** encodeURIComponent, with a lone surrogate written as the invalid bytes WTF-8 would give it. */
function encodeQuery(value: string): string {
  let out = '';
  for (const ch of value) out += ch.isWellFormed() ? encodeURIComponent(ch) : '%ED%A0%80';
  return out;
}

function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => (isRaw(v) ? `\u0001RAW${raws.push(v.__raw) - 1}\u0001` : v));
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i) => raws[Number(i)]);
}

function multipart(fields: string[]): { payload: string; type: string } {
  const boundary = `fuzz${randomBytes(4).toString('hex')}`;
  const parts = fields.map((pair) => {
    const [k, v = ''] = pair.split('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(k);
      value = decodeURIComponent(v);
    } catch {
      name = k;
      value = v;
    }
    return `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"\r\n\r\n${value}\r\n`;
  });
  return { payload: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

function buildRequest(operation: Operation, caseIndex: number, fx: Fixtures): Request {
  const rng = new Rng(hash(`${SEED} ${operation.method} ${operation.path} ${caseIndex}`));
  // The first case of every operation is well-formed: each one is reached at least once.
  const kind: Kind = caseIndex === 0 ? 'wellFormed' : rng.pick(KINDS);
  const path: Record<string, string> = {};
  for (const p of operation.pathParams) path[p.name] = rng.pick(pathValues(operation, p.name, fx));
  // How many of the optional parameters a case sets: few, some or most.
  const optional = rng.pick([0.1, 0.3, 0.7]);
  const query: Record<string, unknown> = {};
  for (const p of operation.queryParams) {
    if (p.name === 'private_token') continue;
    if (p.required || rng.chance(optional)) query[p.name] = wellFormed(p.schema, p.name, rng, fx);
  }
  const body: Record<string, unknown> | undefined = operation.body ? wellFormedObject(operation.body, rng, fx, 0, optional) : undefined;
  // The inputs a mutation may pick: [where, name, schema].
  const inputs: [string, string, Json][] = [
    ...operation.pathParams.map((p): [string, string, Json] => ['path', p.name, p.schema]),
    ...operation.queryParams.map((p): [string, string, Json] => ['query', p.name, p.schema]),
    ...Object.entries((operation.body?.properties ?? {}) as Json).map(([k, s]): [string, string, Json] => ['body', k, s as Json]),
  ];
  const set = (where: string, name: string, value: unknown) => {
    if (where === 'path') path[name] = String(value);
    else if (where === 'query' || !body) query[name] = value;
    else body[name] = value;
  };
  let rawPath: string | undefined;
  let rawQuery = '';
  let rawBody: string | undefined;
  // One input changed, or two.
  const mutations = kind === 'wellFormed' ? 0 : rng.chance(0.25) ? 2 : 1;
  for (let m = 0; m < mutations; m++) {
    const target = inputs.length > 0 ? rng.pick(inputs) : undefined;
    switch (kind) {
      case 'boundary':
        if (target) set(target[0], target[1], target[0] === 'path' ? rng.pick(['0', '-1', '2147483648', '']) : boundary(target[2], rng));
        break;
      case 'wrongType':
        if (target && target[0] !== 'path') set(target[0], target[1], wrongType(target[2], rng));
        else if (target) path[target[1]] = rng.pick(['abc', '1.5', 'true', '%7B%7D']);
        break;
      case 'missing': {
        const required = [...(operation.body?.required ?? []).map((k: string) => ['body', k]), ...operation.queryParams.filter((p) => p.required).map((p) => ['query', p.name])];
        if (required.length > 0) {
          const [where, name] = rng.pick(required);
          if (where === 'body' && body) delete body[name];
          else delete query[name];
        } else if (body && rng.chance(0.5)) rawBody = '';
        break;
      }
      case 'long':
        if (target) set(target[0], target[1], target[0] === 'path' ? 'l'.repeat(rng.pick([300, 2100])) : 'l'.repeat(rng.pick([1000, 70_000, 300_000])));
        break;
      case 'unicode':
        if (target) set(target[0], target[1], target[0] === 'path' ? encodeQuery(rng.pick(ODD_UNICODE)) : rng.pick(ODD_UNICODE));
        break;
      case 'nul':
        if (target) set(target[0], target[1], target[0] === 'path' ? rng.pick(['%00', 'main%00', 'README.md%00.txt']) : rng.pick(NUL_STRINGS));
        break;
      case 'percent':
        if (target?.[0] === 'path') path[target[1]] = rng.pick(BROKEN_PERCENT);
        else rawQuery = `${rng.pick(['', 'x', target?.[1] ?? 'page'])}=${rng.pick(BROKEN_PERCENT)}&${rng.pick(BROKEN_PERCENT)}=1`;
        break;
      case 'pathTrick':
        if (target?.[0] === 'path') path[target[1]] = rng.pick(PATH_TRICKS);
        else rawPath = rng.pick(['//', '/./', '/../', '%2F', '/;x=1/']);
        break;
      case 'bigNumber':
        if (target) set(target[0], target[1], target[0] === 'body' && rng.chance(0.5) ? RAW(rng.pick(BIG_NUMBERS)) : rng.pick(BIG_NUMBERS));
        break;
      case 'deep':
        if (target && target[0] === 'body') set('body', target[1], deepNest(rng.pick([100, 10_000, 100_000]), rng));
        else if (target?.[0] === 'query') rawQuery = `${target[1]}${'[a]'.repeat(40)}=1&${target[1]}${'[]'.repeat(40)}=1`;
        else rawBody = deepNest(rng.pick([1000, 100_000]), rng).__raw;
        break;
      case 'huge':
        if (target?.[0] === 'body') set('body', target[1], huge(rng));
        else rawQuery = Array.from({ length: 2000 }, (_, i) => `q${i}[]=${i}`).join('&');
        break;
    }
  }
  let url = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => path[name] ?? '1');
  if (rawPath) {
    const cut = url.lastIndexOf('/');
    url = url.slice(0, cut) + rawPath + url.slice(cut + 1);
  }
  const queryText = [...Object.entries(query).flatMap(([k, v]) => formPairs(v, k, [])), ...(rawQuery ? [rawQuery] : [])].join('&');
  if (queryText) url += `?${queryText}`;
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (rawBody !== undefined) {
    headers['content-type'] = 'application/json';
    payload = rawBody;
  } else if (body) {
    const encoding = rng.int(10);
    if (encoding < 7) {
      headers['content-type'] = 'application/json';
      payload = jsonText(body);
    } else if (encoding < 9) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = Object.entries(body).flatMap(([k, v]) => formPairs(v, k, [])).join('&');
    } else {
      const form = multipart(Object.entries(body).flatMap(([k, v]) => formPairs(v, k, [])));
      headers['content-type'] = form.type;
      payload = form.payload;
    }
  }
  return { kind, method: operation.method, url, headers, payload };
}

// ---- sending --------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

let t: TestApp;
let host: string;
let fx: Fixtures;
let snapshotQuery: ReturnType<typeof sql.raw>;

async function viaInject(request: Request): Promise<Answer> {
  const res = await t.app.inject({ method: request.method as InjectOptions['method'], url: request.url, headers: request.headers, payload: request.payload });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

/** Over a real socket, with the path exactly as written (broken escapes included). */
function viaSocket(request: Request): Promise<Answer> {
  const { hostname, port } = new URL(host);
  return new Promise((resolve, reject) => {
    // Node frames no body of a GET or DELETE by itself: say its length.
    const headers = request.payload === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.payload)) };
    const req = http.request({ host: hostname, port, method: request.method, path: request.url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(request.payload);
  });
}

// ---- what must not change -------------------------------------------------------------------

async function snapshot(): Promise<Record<string, string>> {
  const row = (await snapshotQuery.execute(t.deps.db)).rows[0] as Record<string, unknown>;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, String(v)]));
}

async function refsOf(dir: string): Promise<string> {
  return (await listRefs(dir))
    .map((r) => `${r.ref} ${r.target}`)
    .sort()
    .join('\n');
}

// ---- fixtures -------------------------------------------------------------------------------

async function seed(): Promise<Fixtures> {
  const admin = await t.user({ admin: true }, ['api', 'sudo']);
  const user = await t.user();
  const spareUser = await t.user();
  const group = await createGroup(t, { visibility: 'public', members: [[user.user.id, ACCESS.DEVELOPER]] });
  const subgroup = await createGroup(t, { visibility: 'public', parent: group });
  const spareGroup = await createGroup(t, { visibility: 'public', members: [[user.user.id, ACCESS.OWNER]] });
  const project = await createProject(t, { namespace: group, visibility: 'public', creatorId: admin.user.id });
  const { dir } = await giveRepository(t, project);
  const commit = (await createCommit(dir, {
    branch: 'main',
    actions: [
      { action: 'create', path: 'docs/guide.md', content: '# Guide\n' },
      { action: 'create', path: 'src/main.ts', content: 'export {};\n' },
    ],
    message: 'Add the guide',
    author: AUTHOR,
  })).id;
  await updateRefs(dir, [{ ref: 'refs/heads/feature', newId: commit }]);
  const privateProject = await createProject(t, { namespace: await t.deps.db.selectFrom('namespaces').selectAll().where('owner_id', '=', spareUser.user.id).executeTakeFirstOrThrow(), creatorId: spareUser.user.id });
  const spareProject = await createProject(t, { namespace: group, visibility: 'public', creatorId: admin.user.id });
  await giveRepository(t, spareProject);
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown) => {
    // The administrator made here: root's own token may have been revoked by a request of the run.
    const res = await t.request(method, url, { token: admin.token, body });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  await call('POST', `/api/v4/projects/${project.id}/repository/tags`, { tag_name: 'v1.0', ref: 'main' });
  await call('POST', `/api/v4/projects/${project.id}/repository/tags`, { tag_name: 'v2.0', ref: 'feature', message: 'Annotated' });
  await call('POST', `/api/v4/projects/${project.id}/protected_branches`, { name: 'release/*' });
  await call('POST', `/api/v4/projects/${project.id}/protected_tags`, { name: 'v*' });
  await call('PUT', `/api/v4/users/${user.user.id}/custom_attributes/team`, { value: 'core' });
  await call('POST', `/api/v4/users/${user.user.id}/impersonation_tokens`, { name: 'imp', scopes: ['api'] });
  const projectToken = await call('POST', `/api/v4/projects/${project.id}/access_tokens`, { name: 'bot', scopes: ['api'], access_level: 30 });
  const tokenIds = await t.deps.db.selectFrom('personal_access_tokens').select('id').execute();
  await addMember(t, project, spareUser.user.id, ACCESS.REPORTER);
  return {
    admin,
    user,
    spareUser,
    group,
    subgroup,
    spareGroup,
    project,
    privateProject,
    spareProject,
    repoDir: dir,
    refs: await listRefs(dir),
    commit,
    personalTokenIds: tokenIds.map((r) => r.id),
    projectTokenIds: [projectToken.id],
  };
}

/**
 * A successful write may have deleted, blocked or demoted what the next requests need, or revoked
 * a caller's token: put back what the run relies on.
 */
async function heal(): Promise<void> {
  const { db } = t.deps;
  for (const who of ['admin', 'user', 'spareUser'] as const) {
    const admin = who === 'admin';
    const row = await db.selectFrom('users').select('id').where('id', '=', fx[who].user.id).executeTakeFirst();
    if (!row) {
      fx[who] = await t.user({ admin }, admin ? ['api', 'sudo'] : ['api']);
      continue;
    }
    await db.updateTable('users').set({ state: 'active', admin }).where('id', '=', fx[who].user.id).execute();
    await db.updateTable('personal_access_tokens').set({ revoked: false, expires_at: null }).where('user_id', '=', fx[who].user.id).execute();
  }
  const group = await db.selectFrom('namespaces').selectAll().where('id', '=', fx.group.id).executeTakeFirst();
  const project = await db.selectFrom('projects').selectAll().where('id', '=', fx.project.id).executeTakeFirst();
  if (!group || !project) {
    // Deleted: seed a new set (the refs and row counts are taken again by the caller).
    fx = await seed();
    return;
  }
  await db.updateTable('projects').set({ archived: false, repository_read_only: false, visibility_level: 20, default_branch: 'main' }).where('id', '=', project.id).execute();
  await db.updateTable('namespaces').set({ visibility_level: 20 }).where('id', '=', group.id).execute();
  fx.group = group;
  fx.project = await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
  for (const key of ['subgroup', 'spareGroup'] as const) {
    const found = await db.selectFrom('namespaces').selectAll().where('id', '=', fx[key].id).executeTakeFirst();
    fx[key] = found ?? (await createGroup(t, { visibility: 'public', parent: key === 'subgroup' ? fx.group : undefined }));
  }
  const spare = await db.selectFrom('projects').selectAll().where('id', '=', fx.spareProject.id).executeTakeFirst();
  if (!spare) {
    fx.spareProject = await createProject(t, { namespace: fx.group, visibility: 'public', creatorId: fx.admin.user.id });
    await giveRepository(t, fx.spareProject);
  }
  const memberships = await db.selectFrom('members').select('id').where('source_type', '=', 'Namespace').where('source_id', '=', fx.group.id).where('user_id', '=', fx.user.user.id).execute();
  if (memberships.length === 0) await addMember(t, fx.group, fx.user.user.id, ACCESS.DEVELOPER);
}

/** The seeded refs where they were; refs a write added stay. */
async function restoreRefs(): Promise<void> {
  const now = new Map((await listRefs(fx.repoDir)).map((r) => [r.ref, r.target]));
  const moved = fx.refs.filter((r) => now.get(r.ref) !== r.target).map((r) => ({ ref: r.ref, newId: r.target }));
  if (moved.length > 0) await updateRefs(fx.repoDir, moved);
}

// ---- the run --------------------------------------------------------------------------------

before(async () => {
  ({ t, host } = await listeningTestApp());
  const schema = t.deps.database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(t.deps.db)).rows[0].s : undefined;
  const tables = (await t.deps.db.introspection.getTables())
    .filter((x) => (schema === undefined || x.schema === schema) && !x.name.startsWith('schema_migrations'))
    .sort((a, b) => a.name.localeCompare(b.name));
  assert.ok(tables.some((x) => x.name === 'users'));
  // Row counts of every table, and the newest updated_at of those that have one: a refused
  // request that inserted, deleted or updated a row shows up in one of them.
  const columns = tables.flatMap((x) => [
    `(select count(*) from "${x.name}") as "${x.name}"`,
    ...(x.columns.some((c) => c.name === 'updated_at') ? [`(select max(updated_at) from "${x.name}") as "${x.name}.updated_at"`] : []),
  ]);
  snapshotQuery = sql.raw(`select ${columns.join(', ')}`);
  fx = await seed();
});
after(() => t?.close());

test(`every operation of the API document, fuzzed from its schemas (seed ${SEED})`, { timeout: 600_000 }, async (ctx) => {
  const docRes = await t.app.inject({ url: '/-/openapi.json' });
  assert.equal(docRes.statusCode, 200);
  const doc = docRes.json() as Json;
  const operations = operationsOf(doc);
  assert.ok(operations.length > 100, `${operations.length} operations`);
  const check = responseChecker(doc);
  const actors = ['admin', 'user', 'anonymous'] as const;
  // One example of each kind of failure per operation, and how often it happened.
  const failures = new Map<string, { text: string; times: number }>();
  const fail = (key: string, text: string) => {
    const known = failures.get(key);
    if (known) known.times++;
    else failures.set(key, { text, times: 1 });
  };
  const enough = () => failures.size >= 60;
  const statuses = new Map<number, number>();
  const reached = new Set<string>();
  const slowest = new Map<string, number>();
  let requests = 0;
  let viaSockets = 0;
  const started = Date.now();
  let previous = await snapshot();
  let refsDir = fx.repoDir;
  let refs = await refsOf(refsDir);
  let rounds = 0;
  for (let round = 0; round < CASES; round++) {
    if (round > 0 && Date.now() - started > BUDGET_MS) break;
    rounds++;
    for (const operation of operations) {
      let wrote = false;
      for (const actor of actors) {
        const request = buildRequest(operation, round, fx);
        const token = actor === 'anonymous' ? undefined : fx[actor].token;
        if (token) request.headers['private-token'] = token;
        const name = `${operation.method} ${operation.path} as ${actor} (${request.kind}, seed ${SEED}, case ${round})`;
        const shown = () => `${request.method} ${request.url.slice(0, 300)}\n  ${JSON.stringify(request.headers).slice(0, 200)}\n  ${String(request.payload ?? '').slice(0, 300)}`;
        const socket = requests % SOCKET_SHARE === SOCKET_SHARE - 1;
        let answer: Answer;
        const sentAt = Date.now();
        try {
          answer = socket ? await viaSocket(request) : await viaInject(request);
        } catch (error) {
          fail(`${operation.method} ${operation.path} threw`, `${name}: ${socket ? 'the connection was dropped' : 'inject threw'}: ${(error as Error).message}\n  ${shown()}`);
          continue;
        }
        requests++;
        if (socket) viaSockets++;
        const key = `${operation.method} ${operation.path} ${request.kind}${socket ? ' socket' : ''}`;
        slowest.set(key, Math.max(slowest.get(key) ?? 0, Date.now() - sentAt));
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const succeeded = answer.status >= 200 && answer.status < 300;
        if (succeeded || (answer.status >= 400 && answer.status !== 401 && answer.status !== 404 && answer.status !== 403)) reached.add(`${operation.method} ${operation.path}`);
        const answering = reachedOperation(operations, operation.method, request.url, socket) ?? NO_ROUTE;
        const fault = check(answering, answer.status, answer.headers, answer.body);
        if (fault) fail(`${operation.method} ${operation.path} ${answer.status} ${fault.split(':')[0]}`, `${name}: ${answer.status} with ${fault}\n  ${shown()}\n  → ${answer.body.slice(0, 300)}`);
        const now = await snapshot();
        const changed = Object.keys(now).filter((k) => now[k] !== previous[k]);
        // A redirect is the web sign-in's success (the session written, 302 to the page).
        const signedIn = answer.status >= 300 && answer.status < 400 && operation.op.tags?.includes('web');
        if (changed.length > 0 && !succeeded && !signedIn) {
          fail(`${operation.method} ${operation.path} ${answer.status} wrote`, `${name}: ${answer.status}, yet ${changed.join(', ')} changed\n  ${shown()}`);
        }
        if (succeeded && operation.write) wrote = true;
        if (changed.length > 0 || (succeeded && operation.write)) {
          await heal();
          previous = await snapshot();
        }
        if (enough()) break;
      }
      if (operation.write && refsDir !== fx.repoDir) {
        // The seeded set was made again.
        refsDir = fx.repoDir;
        refs = await refsOf(refsDir);
      } else if (operation.write) {
        const after = await refsOf(fx.repoDir);
        if (after !== refs && !wrote) fail(`${operation.method} ${operation.path} refs`, `${operation.method} ${operation.path}: the refs moved without a success (case ${round})`);
        if (after !== refs) {
          await restoreRefs();
          previous = await snapshot();
          refs = await refsOf(fx.repoDir);
        }
      }
      if (enough()) break;
    }
    if (enough()) break;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const seen = [...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
  const summary = `fuzz: ${operations.length} operations, ${rounds} rounds, ${requests} requests (${viaSockets} over a socket) in ${seconds}s; reached ${reached.size}; statuses ${seen}`;
  ctx.diagnostic(summary);
  if (process.env.QUARRY_FUZZ_VERBOSE) console.log(summary);
  const report = [...failures.values()].map((f) => (f.times > 1 ? `${f.text}\n  (${f.times} times)` : f.text));
  if (process.env.QUARRY_FUZZ_REPORT) {
    const slow = [...slowest.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, ms]) => `  ${ms} ms ${k}`);
    fs.writeFileSync(process.env.QUARRY_FUZZ_REPORT, `${summary}\nslowest:\n${slow.join('\n')}\n\n${report.join('\n\n')}\n`);
  }
  assert.deepEqual(report, [], `seed ${SEED}: ${report.length} kinds of failure\n\n${report.join('\n\n')}`);
});
