// Creating the pipelines of a push, from the durable queue: the push's follow-up work enqueues one
// job per pushed branch or tag in the transaction that records the push, so that no pipeline is
// lost to a crash.
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { type RunningJob, defineJobKind } from '../../jobs/queue.ts';
import { createPipeline } from './pipelines.service.ts';

const CreateForPushPayload = Type.Object(
  {
    projectId: Type.Integer(),
    userId: Type.Integer(),
    /** The full ref name: refs/heads/… or refs/tags/…. */
    ref: Type.String({ minLength: 1 }),
    before: Type.String(),
    after: Type.String(),
    /** `ci.skip` and `ci.variable="KEY=value"` push options. */
    skip: Type.Optional(Type.Boolean()),
    variables: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.String() }))),
  },
  { additionalProperties: false },
);
export type PushPipeline = typeof CreateForPushPayload.static;

export const createPushPipelineJob = defineJobKind({
  name: 'pipeline.create_for_push',
  payload: CreateForPushPayload,
  run: (ctx, payload, job) => createForPush(ctx, payload, job),
});

async function createForPush(ctx: ServiceContext, payload: PushPipeline, job: RunningJob): Promise<void> {
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', payload.projectId).executeTakeFirst();
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', payload.userId).executeTakeFirst();
  const tag = payload.ref.startsWith('refs/tags/');
  if (project && user && (tag || payload.ref.startsWith('refs/heads/'))) {
    const result = await createPipeline(
      { ...ctx, actor: actingUser(user) },
      {
        project,
        ref: payload.ref.replace(/^refs\/(heads|tags)\//, ''),
        refType: tag ? 'tag' : 'branch',
        sha: payload.after,
        beforeSha: payload.before,
        source: 'push',
        user,
        variables: payload.variables,
        saveFailed: true,
        skip: true,
        forceSkip: payload.skip === true,
        // The job is done in the transaction that saves its pipeline: a run cut short makes no second one.
        onSaved: (db) => job.complete(db),
      },
    );
    if ('pipeline' in result) return;
  }
  await withTransaction(ctx, (tx) => job.complete(tx.db));
}
