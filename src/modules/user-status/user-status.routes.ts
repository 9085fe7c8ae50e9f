// Users' statuses (the platform's 14.x users API): the caller's own (GET/PUT /user/status) and
// anyone's who may be read (GET /users/:user_id/status, by id or username).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { anonymousMayReadUsers } from '../../domain/settings/application-settings.ts';
import { findUserByIdOrUsername } from '../events/events.finder.ts';
import { findUserStatus } from './user-status.finder.ts';
import { presentUserStatus } from './user-status.presenter.ts';
import { SetStatusBody, UserRefParams, UserStatusEntity } from './user-status.schemas.ts';
import { setUserStatus } from './user-status.service.ts';

// As on the other users routes: read_user lets a token read, and only read.
const SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;
const ANYONE = { auth: 'optional', scopes: ['read_user'] } as const;

export const userStatusRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, now } = api.deps;

  api.get('/user/status', { schema: { response: { 200: UserStatusEntity } }, config: SIGNED_IN }, async (req) => {
    const { user } = requireUser(req);
    return presentUserStatus(await findUserStatus(db, user.id, now()));
  });

  api.put('/user/status', { schema: { body: SetStatusBody, response: { 200: UserStatusEntity } }, config: SIGNED_IN }, async (req) => {
    const { user } = requireUser(req);
    return presentUserStatus(await setUserStatus(serviceContext(req), user.id, req.body ?? {}));
  });

  api.get('/users/:user_id/status', { schema: { params: UserRefParams, response: { 200: UserStatusEntity } }, config: ANYONE }, async (req) => {
    const user = await findUserByIdOrUsername(db, req.params.user_id);
    // Whoever may read the user reads the status: anyone, but anonymous callers not when public is restricted.
    if (!user || (!req.actor && !(await anonymousMayReadUsers(db)))) throw notFound('User');
    return presentUserStatus(await findUserStatus(db, user.id, now()));
  });
};
