// The predefined variables of a project (CI_PROJECT_*, CI_SERVER_*, CI_CONFIG_PATH…), from its rows:
// the same for the expressions a pipeline is created with and for the jobs a runner receives; and
// the merge requests a pipeline's variables name.
import type { Config } from '../../config.ts';
import { visibilityName } from '../../core/access/levels.ts';
import type { Kysely } from 'kysely';
import type { DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { mergeRequestFacts, openMergeRequestRefs } from '../../domain/merge-request-ci.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { type CiVariable, type MergeRequestFacts, projectVariables } from '../../ci/variables.ts';

export function predefinedProjectVariables(config: Pick<Config, 'externalUrl'>, project: ProjectRow, namespace: Pick<NamespaceRow, 'full_path'>, configPath: string): CiVariable[] {
  return projectVariables(
    { url: config.externalUrl.replace(/\/+$/, '') },
    {
      id: project.id,
      name: project.name,
      path: project.path,
      fullPath: project.full_path,
      namespaceFullPath: namespace.full_path,
      visibility: visibilityName(project.visibility_level),
      webUrl: projectWebUrl(config.externalUrl, project),
      defaultBranch: project.default_branch,
      configPath,
      description: project.description,
    },
  );
}

export interface PipelineMergeRequests {
  mergeRequest: MergeRequestFacts | null;
  openMergeRequests: string[];
}

/**
 * The merge request facts of a pipeline's variables: a merge request pipeline's own merge request
 * (the only one CI_OPEN_MERGE_REQUESTS names), or the open merge requests from a branch pipeline's branch.
 */
export async function pipelineMergeRequests(
  db: Kysely<DB>,
  config: Pick<Config, 'externalUrl'>,
  project: ProjectRow,
  pipeline: { ref: string; tag: boolean; mergeRequestId: number | null },
): Promise<PipelineMergeRequests> {
  if (pipeline.mergeRequestId !== null) {
    const mergeRequest = await mergeRequestFacts(db, config, project, pipeline.mergeRequestId);
    return { mergeRequest, openMergeRequests: mergeRequest ? [`${project.full_path}!${mergeRequest.iid}`] : [] };
  }
  return { mergeRequest: null, openMergeRequests: pipeline.tag ? [] : await openMergeRequestRefs(db, project, pipeline.ref) };
}
