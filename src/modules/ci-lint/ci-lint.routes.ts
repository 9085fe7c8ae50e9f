// CI lint (14.x `lib/api/lint.rb`): `POST /ci/lint` checks a configuration without a project
// (anonymous callers only while anyone may sign up); `GET /projects/:id/ci/lint` checks the default
// branch's configuration (readers of the code); `POST /projects/:id/ci/lint` checks given content
// in the project's context (those who may create pipelines). `dry_run` builds the pipeline of the
// default branch without saving it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, unauthorized } from '../../core/errors.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { loadProjectSettings, readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { resolveRef } from '../../git/refs.ts';
import { CiConfigError } from '../../ci/config/index.ts';
import { loadCi, readPipelineConfig } from '../pipelines/index.ts';
import { LintBody, LintEntity, ProjectLintBody, ProjectLintEntity, ProjectLintQuery, ProjectParams } from './ci-lint.schemas.ts';
import { type LintResult, lintByDryRun, lintStatically } from './ci-lint.service.ts';

/** Entities::Ci::Lint::Result: `jobs` only when asked. */
function shown(result: LintResult, includeJobs: boolean | undefined) {
  const { jobs, ...rest } = result;
  return includeJobs ? { ...rest, jobs } : rest;
}

export const ciLintRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  api.post('/ci/lint', { schema: { body: LintBody, response: { 200: LintEntity } }, config: { auth: 'optional' } }, async (req, reply) => {
    if (!req.actor) {
      const settings = await applicationSettings(db);
      // 14.x: signup_disabled? || signup_limited? (an allowlist, a denylist in force).
      const limited = settings.domain_allowlist.length > 0 || (settings.domain_denylist_enabled && settings.domain_denylist.length > 0);
      if (!settings.signup_enabled || limited) throw unauthorized();
    }
    const result = await lintStatically(serviceContext(req), null, req.body.content);
    const { merged_yaml, ...rest } = shown(result, req.body.include_jobs);
    reply.code(200);
    return { ...rest, ...(req.body.include_merged_yaml ? { merged_yaml } : {}), status: result.valid ? ('valid' as const) : ('invalid' as const) };
  });

  const readCode = loadProject('download_code');
  api.get(
    '/projects/:id/ci/lint',
    {
      schema: { params: ProjectParams, querystring: ProjectLintQuery, response: { 200: ProjectLintEntity } },
      config: { auth: 'optional' },
      preHandler: async (req) => {
        await readCode(req);
        const { row, access } = loadedProject(req);
        if (!projectFeatureAvailable(req.actor, row, access, 'repository', await readFeatureLevel(db, row, 'repository'))) throw forbidden();
      },
    },
    async (req) => {
      const ctx = serviceContext(req);
      const project = loadedProject(req).row;
      const dir = repositoryDir(ctx.config, project);
      const head = dir && project.default_branch ? await resolveRef(dir, `refs/heads/${project.default_branch}`) : null;
      const [settings] = (await loadProjectSettings(db, [project])).values();
      let content = '';
      try {
        content = (head ? await readPipelineConfig(ctx, project, head, settings?.ciCd.ci_config_path ?? null) : null)?.content ?? '';
      } catch (error) {
        if (!(error instanceof CiConfigError)) throw error;
        return shown({ valid: false, errors: [error.message], warnings: [], merged_yaml: null, jobs: [] }, req.query.include_jobs);
      }
      const result = req.query.dry_run ? await lintByDryRun(ctx, project, content) : await lintStatically(ctx, project, content);
      return shown(result, req.query.include_jobs);
    },
  );

  api.post(
    '/projects/:id/ci/lint',
    { schema: { params: ProjectParams, body: ProjectLintBody, response: { 200: ProjectLintEntity } }, config: { auth: 'optional' }, preHandler: loadCi('create_pipeline') },
    async (req, reply) => {
      const ctx = serviceContext(req);
      const project = loadedProject(req).row;
      const result = req.body.dry_run ? await lintByDryRun(ctx, project, req.body.content) : await lintStatically(ctx, project, req.body.content);
      reply.code(200);
      return shown(result, req.body.include_jobs);
    },
  );
};
