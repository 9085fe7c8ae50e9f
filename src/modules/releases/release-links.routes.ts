// A release's asset links (the platform's lib/api/release/links.rb, 14.x): read by readers of the
// project's releases, created, changed and deleted by those who may change the release. An absent
// release or link is the platform's "404 Not found" (a record not found).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { ReleaseLinkRow, ReleaseRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadReleases, releaseAccess } from './releases.access.ts';
import { findLink, findLinks, findRelease } from './releases.finder.ts';
import { presentLink } from './releases.presenter.ts';
import { CreateLinkBody, LinkEntity, LinkParams, ListLinksQuery, ReleaseParams, UpdateLinkBody } from './releases.schemas.ts';
import { createLink, deleteLink, updateLink } from './releases.service.ts';

const RECORD_NOT_FOUND = '404 Not found';

export const releaseLinkRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: { auth: 'optional' }, preHandler: loadReleases() } as const;

  const webUrl = (req: FastifyRequest) => projectWebUrl(config.externalUrl, loadedProject(req).row);

  async function requireRelease(req: FastifyRequest, tag: string): Promise<ReleaseRow> {
    const release = await findRelease(db, loadedProject(req).row.id, tag);
    if (!release) throw apiError(404, RECORD_NOT_FOUND);
    return release;
  }

  /** The release, which the caller may change (create_release, update_release, destroy_release). */
  async function changeable(req: FastifyRequest, tag: string): Promise<ReleaseRow> {
    const release = await requireRelease(req, tag);
    if (!releaseAccess(req).mayChange(release.tag)) throw forbidden();
    return release;
  }

  async function requireLink(release: ReleaseRow, id: string): Promise<ReleaseLinkRow> {
    const link = /^\d{1,15}$/.test(id) ? await findLink(db, release.id, Number(id)) : null;
    if (!link) throw apiError(404, RECORD_NOT_FOUND);
    return link;
  }

  const base = '/projects/:id/releases/:tag_name/assets/links';

  api.get(base, { schema: { params: ReleaseParams, querystring: ListLinksQuery, response: { 200: Type.Array(LinkEntity) } }, ...readable }, async (req, reply) => {
    const release = await requireRelease(req, req.params.tag_name);
    const rows = await paginate(req, reply, findLinks(db, release.id));
    return rows.map((l) => presentLink(l, release, webUrl(req)));
  });

  api.get(`${base}/:link_id`, { schema: { params: LinkParams, response: { 200: LinkEntity } }, ...readable }, async (req) => {
    const release = await requireRelease(req, req.params.tag_name);
    return presentLink(await requireLink(release, req.params.link_id), release, webUrl(req));
  });

  api.post(base, { schema: { params: ReleaseParams, body: CreateLinkBody, response: { 201: LinkEntity } }, ...readable }, async (req, reply) => {
    const release = await changeable(req, req.params.tag_name);
    const link = await createLink(serviceContext(req), release, req.body);
    reply.code(201);
    return presentLink(link, release, webUrl(req));
  });

  api.put(`${base}/:link_id`, { schema: { params: LinkParams, body: UpdateLinkBody, response: { 200: LinkEntity } }, ...readable }, async (req) => {
    const release = await changeable(req, req.params.tag_name);
    const link = await updateLink(serviceContext(req), await requireLink(release, req.params.link_id), req.body);
    return presentLink(link, release, webUrl(req));
  });

  api.delete(`${base}/:link_id`, { schema: { params: LinkParams, response: { 200: LinkEntity } }, ...readable }, async (req) => {
    const release = await changeable(req, req.params.tag_name);
    const link = await requireLink(release, req.params.link_id);
    await deleteLink(serviceContext(req), link);
    return presentLink(link, release, webUrl(req));
  });
};
