// The role × visibility access matrix, reusable by any module: one caller per role (anonymous, a
// signed-in non-member, guest … owner, an administrator, an external user, a blocked member), a
// private, an internal and a public project and group they hold those roles in, the statuses the
// platform's rules give each of them, and a runner that calls a route as every role on every
// visibility and reports all mismatches at once.
//
// Projects live in the owner's personal namespace (the owner role is the namespace's owner) with
// guest … maintainer as direct members; groups have guest … owner as direct members. The blocked
// caller is a developer of both whose account is blocked; the external caller is no member.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { ACCESS, type VisibilityName } from '../src/core/access/levels.ts';
import type { NamespaceRow, ProjectRow, UserRow } from '../src/db/schema.ts';
import { createGroup, createProject, personalNamespace } from './factories.ts';
import { ROOT_TOKEN, type TestApp } from './harness.ts';

export const ROLES = ['anonymous', 'non_member', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'external', 'blocked'] as const;
export type Role = (typeof ROLES)[number];
export const VISIBILITIES = ['private', 'internal', 'public'] as const satisfies readonly VisibilityName[];
export type Visibility = (typeof VISIBILITIES)[number];

/** The membership level each role holds (the blocked caller is a developer). */
export const ROLE_LEVEL: Record<Role, number> = {
  anonymous: ACCESS.NO_ACCESS,
  non_member: ACCESS.NO_ACCESS,
  guest: ACCESS.GUEST,
  reporter: ACCESS.REPORTER,
  developer: ACCESS.DEVELOPER,
  maintainer: ACCESS.MAINTAINER,
  owner: ACCESS.OWNER,
  admin: ACCESS.NO_ACCESS,
  external: ACCESS.NO_ACCESS,
  blocked: ACCESS.DEVELOPER,
};

export interface Caller {
  role: Role;
  /** Absent for the anonymous caller. */
  token?: string;
  user?: UserRow;
}

export interface MatrixWorld {
  callers: Record<Role, Caller>;
  projects: Record<Visibility, ProjectRow>;
  groups: Record<Visibility, NamespaceRow>;
}

const MEMBER_ROLES = ['guest', 'reporter', 'developer', 'maintainer'] as const;

/**
 * Creates the callers and, for each visibility, a project and a group holding their roles.
 * `prefix` names users, projects and groups, so that one application may hold several worlds.
 */
export async function buildMatrixWorld(t: TestApp, prefix = 'matrix'): Promise<MatrixWorld> {
  const root = await t.deps.db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const callers = { anonymous: { role: 'anonymous' }, admin: { role: 'admin', token: ROOT_TOKEN, user: root } } as Record<Role, Caller>;
  for (const role of ROLES) {
    if (role === 'anonymous' || role === 'admin') continue;
    const { user, token } = await t.user({ username: `${prefix}-${role}`, external: role === 'external' });
    callers[role] = { role, user, token };
  }
  const ownerNamespace = await personalNamespace(t, callers.owner.user!.id);
  const projects = {} as Record<Visibility, ProjectRow>;
  const groups = {} as Record<Visibility, NamespaceRow>;
  for (const visibility of VISIBILITIES) {
    const members: [number, number][] = [...MEMBER_ROLES, 'blocked' as const].map((role) => [callers[role].user!.id, ROLE_LEVEL[role]]);
    projects[visibility] = await createProject(t, { path: `${prefix}-${visibility}`, visibility, namespace: ownerNamespace, creatorId: callers.owner.user!.id, members });
    groups[visibility] = await createGroup(t, { path: `${prefix}-${visibility}-group`, visibility, members: [...members, [callers.owner.user!.id, ACCESS.OWNER]] });
  }
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', callers.blocked.user!.id).execute();
  return { callers, projects, groups };
}

/** Whether the role sees a subject of this visibility (blocked and anonymous-only rules aside). */
export function canSee(role: Role, visibility: Visibility): boolean {
  if (role === 'admin' || ROLE_LEVEL[role] >= ACCESS.GUEST) return true;
  if (visibility === 'public') return true;
  return visibility === 'internal' && role === 'non_member';
}

/** The status a role gets from a route on a subject of a visibility. */
export type Expectation = (role: Role, visibility: Visibility) => number;

export interface RouteRule {
  /** Status on success. */
  success: number;
  /** 'required': anonymous callers get 401; 'optional': they read public subjects. */
  auth: 'required' | 'optional';
  /** The lowest level the route's ability needs (administrators always pass); none: every reader. */
  minLevel?: number;
  /** Status for a reader below minLevel (403 unless the route says otherwise). */
  denied?: number;
}

/**
 * The platform's order: 401 for anonymous callers on authenticated routes, 403 for blocked
 * accounts, 404 for what the caller may not see, then the ability.
 */
export function expectation(rule: RouteRule): Expectation {
  return (role, visibility) => {
    if (role === 'anonymous' && rule.auth === 'required') return 401;
    if (role === 'blocked') return 403;
    if (!canSee(role, visibility)) return 404;
    if (rule.minLevel !== undefined && role !== 'admin' && ROLE_LEVEL[role] < rule.minLevel) return rule.denied ?? 403;
    return rule.success;
  };
}

export interface MatrixCall {
  role: Role;
  visibility: Visibility;
  caller: Caller;
  project: ProjectRow;
  group: NamespaceRow;
}

export interface MatrixCase {
  /** Roles to leave out (e.g. when a route's success depends on who the caller is). */
  except?: Role[];
  expect: Expectation;
  /** Makes the request; write routes create what they act on here, so every call starts afresh. */
  call(c: MatrixCall): Promise<LightMyRequestResponse>;
  /** Checks a successful answer's body. */
  verify?(res: LightMyRequestResponse, c: MatrixCall): void | Promise<void>;
  /** Expected bodies of refusals by status (see refusals()); a blocked caller's is always checked. */
  errors?: Partial<Record<number, unknown>>;
  /**
   * One call at a time, for calls that recompute the shared callers' authorizations (a project
   * created where they are members): recomputations of one user's rows at once collide.
   */
  serial?: boolean;
}

export const BLOCKED_BODY = { message: '403 Forbidden - Your account has been blocked.' };

/** The usual refusal bodies for a project or group route; `overrides` for routes that answer otherwise. */
export function refusals(subject: 'Project' | 'Group', overrides: Partial<Record<number, unknown>> = {}): Partial<Record<number, unknown>> {
  return { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' }, 404: { message: `404 ${subject} Not Found` }, ...overrides };
}

/**
 * Calls as every role on every visibility; fails once, listing every mismatch (in the order of
 * VISIBILITIES, then ROLES). The visibilities run at once (unless the case is serial), each on its
 * own project and group, and the roles of one visibility one after the other: calls that write to
 * the same subject (commits on one branch, say) would otherwise race.
 */
export async function runMatrix(world: MatrixWorld, matrixCase: MatrixCase): Promise<void> {
  const lane = async (visibility: Visibility) => {
    const mismatches: string[] = [];
    for (const role of ROLES) {
      if (matrixCase.except?.includes(role)) continue;
      const c: MatrixCall = { role, visibility, caller: world.callers[role], project: world.projects[visibility], group: world.groups[visibility] };
      const mismatch = await checkCall(matrixCase, c);
      if (mismatch !== null) mismatches.push(`${visibility} × ${role}: ${mismatch}`);
    }
    return mismatches;
  };
  const lanes: string[][] = [];
  if (matrixCase.serial) {
    for (const visibility of VISIBILITIES) lanes.push(await lane(visibility));
  } else {
    // Every lane finishes before a failure is reported, so that none runs on after the test ends.
    const settled = await Promise.allSettled(VISIBILITIES.map(lane));
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    for (const result of settled) if (result.status === 'fulfilled') lanes.push(result.value);
  }
  const mismatches = lanes.flat();
  assert.deepEqual(mismatches, [], `access matrix mismatches:\n  ${mismatches.join('\n  ')}`);
}

/** What is wrong with one call's answer, or null. */
async function checkCall(matrixCase: MatrixCase, c: MatrixCall): Promise<string | null> {
  const res = await matrixCase.call(c);
  const want = matrixCase.expect(c.role, c.visibility);
  if (res.statusCode !== want) return `expected ${want}, got ${res.statusCode} ${res.body.slice(0, 200)}`;
  const errorBody = c.role === 'blocked' ? BLOCKED_BODY : matrixCase.errors?.[want];
  if (want >= 400 && errorBody !== undefined && !isDeepStrictEqual(res.json(), errorBody)) {
    return `expected body ${JSON.stringify(errorBody)}, got ${res.body.slice(0, 200)}`;
  }
  if (res.statusCode < 300 && matrixCase.verify) {
    try {
      await matrixCase.verify(res, c);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return null;
}
