// Commit entities of the commits API: list entries (with stats on request) and the detail.
import type { Static } from '@sinclair/typebox';
import type { CiPipelineRow } from '../../db/schema.ts';
import type { Commit } from '../../git/commits.ts';
import type { DiffStats } from '../../git/history.ts';
import { type CommitJson, presentCommit } from '../../domain/commit-entity.ts';
import type { CommitDetailEntity, CommitWithStatsEntity } from './commits.schemas.ts';
import type { HistoryPage } from './commits.finder.ts';
import { type PipelineView, presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';

const NO_STATS: DiffStats = { additions: 0, deletions: 0, total: 0 };

export function presentHistory(page: HistoryPage, projectWebUrl: string): (CommitJson | Static<typeof CommitWithStatsEntity>)[] {
  return page.commits.map((commit) => {
    const entity = presentCommit(commit, projectWebUrl, page.trailers?.get(commit.id));
    return page.stats ? { ...entity, stats: page.stats.get(commit.id) ?? NO_STATS } : entity;
  });
}

/** The commit's latest pipeline: its status shows to every reader of the commit, the pipeline itself to those who read pipelines. */
export interface CommitPipeline {
  row: CiPipelineRow;
  view: PipelineView;
  readable: boolean;
}

/** The detail of one commit; `stats` when asked for. */
export function presentCommitDetail(
  commit: Commit,
  project: { id: number; webUrl: string },
  extra: { stats: DiffStats | null; trailers: Record<string, string>; pipeline: CommitPipeline | null },
): Static<typeof CommitDetailEntity> {
  const pipeline = extra.pipeline;
  return {
    ...presentCommit(commit, project.webUrl, extra.trailers),
    ...(extra.stats ? { stats: extra.stats } : {}),
    status: pipeline?.row.status ?? null,
    project_id: project.id,
    last_pipeline: pipeline?.readable ? presentPipelineBasic(pipeline.row, pipeline.view) : null,
  };
}
