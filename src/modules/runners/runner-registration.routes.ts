// The runner's own calls to register, verify and remove itself (notes gitlab-ci.md §1.2 and §8):
// JSON or form-encoded bodies, the token in the body; 403 for an unknown token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { serviceContext } from '../../core/context.ts';
import { parseQueryString } from '../../core/query-string.ts';
import { forbidden } from '../../core/errors.ts';
import { NoContent } from '../../core/schema.ts';
import { RegisterRunnerBody, RunnerRegistrationEntity, RunnerTokenBody } from './runners.schemas.ts';
import { deleteRunner, findRunnerByToken, heartbeat, registerRunner } from './runners.service.ts';

/** Runners authenticate with the token in their body, which these routes check themselves. */
const RUNNER = { auth: 'none' } as const;

/** A form body, where some runners repeat `tag_list` for each tag (notes §8.2): every one is kept. */
function parseRunnerForm(text: string): Record<string, unknown> {
  const params = parseQueryString(text) as Record<string, unknown>;
  const tags = new URLSearchParams(text).getAll('tag_list');
  if (tags.length > 1) params.tag_list = tags.join(',');
  return params;
}

export const runnerRegistrationRoutes: FastifyPluginAsyncTypebox = async (api) => {
  api.removeContentTypeParser('application/x-www-form-urlencoded');
  api.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, parseRunnerForm(body as string)));
  api.post('/runners', { schema: { body: RegisterRunnerBody, response: { 201: RunnerRegistrationEntity } }, config: RUNNER }, async (req, reply) => {
    const registered = await registerRunner(serviceContext(req), req.body, req.ip);
    if (!registered) throw forbidden();
    reply.code(201);
    return { ...registered, token_expires_at: null };
  });

  // 14.x answers a bare "200"; newer runners registering with a `glrt-` token need the JSON (notes §8.7).
  api.post('/runners/verify', { schema: { body: RunnerTokenBody, response: { 200: RunnerRegistrationEntity } }, config: RUNNER }, async (req) => {
    const ctx = serviceContext(req);
    const runner = await findRunnerByToken(ctx.db, req.body.token);
    if (!runner) throw forbidden();
    await heartbeat(ctx, runner, req.body.info, req.ip);
    return { id: runner.id, token: req.body.token, token_expires_at: null };
  });

  api.delete('/runners', { schema: { body: RunnerTokenBody, response: { 204: NoContent } }, config: RUNNER }, async (req, reply) => {
    const ctx = serviceContext(req);
    const runner = await findRunnerByToken(ctx.db, req.body.token);
    if (!runner) throw forbidden();
    await deleteRunner(ctx, runner.id);
    return reply.code(204).send();
  });
};
