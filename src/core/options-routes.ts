// OPTIONS on any known path answers 204 with `Allow: OPTIONS, <methods in definition order>, HEAD`.
import type { FastifyInstance } from 'fastify';
import { NoContent } from './schema.ts';

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

export function registerOptionsRoutes(app: FastifyInstance, byUrl: Map<string, string[]>): void {
  for (const [url, methods] of byUrl) {
    if (methods.length === 0) continue;
    const allow = ['OPTIONS', ...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    app.options(url, { schema: { response: { 204: NoContent } }, config: { auth: 'optional' } }, async (_req, reply) => reply.code(204).header('allow', allow).send());
  }
}
