// Who may call a route. Routes name these checks; they never compare roles or flags themselves.
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.ts';
import { forbidden, unauthorized } from '../errors.ts';

/** The signed-in actor, or 401. */
export function requireUser(req: FastifyRequest): Actor {
  if (!req.actor) throw unauthorized();
  return req.actor;
}

/** An administrator (admin mode taken into account), or 401 / 403. */
export function requireAdmin(req: FastifyRequest): Actor {
  const actor = requireUser(req);
  if (!actor.isAdmin) throw forbidden();
  return actor;
}

/** preHandler forms, for routes whose whole audience is one of these. */
export const signedIn = async (req: FastifyRequest) => {
  requireUser(req);
};
export const adminOnly = async (req: FastifyRequest) => {
  requireAdmin(req);
};
