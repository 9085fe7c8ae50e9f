// The background work of pipelines as declarations (names and payloads), so that the writers that
// call for it enqueue it without depending on its handlers (pipeline-processing.jobs.ts), which
// themselves create pipelines.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type JobDeclaration, enqueue, enqueueMany } from '../../jobs/queue.ts';

const PipelinePayload = Type.Object({ pipelineId: Type.Integer() }, { additionalProperties: false });
const BridgePayload = Type.Object({ bridgeId: Type.Integer() }, { additionalProperties: false });

export const PROCESS_PIPELINE: JobDeclaration<typeof PipelinePayload> = { name: 'pipeline.process', payload: PipelinePayload, maxAttempts: 10 };
export const CREATE_DOWNSTREAM: JobDeclaration<typeof BridgePayload> = { name: 'pipeline.create_downstream', payload: BridgePayload, maxAttempts: 5 };

/** Queues the processing of a pipeline after a change of its jobs (one waiting at a time). */
export function processLater(db: Kysely<DB>, pipelineId: number, runAt?: Date): Promise<number | null> {
  const dedupeKey = runAt ? `${pipelineId}@${runAt.toISOString()}` : String(pipelineId);
  return enqueue(db, PROCESS_PIPELINE, { pipelineId }, { dedupeKey, runAt });
}

/** Queues the processing of several pipelines in one statement. */
export async function processManyLater(db: Kysely<DB>, pipelineIds: readonly number[]): Promise<void> {
  await enqueueMany(db, PROCESS_PIPELINE, [...new Set(pipelineIds)].map((pipelineId) => ({ payload: { pipelineId }, dedupeKey: String(pipelineId) })));
}

/** The ref that keeps a pipeline's commit fetchable while it runs (the runner fetches it, notes §1.4). */
export const persistentRef = (pipelineId: number) => `refs/pipelines/${pipelineId}`;
