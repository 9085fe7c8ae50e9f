// Badges of projects and groups: whoever reads the project or group reads its badges (a project's
// include its groups'); Maintainers of a project and Owners of a group (admin_project,
// admin_group) add, change, remove and preview them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { type BadgeSource, findBadge, findBadges, placeholderValues } from './badges.finder.ts';
import { presentBadge, presentBasicBadge } from './badges.presenter.ts';
import { BadgeEntity, BadgeParams, BasicBadgeEntity, CreateBadgeBody, ListBadgesQuery, RenderBadgeQuery, SourceParams, UpdateBadgeBody } from './badges.schemas.ts';
import { badgeNotFound, badgeUrlErrors, createBadge, deleteBadge, updateBadge } from './badges.service.ts';

const ANYONE = { auth: 'optional' } as const;
const SIGNED_IN = { auth: 'required' } as const;

/** The project and group routes differ only in whose badges they serve and who may change them. */
const SOURCES = [
  {
    prefix: '/projects/:id',
    read: loadProject('read_project'),
    admin: loadProject('admin_project'),
    source: (req: FastifyRequest): BadgeSource => ({ project: loadedProject(req).row, namespace: loadedProject(req).namespace }),
  },
  { prefix: '/groups/:id', read: loadGroup('read_group'), admin: loadGroup('admin_group'), source: (req: FastifyRequest): BadgeSource => ({ group: loadedGroup(req).row }) },
] as const;

const urlsOf = (badges: readonly { link_url: string; image_url: string }[]) => badges.flatMap((b) => [b.link_url, b.image_url]);

export const badgeRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  for (const { prefix, read, admin, source } of SOURCES) {
    api.get(
      `${prefix}/badges`,
      { schema: { params: SourceParams, querystring: ListBadgesQuery, response: { 200: Type.Array(BadgeEntity) } }, config: ANYONE, preHandler: read },
      async (req, reply) => {
        const from = source(req);
        const rows = await paginate(req, reply, findBadges(db, from, req.query));
        const values = await placeholderValues(config, from, urlsOf(rows));
        return rows.map((row) => presentBadge(row, values));
      },
    );

    // Registered before /badges/:badge_id: a preview of URLs with the source's placeholders filled in.
    api.get(
      `${prefix}/badges/render`,
      { schema: { params: SourceParams, querystring: RenderBadgeQuery, response: { 200: BasicBadgeEntity } }, config: SIGNED_IN, preHandler: admin },
      async (req) => {
        const errors = badgeUrlErrors(req.query);
        if (Object.keys(errors).length > 0) throw invalidFields(errors);
        const badge = { name: null, link_url: req.query.link_url, image_url: req.query.image_url };
        return presentBasicBadge(badge, await placeholderValues(config, source(req), urlsOf([badge])));
      },
    );

    api.get(
      `${prefix}/badges/:badge_id`,
      { schema: { params: BadgeParams, response: { 200: BadgeEntity } }, config: ANYONE, preHandler: read },
      async (req) => {
        const from = source(req);
        const row = await findBadge(db, from, req.params.badge_id);
        if (!row) throw badgeNotFound();
        return presentBadge(row, await placeholderValues(config, from, urlsOf([row])));
      },
    );

    api.post(
      `${prefix}/badges`,
      { schema: { params: SourceParams, body: CreateBadgeBody, response: { 201: BadgeEntity } }, config: SIGNED_IN, preHandler: admin },
      async (req, reply) => {
        const from = source(req);
        const row = await createBadge(serviceContext(req), from, req.body);
        reply.code(201);
        return presentBadge(row, await placeholderValues(config, from, urlsOf([row])));
      },
    );

    api.put(
      `${prefix}/badges/:badge_id`,
      { schema: { params: BadgeParams, body: UpdateBadgeBody, response: { 200: BadgeEntity } }, config: SIGNED_IN, preHandler: admin },
      async (req) => {
        const from = source(req);
        const row = await updateBadge(serviceContext(req), from, req.params.badge_id, req.body);
        return presentBadge(row, await placeholderValues(config, from, urlsOf([row])));
      },
    );

    api.delete(
      `${prefix}/badges/:badge_id`,
      { schema: { params: BadgeParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: admin },
      async (req, reply) => {
        await deleteBadge(serviceContext(req), source(req), req.params.badge_id);
        return reply.code(204).send();
      },
    );
  }
};
