// GET /version and GET /metadata: the same body; /version is the older alias.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Entity, Nullable } from '../../core/schema.ts';
import { PRODUCT_REVISION, REPORTED_VERSION } from '../../version.ts';

export const MetadataEntity = Entity({
  version: Type.String(),
  revision: Type.String(),
  kas: Entity({
    enabled: Type.Boolean(),
    externalUrl: Nullable(Type.String()),
    externalK8sProxyUrl: Nullable(Type.String()),
    version: Nullable(Type.String()),
  }),
  enterprise: Type.Boolean(),
});

const body = {
  version: REPORTED_VERSION,
  revision: PRODUCT_REVISION,
  kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
  enterprise: false,
};

export const metadataRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const options = { schema: { response: { 200: MetadataEntity } }, config: { auth: 'required' as const, scopes: ['read_user' as const] } };
  api.get('/version', options, async () => body);
  api.get('/metadata', options, async () => body);
};
