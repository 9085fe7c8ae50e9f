// Users' further email addresses (the platform's 14.x users API): the caller's own under /user/emails,
// and any user's for administrators under /users/:id/emails.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { EmailRow, UserRow } from '../../db/schema.ts';
import { findUserById } from '../users/users.finder.ts';
import { findUserEmail, userEmails } from './emails.finder.ts';
import { presentEmail } from './emails.presenter.ts';
import { AdminCreateEmailBody, CreateEmailBody, EmailEntity, EmailIdParams, ListEmailsQuery, UserEmailParams, UserIdParams } from './emails.schemas.ts';
import { addEmail, deleteEmail } from './emails.service.ts';

// As on the other users routes: read_user lets a token read, and only read.
const SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;

export const emailRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  async function ownEmail(userId: number, emailId: number): Promise<EmailRow> {
    const email = await findUserEmail(db, userId, emailId);
    if (!email) throw notFound('Email');
    return email;
  }

  async function existingUser(id: number): Promise<UserRow> {
    const user = await findUserById(db, id);
    if (!user) throw notFound('User');
    return user;
  }

  // ---- The caller's own addresses -------------------------------------------------------------

  api.get('/user/emails', { schema: { querystring: ListEmailsQuery, response: { 200: Type.Array(EmailEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    return (await paginate(req, reply, userEmails(db, user.id))).map(presentEmail);
  });

  api.get('/user/emails/:email_id', { schema: { params: EmailIdParams, response: { 200: EmailEntity } }, config: SIGNED_IN }, async (req) => {
    return presentEmail(await ownEmail(requireUser(req).user.id, req.params.email_id));
  });

  api.post('/user/emails', { schema: { body: CreateEmailBody, response: { 201: EmailEntity } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    const row = await addEmail(serviceContext(req), user, { email: req.body.email, confirmed: false });
    reply.code(201);
    return presentEmail(row);
  });

  api.delete('/user/emails/:email_id', { schema: { params: EmailIdParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    const email = await ownEmail(requireUser(req).user.id, req.params.email_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(email.updated_at));
    await deleteEmail(serviceContext(req), email);
    return reply.code(204).send();
  });

  // ---- Any user's addresses, for administrators -------------------------------------------------

  api.get('/users/:id/emails', { schema: { params: UserIdParams, querystring: ListEmailsQuery, response: { 200: Type.Array(EmailEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await existingUser(req.params.id);
    return (await paginate(req, reply, userEmails(db, user.id))).map(presentEmail);
  });

  api.post('/users/:id/emails', { schema: { params: UserIdParams, body: AdminCreateEmailBody, response: { 201: EmailEntity } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await existingUser(req.params.id);
    const row = await addEmail(serviceContext(req), user, { email: req.body.email, confirmed: req.body.skip_confirmation === true });
    reply.code(201);
    return presentEmail(row);
  });

  api.delete('/users/:id/emails/:email_id', { schema: { params: UserEmailParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const email = await ownEmail((await existingUser(req.params.id)).id, req.params.email_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(email.updated_at));
    await deleteEmail(serviceContext(req), email);
    return reply.code(204).send();
  });
};
