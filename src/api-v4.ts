// Every module of /api/v4, registered explicitly, one line each.
import type { FastifyPluginAsync } from 'fastify';
import { accessTokenRoutes } from './modules/access-tokens/access-tokens.routes.ts';
import { metadataRoutes } from './modules/metadata/metadata.routes.ts';
import { userCustomAttributeRoutes } from './modules/users/custom-attributes.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';

export const apiV4: FastifyPluginAsync = async (api) => {
  await api.register(accessTokenRoutes);
  await api.register(metadataRoutes);
  await api.register(userRoutes);
  await api.register(userCustomAttributeRoutes);
};
