// Every module of /api/v4, registered explicitly, one line each.
import type { FastifyPluginAsync } from 'fastify';
import { accessTokenRoutes } from './modules/access-tokens/access-tokens.routes.ts';
import { applicationSettingRoutes } from './modules/application-settings/application-settings.routes.ts';
import { branchRoutes } from './modules/branches/branches.routes.ts';
import { commitRoutes } from './modules/commits/commits.routes.ts';
import { eventRoutes } from './modules/events/events.routes.ts';
import { groupRoutes } from './modules/groups/groups.routes.ts';
import { memberRoutes } from './modules/members/members.routes.ts';
import { metadataRoutes } from './modules/metadata/metadata.routes.ts';
import { namespaceRoutes } from './modules/namespaces/namespaces.routes.ts';
import { projectRoutes } from './modules/projects/projects.routes.ts';
import { projectAccessTokenRoutes } from './modules/project-access-tokens/project-access-tokens.routes.ts';
import { protectedRefRoutes } from './modules/protected-refs/protected-refs.routes.ts';
import { repositoryFileRoutes } from './modules/repository-files/repository-files.routes.ts';
import { repositoryRoutes } from './modules/repository/repository.routes.ts';
import { tagRoutes } from './modules/tags/tags.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';

export const apiV4: FastifyPluginAsync = async (api) => {
  await api.register(accessTokenRoutes);
  await api.register(applicationSettingRoutes);
  await api.register(branchRoutes);
  await api.register(commitRoutes);
  await api.register(eventRoutes);
  await api.register(groupRoutes);
  await api.register(memberRoutes);
  await api.register(metadataRoutes);
  await api.register(namespaceRoutes);
  await api.register(projectRoutes);
  await api.register(projectAccessTokenRoutes);
  await api.register(protectedRefRoutes);
  await api.register(repositoryFileRoutes);
  await api.register(repositoryRoutes);
  await api.register(tagRoutes);
  await api.register(userRoutes);
};
