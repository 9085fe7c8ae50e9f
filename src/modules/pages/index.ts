// What the pages module offers the application's wiring beyond its routes: serving sites on the
// API's HTTP server (a hook that takes the requests of pages hosts before any route, body parser or
// authentication), and the TLS server of QUARRY_PAGES_HTTPS_PORT, which picks each custom domain's
// certificate by the name the client asks for (SNI). A handshake for a name with no certificate
// fails; the certificate and key are read from the database at each handshake (one indexed read),
// so that a changed certificate is used at once, on every node.
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls, { type SecureContext } from 'node:tls';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import { secretBox } from '../../core/secret-box.ts';
import { domainCertificate } from './pages-sites.finder.ts';
import { type SiteResponse, hostName, pagesHostMatcher, siteResponse } from './pages-sites.ts';

/** Answers the requests of pages hosts on the application's server. */
export function installPagesSites(app: FastifyInstance): void {
  const deps = app.deps;
  if (!deps.config.pagesEnabled) return;
  const pagesHost = pagesHostMatcher(deps.config);
  app.addHook('onRequest', async (req, reply) => {
    const host = pagesHost(req.headers.host);
    if (host === null) return;
    const answer = await siteResponse(deps, host, req.method, req.url);
    if (answer === null) return;
    reply.code(answer.status).headers(answer.headers);
    return reply.send(answer.file && req.method !== 'HEAD' ? createReadStream(answer.file) : req.method === 'HEAD' ? undefined : answer.body);
  });
}

function writeRaw(res: ServerResponse, answer: SiteResponse, method: string): void {
  res.writeHead(answer.status, answer.headers);
  if (method === 'HEAD') res.end();
  else if (answer.file) createReadStream(answer.file).on('error', () => res.destroy()).pipe(res);
  else res.end(answer.body);
}

export interface PagesHttpsServer {
  port: number;
  close(): Promise<void>;
}

/** Starts the TLS server of the sites on QUARRY_PAGES_HTTPS_PORT (or `port`). */
export async function startPagesHttps(deps: Deps, log: FastifyBaseLogger, port = deps.config.pagesHttpsPort ?? 0): Promise<PagesHttpsServer> {
  // One context a domain, replaced when the domain changes.
  const contexts = new Map<string, { version: string; context: SecureContext }>();
  const box = secretBox(deps.config.dataDir);
  const sniCallback = (servername: string, done: (error: Error | null, context?: SecureContext) => void) => {
    const name = hostName(servername) ?? '';
    domainCertificate(deps.db, name)
      .then((row) => {
        const enabled = row && (!deps.config.pagesDomainVerification || (row.enabled_until !== null && row.enabled_until >= deps.now().toISOString()));
        if (!row || !enabled || !row.certificate || !row.key_encrypted) return done(new Error(`no certificate for ${name}`));
        const version = `${row.id}:${row.updated_at}`;
        let cached = contexts.get(name);
        if (cached?.version !== version) {
          cached = { version, context: tls.createSecureContext({ cert: row.certificate, key: box.open(row.key_encrypted) }) };
          contexts.set(name, cached);
        }
        done(null, cached.context);
      })
      .catch((error: Error) => done(error));
  };
  const pagesHost = pagesHostMatcher(deps.config);
  const server = https.createServer({ SNICallback: sniCallback }, (req, res) => {
    const host = pagesHost(req.headers.host);
    const method = req.method ?? 'GET';
    const answering = host ? siteResponse(deps, host, method, req.url ?? '/') : Promise.resolve(null);
    answering
      .then((answer) => writeRaw(res, answer ?? { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 Not Found' }, method))
      .catch((error: Error) => {
        log.error({ err: error }, 'pages: serving a site failed');
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, deps.config.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
