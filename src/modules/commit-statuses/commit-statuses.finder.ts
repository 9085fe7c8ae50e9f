// Reading commit statuses: every job of the pipelines of a commit (the platform's CommitStatus:
// builds, bridges and external statuses alike), the latest of each name unless all are asked for;
// the pipeline a posted status belongs to; the authors the entities show. A commit's pipelines are
// those of its own CI: child pipelines and the other dangling sources are left out.
import type { Kysely } from 'kysely';
import type { CiBuildRow, CiPipelineRow, DB, UserRow } from '../../db/schema.ts';
import { DANGLING_SOURCES } from '../pipelines/pipelines.schemas.ts';

/** Gitlab::Utils.to_boolean: true for these words (any case); anything else is not. */
const TRUE_WORD = /^(true|t|yes|y|1|on)$/i;

export interface StatusFilters {
  ref?: string;
  stage?: string;
  name?: string;
  all?: string;
}

/** The statuses of the project's pipelines of `sha` (as given: a short sha or a branch name matches none), oldest first. */
export function findCommitStatuses(db: Kysely<DB>, projectId: number, sha: string, filters: StatusFilters) {
  let q = db
    .selectFrom('ci_builds')
    .innerJoin('ci_pipelines', 'ci_pipelines.id', 'ci_builds.pipeline_id')
    .selectAll('ci_builds')
    .select('ci_pipelines.sha')
    .where('ci_pipelines.project_id', '=', projectId)
    .where('ci_pipelines.sha', '=', sha)
    .where('ci_pipelines.source', 'not in', DANGLING_SOURCES);
  if (!TRUE_WORD.test(filters.all ?? '')) q = q.where('ci_builds.retried', '=', false);
  // Empty filters filter nothing (`.present?`).
  if (filters.ref) q = q.where('ci_builds.ref', '=', filters.ref);
  if (filters.stage) q = q.where('ci_builds.stage', '=', filters.stage);
  if (filters.name) q = q.where('ci_builds.name', '=', filters.name);
  return q.orderBy('ci_builds.id');
}

export type CommitStatusRow = CiBuildRow & { sha: string };

/**
 * The pipeline a status posted for the commit joins: the newest of the commit's pipelines, of the
 * ref and with the id when those are given.
 */
export async function matchingPipeline(db: Kysely<DB>, projectId: number, sha: string, given: { ref?: string; pipelineId?: number }): Promise<CiPipelineRow | null> {
  let q = db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('sha', '=', sha).where('source', 'not in', DANGLING_SOURCES);
  if (given.ref !== undefined) q = q.where('ref', '=', given.ref);
  if (given.pipelineId !== undefined) q = q.where('id', '=', given.pipelineId);
  return (await q.orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** The authors of these statuses, by id, in one query. */
export async function statusAuthors(db: Kysely<DB>, statuses: readonly Pick<CiBuildRow, 'user_id'>[]): Promise<Map<number, UserRow>> {
  const ids = [...new Set(statuses.map((s) => s.user_id).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const users = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return new Map(users.map((u) => [u.id, u]));
}
