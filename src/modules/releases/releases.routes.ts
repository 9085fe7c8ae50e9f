// Releases (the platform's lib/api/releases.rb, 14.x): listed by release or creation time and read
// by whoever reads the project's releases (a single release only by those who may download the
// code); created (from an existing tag, or one made from `ref`), updated and deleted by developers,
// protected tags permitting. Deleting a release leaves its tag; the answer is the release as it
// reads once deleted.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { ReleaseRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadReleases, releaseAccess } from './releases.access.ts';
import { findRelease, findReleases, releaseParts } from './releases.finder.ts';
import { type ReleaseView, presentRelease } from './releases.presenter.ts';
import { CreateReleaseBody, ListReleasesQuery, ProjectParams, ReleaseEntity, ReleaseParams, ShowReleaseQuery, UpdateReleaseBody } from './releases.schemas.ts';
import { createRelease, deleteRelease, updateRelease } from './releases.service.ts';

/** Anonymous callers read the releases of public projects; writes need a user, which the abilities require. */
const OPTIONAL = { auth: 'optional' } as const;

export const releaseRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;
  const readable = { config: OPTIONAL, preHandler: loadReleases() };

  function view(req: FastifyRequest, includeHtml = false): ReleaseView {
    const row = loadedProject(req).row;
    const access = releaseAccess(req);
    return {
      baseUrl: config.externalUrl,
      projectWebUrl: projectWebUrl(config.externalUrl, row),
      projectPath: row.path,
      downloadCode: access.downloadCode,
      readMilestones: access.readMilestones,
      includeHtml,
      mayUpdate: access.mayChange,
      now: now(),
    };
  }

  const dirOf = (req: FastifyRequest) => repositoryDir(config, loadedProject(req).row);

  async function present(req: FastifyRequest, releases: ReleaseRow[], includeHtml = false) {
    const parts = await releaseParts(db, dirOf(req), releases);
    const shown = view(req, includeHtml);
    return releases.map((r) => presentRelease(r, parts, shown));
  }

  /** The release a write names; 403 when absent or when its tag keeps the caller out, as the platform's policy check answers. */
  async function changeable(req: FastifyRequest, tag: string): Promise<ReleaseRow> {
    const release = await findRelease(db, loadedProject(req).row.id, tag);
    if (!release || !releaseAccess(req).mayChange(release.tag)) throw forbidden();
    return release;
  }

  api.get(
    '/projects/:id/releases',
    { schema: { params: ProjectParams, querystring: ListReleasesQuery, response: { 200: Type.Array(ReleaseEntity) } }, ...readable },
    async (req, reply) => {
      const { query } = req;
      const rows = await paginate(req, reply, findReleases(db, loadedProject(req).row.id, query.order_by ?? 'released_at', query.sort ?? 'desc'));
      return present(req, rows, query.include_html_description === true);
    },
  );

  api.get(
    '/projects/:id/releases/:tag_name',
    { schema: { params: ReleaseParams, querystring: ShowReleaseQuery, response: { 200: ReleaseEntity } }, ...readable },
    async (req) => {
      if (!releaseAccess(req).downloadCode) throw forbidden();
      const release = await findRelease(db, loadedProject(req).row.id, req.params.tag_name);
      if (!release) throw notFound();
      const [shown] = await present(req, [release], req.query.include_html_description === true);
      return shown;
    },
  );

  // CI jobs create releases with their job token (release-cli); 14.x takes it on this route only.
  api.post(
    '/projects/:id/releases',
    { schema: { params: ProjectParams, body: CreateReleaseBody, response: { 201: ReleaseEntity } }, config: { ...OPTIONAL, jobToken: true }, preHandler: loadReleases() },
    async (req, reply) => {
      const access = releaseAccess(req);
      if (!access.create) throw forbidden();
      const release = await createRelease(serviceContext(req), loadedProject(req), dirOf(req), access.mayChange, req.body);
      reply.code(201);
      const [shown] = await present(req, [release]);
      return shown;
    },
  );

  api.put('/projects/:id/releases/:tag_name', { schema: { params: ReleaseParams, body: UpdateReleaseBody, response: { 200: ReleaseEntity } }, ...readable }, async (req) => {
    const release = await changeable(req, req.params.tag_name);
    const [shown] = await present(req, [await updateRelease(serviceContext(req), dirOf(req), release, req.body)]);
    return shown;
  });

  api.delete('/projects/:id/releases/:tag_name', { schema: { params: ReleaseParams, response: { 200: ReleaseEntity } }, ...readable }, async (req) => {
    const release = await changeable(req, req.params.tag_name);
    await deleteRelease(serviceContext(req), release);
    const [shown] = await present(req, [release]);
    return shown;
  });
};
