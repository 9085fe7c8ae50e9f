// The authorization-code flow's pages: GET /oauth/authorize asks the signed-in user whether the
// application may act for them (a trusted application, or one the user already gave these scopes,
// is let through at once); POST /oauth/authorize says yes, DELETE (or a form's `_method=delete`)
// says no; GET /oauth/authorize/native shows the code to a native application's user.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import { escapeHtml, html, page } from '../../core/html-page.ts';
import { findPostingSession, findSession } from '../sessions/sessions.service.ts';
import { type AuthorizationRequest, type ValidAuthorization, alreadyAuthorized, checkAuthorization, errorRedirect, grantAuthorization } from './authorization-codes.service.ts';
import { OauthError } from './oauth.service.ts';

const config = { auth: 'none', json: false } as const;
const FIELDS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

function requestOf(params: Record<string, unknown>): AuthorizationRequest {
  const request: AuthorizationRequest = {};
  for (const field of FIELDS) if (typeof params[field] === 'string' && params[field] !== '') request[field] = params[field];
  return request;
}

const redirect = (reply: FastifyReply, location: string) => reply.code(302).header('location', location).send();

function errorPage(reply: FastifyReply, error: OauthError) {
  return html(reply, 400, page('An error has occurred', `<p>${escapeHtml(error.message)}</p>`));
}

function consentPage(auth: ValidAuthorization, csrf: string): string {
  const hidden = (name: string, value: string | null | undefined) => (value ? `<input type="hidden" name="${name}" value="${escapeHtml(value)}">` : '');
  const fields = [
    hidden('authenticity_token', csrf),
    hidden('client_id', auth.application.uid),
    hidden('redirect_uri', auth.redirectUri),
    hidden('response_type', 'code'),
    hidden('scope', auth.scopes.join(' ')),
    hidden('state', auth.state),
    hidden('code_challenge', auth.codeChallenge),
    hidden('code_challenge_method', auth.codeChallengeMethod),
  ].join('');
  return page(
    'Authorize',
    `<p>Authorize <strong>${escapeHtml(auth.application.name)}</strong> to use your account?</p>
<p>This application will be able to:</p><ul>${auth.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize">${fields}<button type="submit">Authorize</button></form>
<form method="post" action="/oauth/authorize">${fields}<input type="hidden" name="_method" value="delete"><button type="submit">Deny</button></form>`,
    csrf,
  );
}

export const authorizeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  /** Checks the request; answers the page or redirect a problem calls for, or the valid request. */
  async function checked(req: FastifyRequest, reply: FastifyReply): Promise<ValidAuthorization | null> {
    const result = await checkAuthorization(db, requestOf(req.rawParams));
    if (result.ok) return result.value;
    if (result.redirect === false) await errorPage(reply, result.error);
    else await redirect(reply, errorRedirect(result.redirect, result.error, requestOf(req.rawParams).state));
    return null;
  }

  app.get('/oauth/authorize', { config }, async (req, reply) => {
    const session = await findSession(serviceContext(req), req.cookies[SESSION_COOKIE]);
    if (!session) return redirect(reply, `/users/sign_in?redirect_to=${encodeURIComponent(req.url)}`);
    const auth = await checked(req, reply);
    if (!auth) return reply;
    if (await alreadyAuthorized(db, session.user_id, auth)) return redirect(reply, await grantAuthorization(serviceContext(req), session.user_id, auth));
    return html(reply, 200, consentPage(auth, session.csrf_token));
  });

  async function decide(req: FastifyRequest, reply: FastifyReply, approve: boolean) {
    const ctx = serviceContext(req);
    const session = await findPostingSession(ctx, req.cookies[SESSION_COOKIE], req.rawParams.authenticity_token ?? req.headers['x-csrf-token']);
    // Without the page's CSRF token another site could grant itself access.
    if (!session) return html(reply, 422, page('Authorize', '<p>The form has expired. Go back and try again.</p>'));
    const auth = await checked(req, reply);
    if (!auth) return reply;
    if (!approve) return redirect(reply, errorRedirect(auth.redirectUri, new OauthError('access_denied', 'The resource owner or authorization server denied the request.'), auth.state));
    return redirect(reply, await grantAuthorization(ctx, session.user_id, auth));
  }

  app.post('/oauth/authorize', { config }, (req, reply) => decide(req, reply, req.rawParams._method !== 'delete'));
  app.delete('/oauth/authorize', { config }, (req, reply) => decide(req, reply, false));

  app.get('/oauth/authorize/native', { config }, async (req, reply) => {
    const code = typeof req.rawParams.code === 'string' ? req.rawParams.code : '';
    return html(reply, 200, page('Authorization code', `<p>Copy this code and paste it into the application:</p><p><code>${escapeHtml(code)}</code></p>`));
  });
};
