// Commit statuses (14.x lib/api/commit_statuses.rb): a commit's statuses, and the status an
// external system posts for a commit. Both ask callers to sign in; reading needs
// read_commit_status, posting create_commit_status (commit-status-access.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { validRevision } from '../../git/args.ts';
import { resolveCommit } from '../../git/refs.ts';
import { loadCommitStatuses } from './commit-status-access.ts';
import { findCommitStatuses, statusAuthors } from './commit-statuses.finder.ts';
import { presentCommitStatus } from './commit-statuses.presenter.ts';
import { CommitStatusEntity, CreateStatusBody, ListStatusesQuery, ProjectShaParams } from './commit-statuses.schemas.ts';
import { postCommitStatus } from './commit-statuses.service.ts';

const REQUIRED = { auth: 'required' } as const;

export const commitStatusRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  /** The full id of the commit a revision names; 404 "404 Commit Not Found" when none. */
  async function commitId(project: ProjectRow, revision: string): Promise<string> {
    const dir = repositoryDir(config, project);
    const id = dir === null || !validRevision(revision) ? null : await resolveCommit(dir, revision);
    if (id === null) throw notFound('Commit');
    return id;
  }

  api.get(
    '/projects/:id/repository/commits/:sha/statuses',
    {
      schema: { params: ProjectShaParams, querystring: ListStatusesQuery, response: { 200: Type.Array(CommitStatusEntity) } },
      config: REQUIRED,
      preHandler: loadCommitStatuses('read_commit_status'),
    },
    async (req, reply) => {
      const project = loadedProject(req).row;
      await commitId(project, req.params.sha);
      // The statuses of pipelines of the sha as given, as the platform looks them up.
      const rows = await paginate(req, reply, findCommitStatuses(db, project.id, req.params.sha, req.query));
      const authors = await statusAuthors(db, rows);
      return rows.map((row) => presentCommitStatus(row, row.user_id === null ? null : (authors.get(row.user_id) ?? null), config.externalUrl));
    },
  );

  api.post(
    '/projects/:id/statuses/:sha',
    {
      schema: { params: ProjectShaParams, body: CreateStatusBody, response: { 201: CommitStatusEntity } },
      config: REQUIRED,
      preHandler: loadCommitStatuses('create_commit_status'),
    },
    async (req, reply) => {
      const project = loadedProject(req);
      const { body } = req;
      const sha = await commitId(project.row, req.params.sha);
      const status = await postCommitStatus(serviceContext(req), {
        project,
        sha,
        state: body.state,
        ref: body.ref,
        name: body.name ?? body.context ?? 'default',
        targetUrl: body.target_url,
        description: body.description,
        coverage: body.coverage,
        pipelineId: body.pipeline_id,
      });
      reply.code(201);
      return presentCommitStatus(status, req.actor?.user ?? null, config.externalUrl);
    },
  );
};
