// HEAD on a path is answered by its GET route, without the body (Node sends none for HEAD), as the
// platform does; a path with a HEAD route of its own (a branch's existence check) keeps it. One
// route per path instead of Fastify's HEAD twin of every GET route (exposeHeadRoutes), whose
// ~370 extra routes cost about 40 ms of every start. The request is routed as a GET and is a
// HEAD again from its first hook on, for the handlers, the log and the metrics.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';
import { ROUTER_MATCHING } from './options-routes.ts';

const ROUTED_AS_GET = Symbol('quarry.routedAsGet');
type Raw = IncomingMessage & { [ROUTED_AS_GET]?: true };

export interface HeadRequests {
  /** Fastify's rewriteUrl: runs before routing, and routes a HEAD without a route of its own as a GET. */
  rewriteUrl(req: IncomingMessage): string;
  /** Learns the HEAD routes as they are registered, and makes routed requests HEAD again. */
  install(app: FastifyInstance): void;
}

export function headRequests(): HeadRequests {
  const headUrls: string[] = [];
  let headRoutes: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | null = null;
  const hasHeadRoute = (url: string) => {
    if (headUrls.length === 0) return false;
    if (headRoutes === null) {
      headRoutes = FindMyWay(ROUTER_MATCHING);
      for (const route of headUrls) headRoutes.on('HEAD', route, () => {});
    }
    return headRoutes.find('HEAD', url) !== null;
  };
  return {
    rewriteUrl(req) {
      const url = req.url ?? '/';
      if (req.method === 'HEAD' && !hasHeadRoute(url)) {
        req.method = 'GET';
        (req as Raw)[ROUTED_AS_GET] = true;
      }
      return url;
    },
    install(app) {
      app.addHook('onRoute', (route) => {
        if ([route.method].flat().includes('HEAD')) headUrls.push(route.url);
      });
      app.addHook('onRequest', (req, _reply, done) => {
        if ((req.raw as Raw)[ROUTED_AS_GET]) req.raw.method = 'HEAD';
        done();
      });
    },
  };
}
