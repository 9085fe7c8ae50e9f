// Namespaces: spec Part 2 §4.3 (list, show, existence of a path). Every route needs a signed-in caller.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { groupAbilities, groupSubject, personalNamespaceAbilities } from '../../core/access/abilities.ts';
import { requireUser } from '../../core/access/guards.ts';
import { accessToGroup } from '../../core/access/loaders.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { suggestPath } from '../../domain/namespace-paths.ts';
import { loadNamespaceCounts } from './member-counts.ts';
import { findNamespace, findNamespaces, loadCallerLevels, pathExists, pathOrNameUsed } from './namespaces.finder.ts';
import { type NamespaceView, presentNamespace } from './namespaces.presenter.ts';
import { ExistsQuery, ListNamespacesQuery, NamespaceEntity, NamespaceExistenceEntity, NamespaceIdParams } from './namespaces.schemas.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const namespaceRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db } = deps;

  /** The page's counts, loaded for the groups whose entity shows them. */
  async function viewFor(rows: NamespaceRow[], administers: (row: NamespaceRow) => boolean): Promise<NamespaceView> {
    const administered = new Set(rows.filter(administers).map((row) => row.id));
    const counts = await loadNamespaceCounts(db, rows, deps.now());
    return { baseUrl: deps.config.externalUrl, counts, administers: (row) => administered.has(row.id) };
  }

  api.get('/namespaces', { schema: { querystring: ListNamespacesQuery, response: { 200: Type.Array(NamespaceEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    const actor = requireUser(req);
    const rows = await paginate(req, reply, findNamespaces(db, deps.database.dialect, actor, req.query, deps.now()).orderBy('namespaces.id'));
    // Administrators administer every namespace whatever their memberships.
    const levels = actor.isAdmin ? new Map<number, number>() : await loadCallerLevels(db, actor.user.id, rows, deps.now());
    const view = await viewFor(rows, (row) =>
      row.type === 'Group'
        ? groupAbilities(actor, groupSubject(row), levels.get(row.id) ?? 0, false).has('admin_namespace')
        : personalNamespaceAbilities(actor, row).has('admin_namespace'),
    );
    return rows.map((row) => presentNamespace(row, view));
  });

  api.get('/namespaces/:id', { schema: { params: NamespaceIdParams, response: { 200: NamespaceEntity } }, config: SIGNED_IN }, async (req) => {
    const actor = requireUser(req);
    const row = await findNamespace(db, req.params.id);
    if (!row) throw notFound('Namespace');
    let administers: boolean;
    if (row.type === 'Group') {
      const { can } = await accessToGroup(req, row);
      if (!can.has('read_namespace')) throw notFound('Namespace');
      administers = can.has('admin_namespace');
    } else {
      const can = personalNamespaceAbilities(actor, row);
      if (!can.has('read_namespace')) throw notFound('Namespace');
      administers = can.has('admin_namespace');
    }
    return presentNamespace(row, await viewFor([row], () => administers));
  });

  api.get(
    '/namespaces/:id/exists',
    { schema: { params: NamespaceIdParams, querystring: ExistsQuery, response: { 200: NamespaceExistenceEntity } }, config: SIGNED_IN },
    async (req) => {
      requireUser(req);
      const path = req.params.id;
      const exists = await pathExists(db, path, req.query.parent_id ?? null);
      return { exists, suggests: exists ? [await suggestPath(path, (candidate) => pathOrNameUsed(db, candidate))] : [] };
    },
  );
};
