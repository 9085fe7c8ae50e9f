// GET /projects/:id/repository/commits/:sha/signature (the platform's commits API, 14.x): the
// verdict on a GPG-signed commit, for whoever may download the code; 404 for an unsigned commit.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { readCommitSignature } from '../../git/commit-signatures.ts';
import { loadRepository } from '../repository/index.ts';
import { commitSignatureVerdict } from './commit-signatures.service.ts';
import { presentCommitSignature } from './gpg-keys.presenter.ts';
import { CommitParams, CommitSignatureEntity } from './gpg-keys.schemas.ts';

/** Anonymous callers read public repositories. */
const OPTIONAL = { auth: 'optional' } as const;

export const commitSignatureRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { config } = api.deps;

  api.get(
    '/projects/:id/repository/commits/:sha/signature',
    { schema: { params: CommitParams, response: { 200: CommitSignatureEntity } }, config: OPTIONAL, preHandler: loadRepository('download_code') },
    async (req) => {
      const { row } = loadedProject(req);
      const dir = repositoryDir(config, row);
      const commit = dir === null ? null : await readCommitSignature(dir, req.params.sha);
      if (!commit) throw notFound('Commit');
      const verdict = commit.signature && (await commitSignatureVerdict(serviceContext(req), row.id, commit.id, commit.signature));
      if (!verdict) throw notFound('Signature');
      return presentCommitSignature(verdict);
    },
  );
};
