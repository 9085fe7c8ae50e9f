// The project's statistics from its repository (commit_count of the default branch, the size on
// disk, and storage_size as the sum of every size), refreshed after each change of refs as
// background work: counting walks history and the repository's files, which a list of projects
// must never wait for. One waiting refresh per project at a time.
import { Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { commitCount, repositorySize } from '../../git/statistics.ts';
import { defineJobKind, enqueue } from '../../jobs/queue.ts';

export const refreshStatisticsJob = defineJobKind({
  name: 'project.statistics.refresh',
  payload: Type.Object({ projectId: Type.Integer() }, { additionalProperties: false }),
  async run(ctx, { projectId }) {
    const row = await ctx.db.selectFrom('projects').select(['id', 'repository_storage', 'default_branch']).where('id', '=', projectId).executeTakeFirst();
    const gitDir = row ? existingProjectRepository(ctx.config.repositoryStorages, row) : null;
    if (!row || gitDir === null) return; // gone meanwhile: nothing to count
    const commits = row.default_branch === null ? 0 : await commitCount(gitDir, row.default_branch);
    const bytes = await repositorySize(gitDir);
    // A project deleted while it was counted has nothing left to record against: insert for it only while it exists.
    const stillThere = ctx.db.selectFrom('projects').where('id', '=', projectId);
    await ctx.db
      .insertInto('project_statistics')
      .columns(['project_id', 'commit_count', 'repository_size', 'storage_size'])
      .expression(stillThere.select([sql.lit(projectId).as('project_id'), sql.lit(commits).as('commit_count'), sql.lit(bytes).as('repository_size'), sql.lit(bytes).as('storage_size')]))
      .onConflict((oc) =>
        oc.column('project_id').doUpdateSet({
          commit_count: commits,
          repository_size: bytes,
          // Every size the platform adds up, this one new.
          storage_size: sql`excluded.repository_size + project_statistics.wiki_size + project_statistics.lfs_objects_size + project_statistics.build_artifacts_size
            + project_statistics.pipeline_artifacts_size + project_statistics.packages_size + project_statistics.snippets_size + project_statistics.uploads_size`,
        }),
      )
      .execute();
  },
});

/** Enqueues a refresh of the project's statistics, in the caller's transaction. */
export async function refreshStatisticsLater(db: Kysely<DB>, projectId: number): Promise<void> {
  await enqueue(db, refreshStatisticsJob, { projectId }, { dedupeKey: String(projectId) });
}
