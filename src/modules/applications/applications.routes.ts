// The Applications API: administrators register OAuth applications (POST answers the secret, once),
// list them, renew a secret and delete them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { NoContent } from '../../core/schema.ts';
import { listApplications } from './applications.finder.ts';
import { presentApplication, presentApplicationWithSecret } from './applications.presenter.ts';
import { ApplicationEntity, ApplicationParams, ApplicationWithSecretEntity, CreateApplicationBody } from './applications.schemas.ts';
import { createApplication, deleteApplication, renewApplicationSecret } from './applications.service.ts';

const ADMIN = { auth: 'required' } as const;

export const applicationRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  api.post('/applications', { schema: { body: CreateApplicationBody, response: { 201: ApplicationWithSecretEntity } }, config: ADMIN, preHandler: adminOnly }, async (req, reply) => {
    const { row, secret } = await createApplication(serviceContext(req), req.body);
    return reply.code(201).send(presentApplicationWithSecret(row, secret));
  });

  api.get('/applications', { schema: { response: { 200: Type.Array(ApplicationEntity) } }, config: ADMIN, preHandler: adminOnly }, async () =>
    (await listApplications(db)).map(presentApplication),
  );

  // A later release's addition, kept because clients that rotate secrets call it.
  api.post(
    '/applications/:id/renew-secret',
    { schema: { params: ApplicationParams, response: { 201: ApplicationWithSecretEntity } }, config: ADMIN, preHandler: adminOnly },
    async (req, reply) => {
      const { row, secret } = await renewApplicationSecret(serviceContext(req), req.params.id);
      return reply.code(201).send(presentApplicationWithSecret(row, secret));
    },
  );

  api.delete('/applications/:id', { schema: { params: ApplicationParams, response: { 204: NoContent } }, config: ADMIN, preHandler: adminOnly }, async (req, reply) => {
    await deleteApplication(serviceContext(req), req.params.id);
    return reply.code(204).send();
  });
};
