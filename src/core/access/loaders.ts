// preHandlers that load the project or group named by `:id` (a number or a URL-encoded full path),
// work out what the actor may do to it, and refuse: 404 when it may not be seen, 403 when the
// ability is missing.
import type { FastifyRequest } from 'fastify';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { forbidden, notFound } from '../errors.ts';
import { parseIdOrPath } from '../params.ts';
import { type GroupAbility, type ProjectAbility, groupAbilities, groupSubject, projectAbilities } from './abilities.ts';
import { groupAccessLevel, projectAccessLevel, reachesProjectUnder } from './authorizations.ts';
import { ACCESS } from './levels.ts';

export interface LoadedProject {
  row: ProjectRow;
  namespace: NamespaceRow;
  /** The actor's effective access level (0 for none). */
  access: number;
  can: Set<ProjectAbility>;
}

export interface LoadedGroup {
  row: NamespaceRow;
  access: number;
  can: Set<GroupAbility>;
}

declare module 'fastify' {
  interface FastifyRequest {
    project: LoadedProject;
    group: LoadedGroup;
  }
}

/** Finds a project by id or full path (case-insensitive), with its namespace. */
export async function findProject(req: FastifyRequest, raw: string): Promise<{ row: ProjectRow; namespace: NamespaceRow } | null> {
  const ref = parseIdOrPath(raw);
  if (!ref || ('id' in ref && !Number.isSafeInteger(ref.id))) return null;
  const { db } = req.server.deps;
  let q = db.selectFrom('projects').selectAll();
  q = 'id' in ref ? q.where('id', '=', ref.id) : q.where((eb) => eb(eb.fn('lower', ['full_path']), '=', ref.path.toLowerCase()));
  const row = await q.executeTakeFirst();
  if (!row) return null;
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', row.namespace_id).executeTakeFirstOrThrow();
  return { row, namespace };
}

/** What the request's actor may do to a project. */
export async function accessToProject(req: FastifyRequest, row: ProjectRow): Promise<{ access: number; can: Set<ProjectAbility> }> {
  const actor = req.actor;
  const access = actor ? await projectAccessLevel(req.server.deps.db, actor.user.id, row.id) : ACCESS.NO_ACCESS;
  return { access, can: projectAbilities(actor, row, access) };
}

/** Loads `req.project` from the `:id` parameter (or another one) and requires an ability. */
export function loadProject(ability: ProjectAbility, param = 'id') {
  return async (req: FastifyRequest) => {
    const found = await findProject(req, String((req.params as Record<string, unknown>)[param] ?? ''));
    if (!found) throw notFound('Project');
    const { access, can } = await accessToProject(req, found.row);
    if (!can.has('read_project')) throw notFound('Project');
    if (!can.has(ability)) throw forbidden();
    req.project = { ...found, access, can };
  };
}

/** Finds a group by id or full path (case-insensitive). */
export async function findGroup(req: FastifyRequest, raw: string): Promise<NamespaceRow | null> {
  const ref = parseIdOrPath(raw);
  if (!ref || ('id' in ref && !Number.isSafeInteger(ref.id))) return null;
  const { db } = req.server.deps;
  let q = db.selectFrom('namespaces').selectAll().where('type', '=', 'Group');
  q = 'id' in ref ? q.where('id', '=', ref.id) : q.where((eb) => eb(eb.fn('lower', ['full_path']), '=', ref.path.toLowerCase()));
  return (await q.executeTakeFirst()) ?? null;
}

/** What the request's actor may do to a group. */
export async function accessToGroup(req: FastifyRequest, row: NamespaceRow): Promise<{ access: number; can: Set<GroupAbility> }> {
  const { db, now } = req.server.deps;
  const actor = req.actor;
  const access = actor ? await groupAccessLevel(db, actor.user.id, row.traversal_path, now()) : ACCESS.NO_ACCESS;
  const subject = groupSubject(row);
  let can = groupAbilities(actor, subject, access, false);
  // A private group is visible to whoever reaches a project inside it.
  if (!can.has('read_group') && actor && (await reachesProjectUnder(db, actor.user.id, row.traversal_path))) {
    can = groupAbilities(actor, subject, access, true);
  }
  return { access, can };
}

/** Loads `req.group` from the `:id` parameter and requires an ability. */
export function loadGroup(ability: GroupAbility, param = 'id') {
  return async (req: FastifyRequest) => {
    const row = await findGroup(req, String((req.params as Record<string, unknown>)[param] ?? ''));
    if (!row) throw notFound('Group');
    const { access, can } = await accessToGroup(req, row);
    if (!can.has('read_group')) throw notFound('Group');
    if (!can.has(ability)) throw forbidden();
    req.group = { row, access, can };
  };
}
