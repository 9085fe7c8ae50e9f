// Linting a configuration as 14.x's Gitlab::Ci::Lint does: a static check compiles it (includes
// read as the project's pipelines would read them, local ones from the default branch's head);
// a dry run builds the pipeline of the default branch as a push would, saving nothing.
import type { ServiceContext } from '../../core/context.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { resolveRef } from '../../git/refs.ts';
import { CiConfigError, type CompiledConfig, type SeededJob, compileConfig } from '../../ci/config/index.ts';
import { DEFAULT_CONFIG_PATH, includeResolver } from '../pipelines/index.ts';
import { createPipeline } from '../pipelines/pipelines.service.ts';
import type { LintJob } from './ci-lint.schemas.ts';

export interface LintResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  merged_yaml: string | null;
  jobs: LintJob[];
}

const invalid = (message: string): LintResult => ({ valid: false, errors: [message], warnings: [], merged_yaml: null, jobs: [] });

/** Jobs stage by stage, in configuration order within a stage, as the platform lists them. */
const byStage = <T extends { stageIdx: number }>(jobs: readonly T[]) => [...jobs].sort((a, b) => a.stageIdx - b.stageIdx);

function staticJobs(config: CompiledConfig): LintJob[] {
  return byStage(config.jobs).map((job) => ({
    name: job.name,
    stage: job.stage,
    before_script: job.beforeScript ?? [],
    script: job.script ?? [],
    after_script: job.afterScript ?? [],
    tag_list: job.tags ?? [],
    only: job.only ? { ...job.only } : null,
    except: job.except ? { ...job.except } : null,
    environment: job.environment?.name ?? null,
    when: job.when,
    allow_failure: job.allowFailure,
    needs: job.needs ? job.needs.map((n) => ({ name: n.name, artifacts: n.artifacts, optional: n.optional })) : null,
  }));
}

const strings = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

function simulatedJobs(jobs: readonly SeededJob[]): LintJob[] {
  return byStage(jobs).map((job) => ({
    name: job.name,
    stage: job.stage,
    before_script: strings(job.options.before_script),
    script: strings(job.options.script),
    after_script: strings(job.options.after_script),
    tag_list: job.trigger ? [] : job.tags,
    environment: job.environment,
    when: job.when,
    allow_failure: job.allowFailure,
  }));
}

/** The static check; `project` null for `POST /ci/lint`, where local includes have nowhere to come from. */
export async function lintStatically(ctx: ServiceContext, project: ProjectRow | null, content: string): Promise<LintResult> {
  const dir = project ? repositoryDir(ctx.config, project) : null;
  const sha = project && dir && project.default_branch ? await resolveRef(dir, `refs/heads/${project.default_branch}`) : null;
  try {
    const config = await compileConfig({ content, resolveInclude: includeResolver(ctx, project, sha) });
    return { valid: true, errors: [], warnings: config.warnings, merged_yaml: config.mergedYaml, jobs: staticJobs(config) };
  } catch (error) {
    if (error instanceof CiConfigError) return invalid(error.message);
    throw error;
  }
}

/** The dry run: the pipeline a push to the default branch would make with this configuration. */
export async function lintByDryRun(ctx: ServiceContext, project: ProjectRow, content: string): Promise<LintResult> {
  const user = ctx.actor?.user ?? null;
  const result = await createPipeline(ctx, { project, ref: project.default_branch ?? '', refType: 'branch', source: 'push', user, saveFailed: false, content: { path: DEFAULT_CONFIG_PATH, text: content }, dryRun: true });
  if ('simulated' in result) return { valid: true, errors: [], warnings: result.simulated.warnings, merged_yaml: result.simulated.mergedYaml, jobs: simulatedJobs(result.simulated.jobs) };
  if ('error' in result) return invalid(result.error);
  throw new Error('a dry run answered neither a simulation nor an error');
}
