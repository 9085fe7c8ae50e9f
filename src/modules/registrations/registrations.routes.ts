// Sign-up and email confirmation pages: GET /users/sign_up shows the form (the address filled in
// when it comes from an invitation's link), POST /users/sign_up creates the account and signs it in,
// GET /users/confirmation?confirmation_token=… confirms an address. Sign-up is open while the
// instance's signup_enabled is; it is throttled as sign-in is.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { escapeHtml, html, page } from '../../core/html-page.ts';
import { Entity } from '../../core/schema.ts';
import { THROTTLED_BODY, throttledHeaders } from '../../core/rate-limit.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { fullMessage } from '../../domain/validation.ts';
import { findInvitationByToken } from '../invitations/invitations.finder.ts';
import { startSession } from '../sessions/sessions.service.ts';
import { UserIdParams, USER_ID_ROUTE } from '../users/users.schemas.ts';
import { approveUser, confirmAndAccept, rejectUser, signUp } from './registrations.service.ts';

const config = { auth: 'none', json: false } as const;

interface FormValues {
  name?: string;
  username?: string;
  email?: string;
  inviteToken?: string | null;
}

function signUpForm(values: FormValues, errors: string[] = []): string {
  const field = (id: string, label: string, value: string | undefined, type = 'text') =>
    `<label for="${id}">${label}</label><input id="${id}" name="user[${id}]" type="${type}" value="${escapeHtml(value ?? '')}" required>`;
  return page(
    'Register',
    `${errors.map((e) => `<p class="error">${escapeHtml(e)}</p>`).join('')}
<form method="post" action="/users/sign_up">
${field('name', 'Full name', values.name)}
${field('username', 'Username', values.username)}
${field('email', 'Email', values.email, 'email')}
<label for="password">Password</label><input id="password" name="user[password]" type="password" autocomplete="new-password" required>
${values.inviteToken ? `<input type="hidden" name="invite_token" value="${escapeHtml(values.inviteToken)}">` : ''}<button type="submit">Register</button></form>`,
  );
}

const SIGN_UP_CLOSED = page('Sign-up is closed', '<p>This instance does not take sign-ups: ask an administrator for an account.</p>');
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A refused account's reasons as sentences: a conflict's message, or every field's full messages. */
function reasons(error: DomainError): string[] {
  const { fields } = error;
  if (fields === undefined) return [error.message];
  if (Array.isArray(fields)) return [...fields];
  return Object.entries(fields).flatMap(([field, list]) => list.map((message: string) => fullMessage(field, message)));
}

export const registrationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const secure = app.deps.config.externalUrl.startsWith('https:');
  const SIGN_UP_THROTTLE = 'throttle_unauthenticated_protected_paths_web';

  app.get('/users/sign_up', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    if (!(await applicationSettings(ctx.db)).signup_enabled) return html(reply, 404, SIGN_UP_CLOSED);
    const inviteToken = text(req.rawParams.invite_token) || null;
    const invitation = inviteToken ? await findInvitationByToken(ctx.db, inviteToken) : undefined;
    return html(reply, 200, signUpForm({ email: invitation?.invite_email, inviteToken: invitation ? inviteToken : null }));
  });

  // The platform posts the form to /users; here that name is the API's (/api/v4/users) in the reference.
  app.post('/users/sign_up', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    if (!(await applicationSettings(ctx.db)).signup_enabled) return html(reply, 404, SIGN_UP_CLOSED);
    const verdict = await app.throttle.hit(SIGN_UP_THROTTLE, `ip:${req.ip}`);
    if (verdict && !verdict.allowed) return reply.code(429).headers(throttledHeaders(SIGN_UP_THROTTLE, verdict)).type('text/plain').send(THROTTLED_BODY);
    const nested = (req.rawParams.user ?? {}) as Record<string, unknown>;
    const values = { name: text(nested.name), username: text(nested.username), email: text(nested.email), inviteToken: text(req.rawParams.invite_token) || null };
    const signedUp = await signUp(ctx, { ...values, password: text(nested.password) }).catch((error: unknown) => {
      // A refused account: the form again, with the reasons (as the platform renders it, 200).
      if (error instanceof DomainError && error.status < 500) return reasons(error);
      throw error;
    });
    if (Array.isArray(signedUp)) return html(reply, 200, signUpForm(values, signedUp));
    const { user, awaitingApproval, awaitingConfirmation } = signedUp;
    if (awaitingApproval) {
      return html(reply, 200, page('Registered', '<p>You have signed up successfully. However, we could not sign you in because your account is awaiting approval from your administrator.</p>'));
    }
    const { cookie, lifetimeSeconds } = await startSession(ctx, user, req.ip);
    reply.setCookie(SESSION_COOKIE, cookie, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: lifetimeSeconds });
    if (awaitingConfirmation) {
      return html(reply, 200, page('Almost there', `<p>Please check your email (${escapeHtml(user.email)}) to confirm your account.</p>`));
    }
    return reply.code(302).header('location', '/users/sign_in').send();
  });

  app.get('/users/confirmation', { config }, async (req, reply) => {
    const user = await confirmAndAccept(serviceContext(req), text(req.rawParams.confirmation_token));
    if (!user) return html(reply, 404, page('Confirmation', '<p>Confirmation token is invalid.</p>'));
    return html(reply, 200, page('Confirmation', '<p>Your email address has been successfully confirmed.</p><p><a href="/users/sign_in">Sign in</a></p>'));
  });
};

/** The API side of sign-up: an administrator approves or rejects an account waiting for approval. */
export const registrationApiRoutes: FastifyPluginAsyncTypebox = async (api) => {
  api.post(
    `/users/${USER_ID_ROUTE}/approve`,
    { schema: { params: UserIdParams, response: { 201: Entity({ message: Type.Literal('Success') }) } }, config: { auth: 'required', scopes: ['read_user'] } },
    async (req, reply) => {
      await approveUser(serviceContext(req), req.params.id);
      return reply.code(201).send({ message: 'Success' as const });
    },
  );
  api.post(
    `/users/${USER_ID_ROUTE}/reject`,
    { schema: { params: UserIdParams, response: { 200: Entity({ message: Type.Literal('Success') }) } }, config: { auth: 'required', scopes: ['read_user'] } },
    async (req) => {
      await rejectUser(serviceContext(req), req.params.id);
      return { message: 'Success' as const };
    },
  );
};
