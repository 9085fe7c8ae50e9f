// Pages domains (spec Part 1 §4.7; the platform's 14.x pages domains API). Pages must be on for the
// instance (QUARRY_PAGES_ENABLED), else these routes answer 404 to whoever signed in. The
// administrators' list of every domain; a project's domains for its Maintainers and up: a project
// the caller may not see is 404, one they see without the role 403, and an archived project's
// domains may be read, not changed. As on the platform, the caller's role is checked before the
// domain is looked for, by its exact name.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ProjectAbility } from '../../core/access/abilities.ts';
import { requireAdmin } from '../../core/access/guards.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { PagesDomainRow } from '../../db/schema.ts';
import { allDomains, findProjectDomain, projectDomains } from './pages-domains.finder.ts';
import { presentPagesDomain, presentPagesDomainBasic } from './pages-domains.presenter.ts';
import { CreateDomainBody, DomainParams, ListDomainsQuery, PagesDomainBasicEntity, PagesDomainEntity, ProjectParams, UpdateDomainBody } from './pages-domains.schemas.ts';
import { createDomain, deleteDomain, updateDomain } from './pages-domains.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const pagesDomainRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;

  /** Pages off for the instance: the platform's require_pages_enabled!. */
  const pagesEnabled = async () => {
    if (!config.pagesEnabled) throw notFound();
  };
  /** The project the caller sees, then Pages, then the ability the route asks. */
  const project = (ability: ProjectAbility) => [
    loadProject('read_project'),
    pagesEnabled,
    async (req: FastifyRequest) => {
      if (!loadedProject(req).can.has(ability)) throw forbidden();
    },
  ];

  async function requireDomain(req: FastifyRequest, domain: string): Promise<PagesDomainRow> {
    const row = await findProjectDomain(db, loadedProject(req).row.id, domain);
    if (!row) throw notFound('PagesDomain');
    return row;
  }

  api.get(
    '/pages/domains',
    {
      schema: { querystring: ListDomainsQuery, response: { 200: Type.Array(PagesDomainBasicEntity) } },
      config: SIGNED_IN,
      preHandler: [pagesEnabled, async (req) => void requireAdmin(req)],
    },
    async (req, reply) => {
      const rows = await paginate(req, reply, allDomains(db));
      const at = now();
      return rows.map((row) => presentPagesDomainBasic(row, at));
    },
  );

  api.get(
    '/projects/:id/pages/domains',
    { schema: { params: ProjectParams, querystring: ListDomainsQuery, response: { 200: Type.Array(PagesDomainEntity) } }, config: SIGNED_IN, preHandler: project('read_pages') },
    async (req, reply) => {
      const rows = await paginate(req, reply, projectDomains(db, loadedProject(req).row.id));
      const at = now();
      return rows.map((row) => presentPagesDomain(row, at));
    },
  );

  api.get(
    '/projects/:id/pages/domains/:domain',
    { schema: { params: DomainParams, response: { 200: PagesDomainEntity } }, config: SIGNED_IN, preHandler: project('read_pages') },
    async (req) => presentPagesDomain(await requireDomain(req, req.params.domain), now()),
  );

  api.post(
    '/projects/:id/pages/domains',
    { schema: { params: ProjectParams, body: CreateDomainBody, response: { 201: PagesDomainEntity } }, config: SIGNED_IN, preHandler: project('update_pages') },
    async (req, reply) => {
      const row = await createDomain(serviceContext(req), loadedProject(req).row, req.body);
      return reply.code(201).send(presentPagesDomain(row, now()));
    },
  );

  api.put(
    '/projects/:id/pages/domains/:domain',
    { schema: { params: DomainParams, body: UpdateDomainBody, response: { 200: PagesDomainEntity } }, config: SIGNED_IN, preHandler: project('update_pages') },
    async (req) => {
      const row = await updateDomain(serviceContext(req), await requireDomain(req, req.params.domain), req.body);
      return presentPagesDomain(row, now());
    },
  );

  api.delete(
    '/projects/:id/pages/domains/:domain',
    { schema: { params: DomainParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: project('update_pages') },
    async (req, reply) => {
      await deleteDomain(serviceContext(req), await requireDomain(req, req.params.domain));
      return reply.code(204).send();
    },
  );
};
