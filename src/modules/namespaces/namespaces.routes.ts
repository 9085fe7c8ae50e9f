// Namespaces: spec Part 2 §4.3 (list, show, existence of a path). Every route needs a signed-in caller.
import type { FastifyPluginAsync } from 'fastify';
import { groupAbilities, personalNamespaceAbilities } from '../../core/access/abilities.ts';
import { requireUser } from '../../core/access/guards.ts';
import { accessToGroup, groupSettings } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { suggestPath } from './namespace-paths.ts';
import { type NamespaceCounts, findNamespace, findNamespaces, loadNamespaceCounts, pathExists, pathOrNameUsed } from './namespaces.finder.ts';
import { type NamespaceView, presentNamespace } from './namespaces.presenter.ts';
import { ExistsQuery, ListNamespacesQuery, NamespaceIdParams } from './namespaces.schemas.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const namespaceRoutes: FastifyPluginAsync = async (api) => {
  const deps = api.deps;
  const { db } = deps;

  async function viewFor(actor: Actor, rows: NamespaceRow[], administers: (row: NamespaceRow, counts: NamespaceCounts) => boolean): Promise<NamespaceView> {
    const counts = await loadNamespaceCounts(db, actor, rows, deps.now());
    return { baseUrl: deps.config.externalUrl, counts, administers: (row) => administers(row, counts) };
  }

  api.get('/namespaces', { schema: { querystring: ListNamespacesQuery }, config: SIGNED_IN }, async (req, reply) => {
    const actor = requireUser(req);
    const rows = await paginate(req, reply, findNamespaces(db, actor, req.query as ListNamespacesQuery, deps.now()).orderBy('namespaces.id'));
    const view = await viewFor(actor, rows, (row, counts) =>
      row.type === 'Group'
        ? groupAbilities(actor, { visibility_level: row.visibility_level, ...groupSettings(row) }, counts.callerLevels.get(row.id) ?? 0, false).has('admin_namespace')
        : personalNamespaceAbilities(actor, row).has('admin_namespace'),
    );
    return rows.map((row) => presentNamespace(row, view));
  });

  api.get('/namespaces/:id', { schema: { params: NamespaceIdParams }, config: SIGNED_IN }, async (req) => {
    const actor = requireUser(req);
    const row = await findNamespace(db, (req.params as { id: string }).id);
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
    return presentNamespace(row, await viewFor(actor, [row], () => administers));
  });

  api.get('/namespaces/:id/exists', { schema: { params: NamespaceIdParams, querystring: ExistsQuery }, config: SIGNED_IN }, async (req) => {
    requireUser(req);
    const path = (req.params as { id: string }).id;
    const exists = await pathExists(db, path, (req.query as ExistsQuery).parent_id ?? null);
    return { exists, suggests: exists ? [await suggestPath(path, (candidate) => pathOrNameUsed(db, candidate))] : [] };
  });
};
