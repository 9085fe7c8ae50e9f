// OPTIONS on any known path answers 204 with `Allow: OPTIONS, <methods in definition order>, HEAD`.
// One catch-all route answers them all from a table of the paths' methods, made at the first
// OPTIONS request: a route of its own for each of the ~570 paths cost about 130 ms of every start.
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { NoContent } from './schema.ts';

/** How paths match routes: the application's router's options, for the table to match alike. */
export const ROUTER_MATCHING = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2000 };

export function collectRouteMethods(app: FastifyInstance): Map<string, string[]> {
  const byUrl = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = byUrl.get(route.url) ?? [];
    for (const m of methods) if (m !== 'HEAD' && m !== 'OPTIONS' && !known.includes(m)) known.push(m);
    byUrl.set(route.url, known);
  });
  return byUrl;
}

/** The Allow header of each known path, by matching as the application's router does. */
function allowTable(byUrl: Map<string, string[]>): FindMyWay.Instance<FindMyWay.HTTPVersion.V1> {
  const table = FindMyWay(ROUTER_MATCHING);
  for (const [url, methods] of byUrl) {
    if (methods.length === 0) continue;
    const allow = ['OPTIONS', ...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    table.on('OPTIONS', url, () => {}, allow);
  }
  return table;
}

export function registerOptionsRoute(app: FastifyInstance, byUrl: Map<string, string[]>): void {
  let table: ReturnType<typeof allowTable> | null = null;
  app.options('*', { schema: { hide: true, response: { 204: NoContent } }, config: { auth: 'optional' } }, async (req, reply) => {
    table ??= allowTable(byUrl);
    const found = table.find('OPTIONS', req.url);
    if (found === null) return reply.callNotFound();
    return reply.code(204).header('allow', found.store as string).send();
  });
}
