// GET /-/openapi.json, the API as an OpenAPI 3.1 document (api-docs.document.ts), and GET
// /-/api-docs, an interactive reference made from it by Swagger UI, whose few files are served
// from the swagger-ui-dist package: no CDN, the page works offline.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Entity } from '../../core/schema.ts';

const ASSET_BASE = '/-/api-docs';
/** The only files served, by name: nothing else of the package (and no other path) is reachable. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The document's own parts are described by the OpenAPI specification, not here. */
const OpenApiDocumentEntity = Entity({
  openapi: Type.String(),
  info: Type.Unknown(),
  paths: Type.Optional(Type.Unknown()),
  components: Type.Optional(Type.Unknown()),
});

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference · Quarry</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="${ASSET_BASE}/favicon-32x32.png">
<link rel="stylesheet" href="${ASSET_BASE}/swagger-ui.css">
</head><body><div id="api-docs"></div>
<script src="${ASSET_BASE}/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/-/openapi.json', dom_id: '#api-docs', deepLinking: true, validatorUrl: null });</script>
</body></html>
`;

export const apiDocsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = { auth: 'none' } as const;
  let assetDir: string | undefined;

  app.get('/-/openapi.json', { config, schema: { response: { 200: OpenApiDocumentEntity } } }, async () => {
    // Built on the first request, not at start-up, and kept (by @fastify/swagger).
    const document = app.swagger();
    if (!('openapi' in document)) throw new Error('the API document is not OpenAPI 3');
    return document;
  });

  app.get('/-/api-docs', { config: { ...config, json: false } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));

  app.get<{ Params: { asset: string } }>(`${ASSET_BASE}/:asset`, { config: { ...config, json: false } }, async (req, reply) => {
    const type = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset] : undefined;
    if (!type) return reply.callNotFound();
    assetDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=3600')
      .send(fs.createReadStream(path.join(assetDir, req.params.asset)));
  });
};
