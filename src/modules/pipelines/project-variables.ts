// The predefined variables of a project (CI_PROJECT_*, CI_SERVER_*, CI_CONFIG_PATH…), from its rows:
// the same for the expressions a pipeline is created with and for the jobs a runner receives.
import type { Config } from '../../config.ts';
import { visibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { type CiVariable, projectVariables } from '../../ci/variables.ts';

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
