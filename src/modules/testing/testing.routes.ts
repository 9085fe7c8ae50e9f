// Integration-test mode's routes (registered only in ephemeral mode; elsewhere they are unknown
// routes, 404): POST /-/test/reset puts the instance back as it started, POST /-/test/seed applies
// a seed document sent as JSON. Administrators only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { DomainError } from '../../core/errors.ts';
import { Entity } from '../../core/schema.ts';
import type { StartState } from '../../testing/start-state.ts';

export interface TestModeOptions {
  /** The state reset returns to; taken once the server has started (and applied its start seed). */
  startState(): StartState | null;
}

const ResetEntity = Entity({ status: Type.Literal('ok'), duration_ms: Type.Number() });
const SeedEntity = Entity({ created: Type.Array(Type.String()), tokens: Type.Record(Type.String(), Type.String()) });

const refused = (problems: readonly string[]) => new DomainError({ status: 400, message: '400 Bad request', shape: 'error', messages: problems });

export const testingRoutes: FastifyPluginAsyncTypebox<TestModeOptions> = async (app, options) => {
  const config = { auth: 'required' } as const;
  // One at a time: a reset under a seed (or another reset) would interleave their rows.
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };

  app.post('/-/test/reset', { schema: { response: { 200: ResetEntity } }, config, preHandler: adminOnly }, async () => {
    const state = options.startState();
    if (!state) throw new DomainError({ status: 503, message: '503 Service Unavailable: still starting' });
    const started = performance.now();
    const { restoreStartState } = await import('../../testing/start-state.ts');
    await oneAtATime(() => restoreStartState(app.deps, state));
    return { status: 'ok' as const, duration_ms: Math.round((performance.now() - started) * 10) / 10 };
  });

  app.post(
    '/-/test/seed',
    // The document is checked by its own schema (validateSeedDocument), which names every problem's place.
    { schema: { response: { 201: SeedEntity } }, config, preHandler: adminOnly },
    async (req, reply) => {
      // Loaded when first used: a suite that never seeds over HTTP does not pay for the YAML parser at start.
      const [{ SeedDocumentError, validateSeedDocument }, { SeedError, applySeed }] = await Promise.all([import('../../testing/seed-document.ts'), import('../../testing/seed.ts')]);
      let doc;
      try {
        doc = validateSeedDocument(req.body);
      } catch (error) {
        if (error instanceof SeedDocumentError) throw refused(error.problems);
        throw error;
      }
      try {
        const result = await oneAtATime(() => applySeed(app, doc));
        return reply.code(201).send(result);
      } catch (error) {
        if (error instanceof SeedError) throw refused([error.message]);
        throw error;
      }
    },
  );
};
