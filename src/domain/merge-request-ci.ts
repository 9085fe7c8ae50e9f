// What a pipeline knows of merge requests: the merge request a `merge_request_event` pipeline was
// made for, and the open merge requests from a branch (CI_OPEN_MERGE_REQUESTS), read for the
// pipeline's creation (its rules) and again for each job a runner takes.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB, ProjectRow } from '../db/schema.ts';
import type { MergeRequestFacts } from '../ci/variables.ts';
import { labelsOf } from './issuables.ts';
import { projectWebUrl } from './urls.ts';

/** The platform lists at most this many open merge requests in CI_OPEN_MERGE_REQUESTS. */
const OPEN_MERGE_REQUESTS_LIMIT = 4;

/** The facts of a merge request of `project` for its pipelines' variables; null when it is gone. */
export async function mergeRequestFacts(db: Kysely<DB>, config: Pick<Config, 'externalUrl'>, project: Pick<ProjectRow, 'id' | 'full_path'>, mergeRequestId: number): Promise<MergeRequestFacts | null> {
  const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).where('project_id', '=', project.id).executeTakeFirst();
  if (!mr) return null;
  const [assignees, milestone, labels] = await Promise.all([
    db
      .selectFrom('merge_request_assignees')
      .innerJoin('users', 'users.id', 'merge_request_assignees.user_id')
      .select('users.username')
      .where('merge_request_assignees.merge_request_id', '=', mr.id)
      .orderBy('users.id')
      .execute(),
    mr.milestone_id === null ? undefined : db.selectFrom('milestones').select('title').where('id', '=', mr.milestone_id).executeTakeFirst(),
    labelsOf(db, 'MergeRequest', [mr.id]),
  ]);
  return {
    id: mr.id,
    iid: mr.iid,
    projectId: project.id,
    projectPath: project.full_path,
    projectUrl: projectWebUrl(config.externalUrl, project),
    sourceBranch: mr.source_branch,
    targetBranch: mr.target_branch,
    title: mr.title,
    assignees: assignees.map((a) => a.username),
    milestone: milestone?.title ?? null,
    labels: (labels.get(mr.id) ?? []).map((l) => l.title),
    diffBaseSha: mr.base_sha,
  };
}

/** `path!iid` of the open merge requests from `branch`, oldest first. */
export async function openMergeRequestRefs(db: Kysely<DB>, project: Pick<ProjectRow, 'id' | 'full_path'>, branch: string): Promise<string[]> {
  const rows = await db
    .selectFrom('merge_requests')
    .select('iid')
    .where('project_id', '=', project.id)
    .where('source_branch', '=', branch)
    .where('state', '=', 'opened')
    .orderBy('id')
    .limit(OPEN_MERGE_REQUESTS_LIMIT)
    .execute();
  return rows.map((r) => `${project.full_path}!${r.iid}`);
}
