// preHandlers that load the project or group named by `:id` (a number or a URL-encoded full path),
// work out what the actor may do to it, and refuse: 404 when it may not be seen, 403 when the
// ability is missing. Handlers read what was loaded with loadedProject(req) / loadedGroup(req),
// which throw when the route has no such preHandler.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import type { Actor } from '../auth/actor.ts';
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

const projects = new WeakMap<FastifyRequest, LoadedProject>();
const groups = new WeakMap<FastifyRequest, LoadedGroup>();

/** The project loadProject loaded for this request; a route without that preHandler is a bug. */
export function loadedProject(req: FastifyRequest): LoadedProject {
  const project = projects.get(req);
  if (!project) throw new Error(`${req.method} ${req.routeOptions.url}: no project was loaded (the route has no loadProject preHandler)`);
  return project;
}

/** The group loadGroup loaded for this request; a route without that preHandler is a bug. */
export function loadedGroup(req: FastifyRequest): LoadedGroup {
  const group = groups.get(req);
  if (!group) throw new Error(`${req.method} ${req.routeOptions.url}: no group was loaded (the route has no loadGroup preHandler)`);
  return group;
}

/** The `:id` path parameter, as the router gave it. */
function idParam(req: FastifyRequest): string {
  const params = req.params;
  return typeof params === 'object' && params !== null && 'id' in params ? String(params.id) : '';
}

/** Finds a project by id or full path (case-insensitive), with its namespace. */
export async function findProject(req: FastifyRequest, raw: string): Promise<{ row: ProjectRow; namespace: NamespaceRow } | null> {
  const ref = parseIdOrPath(raw);
  if (!ref || ('id' in ref && !Number.isSafeInteger(ref.id))) return null;
  return findProjectBy(req.server.deps.db, ref);
}

/** Finds a project by its full path only (case-insensitive), as git clients name it, with its namespace. */
export function findProjectByFullPath(db: Kysely<DB>, fullPath: string): Promise<{ row: ProjectRow; namespace: NamespaceRow } | null> {
  return findProjectBy(db, { path: fullPath });
}

// Prepared: nearly every project route loads its project by id this way.
const projectById = prepared((db, id: number) => db.selectFrom('projects').selectAll().where('id', '=', id));
const namespaceById = prepared((db, id: number) => db.selectFrom('namespaces').selectAll().where('id', '=', id));

/** The project's namespace, which always exists. */
async function namespaceOf(db: Kysely<DB>, row: ProjectRow): Promise<NamespaceRow> {
  const [namespace] = await namespaceById(db, row.namespace_id);
  if (!namespace) throw new Error(`project ${row.id}: no namespace ${row.namespace_id}`);
  return namespace;
}

async function findProjectBy(db: Kysely<DB>, ref: { id: number } | { path: string }): Promise<{ row: ProjectRow; namespace: NamespaceRow } | null> {
  const row =
    'id' in ref ? (await projectById(db, ref.id))[0] : await db.selectFrom('projects').selectAll().where((eb) => eb(eb.fn('lower', ['full_path']), '=', ref.path.toLowerCase())).executeTakeFirst();
  if (!row) return null;
  return { row, namespace: await namespaceOf(db, row) };
}

/** What an actor (none: anonymous) may do to a project, outside a request (git over SSH, say). */
export async function accessOf(db: Kysely<DB>, actor: Actor | null, row: ProjectRow): Promise<{ access: number; can: Set<ProjectAbility> }> {
  const access = actor ? await projectAccessLevel(db, actor.user.id, row.id) : ACCESS.NO_ACCESS;
  return { access, can: projectAbilities(actor, row, access) };
}

/** What the request's actor may do to a project. */
export function accessToProject(req: FastifyRequest, row: ProjectRow): Promise<{ access: number; can: Set<ProjectAbility> }> {
  return accessOf(req.server.deps.db, req.actor, row);
}

/** A project as loadProject loads it, for work done in a user's name outside a request (a background job). */
export async function projectAs(db: Kysely<DB>, actor: Actor, row: ProjectRow): Promise<LoadedProject> {
  return { row, namespace: await namespaceOf(db, row), ...(await accessOf(db, actor, row)) };
}

/** Loads the project named by `:id` and requires an ability; loadedProject(req) then reads it. */
export function loadProject(ability: ProjectAbility) {
  return async (req: FastifyRequest) => {
    const found = await findProject(req, idParam(req));
    if (!found) throw notFound('Project');
    const { access, can } = await accessToProject(req, found.row);
    if (!can.has('read_project')) throw notFound('Project');
    if (!can.has(ability)) throw forbidden();
    projects.set(req, { ...found, access, can });
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
export function accessToGroup(req: FastifyRequest, row: NamespaceRow): Promise<{ access: number; can: Set<GroupAbility> }> {
  const { db, now } = req.server.deps;
  return groupAccessOf(db, now(), req.actor, row);
}

/** Finds a group by its full path only (case-insensitive), as git clients name its wiki. */
export async function findGroupByFullPath(db: Kysely<DB>, fullPath: string): Promise<NamespaceRow | null> {
  const row = await db
    .selectFrom('namespaces')
    .selectAll()
    .where('type', '=', 'Group')
    .where((eb) => eb(eb.fn('lower', ['full_path']), '=', fullPath.toLowerCase()))
    .executeTakeFirst();
  return row ?? null;
}

/** What an actor (none: anonymous) may do to a group, outside a request. */
export async function groupAccessOf(db: Kysely<DB>, now: Date, actor: Actor | null, row: NamespaceRow): Promise<{ access: number; can: Set<GroupAbility> }> {
  const access = actor ? await groupAccessLevel(db, actor.user.id, row.traversal_path, now) : ACCESS.NO_ACCESS;
  const subject = groupSubject(row);
  let can = groupAbilities(actor, subject, access, false);
  // A private group is visible to whoever reaches a project inside it.
  if (!can.has('read_group') && actor && (await reachesProjectUnder(db, actor.user.id, row.traversal_path))) {
    can = groupAbilities(actor, subject, access, true);
  }
  return { access, can };
}

/** Loads the group named by `:id` and requires an ability; loadedGroup(req) then reads it. */
export function loadGroup(ability: GroupAbility) {
  return async (req: FastifyRequest) => {
    const row = await findGroup(req, idParam(req));
    if (!row) throw notFound('Group');
    const { access, can } = await accessToGroup(req, row);
    if (!can.has('read_group')) throw notFound('Group');
    if (!can.has(ability)) throw forbidden();
    groups.set(req, { row, access, can });
  };
}
