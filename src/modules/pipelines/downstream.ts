// Bridges (trigger jobs, notes gitlab-ci.md §2.9): a pending bridge creates its downstream pipeline
// — a child of the same project, ref and commit made of its `trigger:include` files, or a pipeline
// of another project on its `trigger:branch` (default branch) that the user may run pipelines in.
// The bridge then succeeds at once, or with `strategy: depend` mirrors the downstream pipeline's
// outcome when that completes.
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { projectAccessLevel } from '../../core/access/authorizations.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { Kysely } from 'kysely';
import type { CiBuildRow, CiPipelineRow, DB } from '../../db/schema.ts';
import type { Trigger } from '../../ci/config/index.ts';
import { createPipeline } from './pipelines.service.ts';
import { processLater } from './pipeline-work.ts';

interface BridgeOptions {
  trigger?: Trigger | null;
}

/** Fails a bridge with a reason, and queues its pipeline's processing. */
async function finishBridge(ctx: ServiceContext, bridge: CiBuildRow, status: 'success' | 'failed' | 'running' | 'canceled', values: Partial<CiBuildRow> = {}): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const finished = status !== 'running';
    await tx.db
      .updateTable('ci_builds')
      .set({ ...values, status, updated_at: at, ...(finished ? { finished_at: at } : {}), ...(status === 'running' ? { started_at: at } : {}) })
      .where('id', '=', bridge.id)
      .where('status', 'in', ['pending', 'running'])
      .execute();
    await processLater(tx.db, bridge.pipeline_id);
  });
}

/**
 * Creates the downstream pipeline of a pending bridge. `complete` runs inside the transaction that
 * saves the pipeline and settles the bridge, so that a run cut short makes no second pipeline.
 */
export async function createDownstream(ctx: ServiceContext, bridgeId: number, complete: (db: Kysely<DB>) => Promise<void>): Promise<boolean> {
  const bridge = await ctx.db.selectFrom('ci_builds').selectAll().where('id', '=', bridgeId).executeTakeFirst();
  if (!bridge || bridge.status !== 'pending' || bridge.downstream_pipeline_id !== null) return false;
  const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', bridge.pipeline_id).executeTakeFirstOrThrow();
  const user = bridge.user_id === null ? undefined : await ctx.db.selectFrom('users').selectAll().where('id', '=', bridge.user_id).executeTakeFirst();
  const trigger = (JSON.parse(bridge.options) as BridgeOptions).trigger ?? {};
  const fail = async (reason: string) => {
    await finishBridge(ctx, bridge, 'failed', { failure_reason: reason });
    return false;
  };
  if (!user) return fail('downstream_bridge_project_not_found');

  const child = trigger.include !== undefined;
  const target = child
    ? await ctx.db.selectFrom('projects').selectAll().where('id', '=', bridge.project_id).executeTakeFirst()
    : await ctx.db.selectFrom('projects').selectAll().where((eb) => eb(eb.fn('lower', ['full_path']), '=', (trigger.project ?? '').toLowerCase())).executeTakeFirst();
  if (!target) return fail('downstream_bridge_project_not_found');
  if (!child && !user.admin && (await projectAccessLevel(ctx.db, user.id, target.id)) < ACCESS.DEVELOPER) return fail('insufficient_bridge_permissions');
  if (!child && target.id === bridge.project_id) return fail('invalid_bridge_trigger');

  // The bridge's YAML variables go down with it (the platform's forward default).
  const variables = (JSON.parse(bridge.yaml_variables) as { key: string; value: string }[]).map((v) => ({ key: v.key, value: v.value }));
  const result = await createPipeline(
    { ...ctx, actor: actingUser(user) },
    {
      project: target,
      ref: child ? pipeline.ref : (trigger.branch ?? target.default_branch ?? 'main'),
      ...(child ? { refType: pipeline.tag ? ('tag' as const) : ('branch' as const), sha: pipeline.sha, content: { path: '', text: JSON.stringify({ include: trigger.include }) } } : {}),
      source: child ? 'parent_pipeline' : 'pipeline',
      user,
      variables,
      saveFailed: false,
      upstream: { jobId: bridge.id, pipelineId: pipeline.id, projectId: pipeline.project_id },
      onSaved: async (db, saved) => {
        await finishBridge({ ...ctx, db }, bridge, trigger.strategy === 'depend' ? 'running' : 'success', { downstream_pipeline_id: saved.id });
        await complete(db);
      },
    },
  );
  if (!('pipeline' in result)) return fail('downstream_pipeline_creation_failed');
  return true;
}

/** A bridge with `strategy: depend` takes the outcome of its downstream pipeline once that completes. */
export async function mirrorToBridge(ctx: ServiceContext, downstream: CiPipelineRow): Promise<void> {
  if (downstream.source_job_id === null) return;
  const bridge = await ctx.db.selectFrom('ci_builds').selectAll().where('id', '=', downstream.source_job_id).executeTakeFirst();
  if (!bridge || bridge.status !== 'running') return;
  const status = downstream.status === 'success' ? 'success' : downstream.status === 'canceled' ? 'canceled' : 'failed';
  await finishBridge(ctx, bridge, status, status === 'failed' ? { failure_reason: 'downstream_pipeline_creation_failed' } : {});
}
