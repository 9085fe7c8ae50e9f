// The few web pages: GET / (what this server is, and where to go: the API reference, sign-in, the
// health probes), and the sign-in: GET /users/sign_in shows a form (or who is signed in, with the
// CSRF token for API writes), POST /users/sign_in checks the password, sets the cookie and goes
// back where the form was asked from (`redirect_to`, a local path), POST /users/sign_out ends the
// session.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import { escapeHtml, html, localPath, page } from '../../core/html-page.ts';
import { BANNED_BODY, THROTTLED_BODY, throttledHeaders } from '../../core/rate-limit.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { PRODUCT_VERSION, REPORTED_VERSION } from '../../version.ts';
import { authenticatePassword } from '../users/index.ts';
import { acceptTerms } from '../users/users.service.ts';
import { endSession, enterAdminMode, findPostingSession, findSession, leaveAdminMode, startSession } from './sessions.service.ts';

/** HTML pages and redirects, outside the API and its authentication. */
const config = { auth: 'none', json: false } as const;

/** `returnTo`: a local path to go to once signed in (an invitation's link), carried through the form. */
function signInForm(error?: string, returnTo?: string | null): string {
  return page(
    'Sign in',
    `${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/users/sign_in">
<label for="login">Username or email</label><input id="login" name="user[login]" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="user[password]" type="password" autocomplete="current-password" required>
${returnTo ? `<input type="hidden" name="redirect_to" value="${escapeHtml(returnTo)}">` : ''}<button type="submit">Sign in</button></form>`,
  );
}

const PASSWORDS_OFF = page('Sign in', '<p class="error">Password authentication is unavailable.</p><p>Use a personal access token with the API.</p>');

/** The page asking an administrator's password again to enter admin mode (admin_mode). */
function adminModeForm(csrfToken: string, error?: string): string {
  return page(
    'Enter admin mode',
    `${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/admin/session">
<input type="hidden" name="authenticity_token" value="${escapeHtml(csrfToken)}">
<label for="password">Password</label><input id="password" name="user[password]" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Enter admin mode</button></form>`,
    csrfToken,
  );
}

function termsPage(terms: string | null, csrfToken: string): string {
  return page(
    'Terms of Service',
    `<pre>${escapeHtml(terms ?? '')}</pre>
<form method="post" action="/-/users/terms/accept"><input type="hidden" name="authenticity_token" value="${escapeHtml(csrfToken)}"><button type="submit">Accept terms</button></form>`,
    csrfToken,
  );
}

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const secure = app.deps.config.externalUrl.startsWith('https:');

  app.get('/', { config }, async (_req, reply) =>
    html(
      reply,
      200,
      page(
        'Quarry',
        `<p>A light-weight server of the REST API v4 (as of release ${REPORTED_VERSION}), version ${escapeHtml(PRODUCT_VERSION)}.</p>
<ul>
<li><a href="/-/api-docs">API reference</a> (<a href="/-/openapi.json">OpenAPI document</a>); the API is under <code>/api/v4</code></li>
<li><a href="/users/sign_in">Sign in</a></li>
<li>Health: <a href="/-/health">/-/health</a>, <a href="/-/liveness">/-/liveness</a>, <a href="/-/readiness">/-/readiness</a></li>
</ul>`,
      ),
    ),
  );

  app.get('/users/sign_in', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    const session = await findSession(ctx, req.cookies[SESSION_COOKIE]);
    if (!session) {
      // Passwords off for the web (password_authentication_enabled_for_web): no form to fill in.
      if (!(await applicationSettings(ctx.db)).password_authentication_enabled_for_web) return html(reply, 200, PASSWORDS_OFF);
      return html(reply, 200, signInForm(undefined, localPath(req.rawParams.redirect_to)));
    }
    return html(
      reply,
      200,
      page(
        'Signed in',
        `<p>Signed in as <strong>@${escapeHtml(session.username)}</strong>.</p>
<form method="post" action="/users/sign_out"><input type="hidden" name="authenticity_token" value="${escapeHtml(session.csrf_token)}"><button type="submit">Sign out</button></form>`,
        session.csrf_token,
      ),
    );
  });

  /** Signing in is a protected path: throttled per address, and refused to an address banned for failing to authenticate. */
  const SIGN_IN_THROTTLE = 'throttle_unauthenticated_protected_paths_web';

  app.post('/users/sign_in', { config }, async (req, reply) => {
    const { throttle } = app;
    if ((await throttle.bannedFor(req.ip)) > 0) return reply.code(403).type('text/plain').send(BANNED_BODY);
    const verdict = await throttle.hit(SIGN_IN_THROTTLE, `ip:${req.ip}`);
    if (verdict && !verdict.allowed) return reply.code(429).headers(throttledHeaders(SIGN_IN_THROTTLE, verdict)).type('text/plain').send(THROTTLED_BODY);
    const p = req.rawParams;
    const nested = (p.user ?? {}) as Record<string, unknown>;
    const login = nested.login ?? p.login;
    const password = nested.password ?? p.password;
    const returnTo = localPath(p.redirect_to);
    if (typeof login !== 'string' || typeof password !== 'string' || login === '' || password === '') {
      return html(reply, 401, signInForm('Invalid login or password.', returnTo));
    }
    const ctx = serviceContext(req);
    if (!(await applicationSettings(ctx.db)).password_authentication_enabled_for_web) return html(reply, 403, PASSWORDS_OFF);
    const user = await authenticatePassword(ctx, login, password);
    if (!user) {
      await throttle.failedAuthentication(req.ip);
      return html(reply, 401, signInForm('Invalid login or password.', returnTo));
    }
    // A deactivated user reactivates by signing in on the web; anyone else not active is refused.
    if (user.state !== 'active' && user.state !== 'deactivated') return html(reply, 401, signInForm('Your account has been blocked.', returnTo));
    const { cookie, lifetimeSeconds } = await startSession(ctx, user, req.ip);
    reply.setCookie(SESSION_COOKIE, cookie, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: lifetimeSeconds });
    return reply.code(302).header('location', returnTo ?? '/users/sign_in').send();
  });

  /** The signed-in session of a web form post that carries the session's CSRF token; undefined otherwise. */
  function postingSession(req: FastifyRequest) {
    return findPostingSession(serviceContext(req), req.cookies[SESSION_COOKIE], req.rawParams.authenticity_token ?? req.headers['x-csrf-token']);
  }

  // Admin mode (the admin_mode setting): an administrator's web session acts as administrator
  // after the password is given again, for six hours, or until it leaves admin mode.
  app.get('/admin/session/new', { config }, async (req, reply) => {
    const session = await findSession(serviceContext(req), req.cookies[SESSION_COOKIE]);
    if (!session) return reply.code(302).header('location', '/users/sign_in?redirect_to=/admin/session/new').send();
    if (!session.admin) return html(reply, 404, page('Not found', '<p>Page not found.</p>'));
    return html(reply, 200, adminModeForm(session.csrf_token));
  });

  app.post('/admin/session', { config }, async (req, reply) => {
    const session = await postingSession(req);
    if (!session || !session.admin) return html(reply, 404, page('Not found', '<p>Page not found.</p>'));
    const nested = (req.rawParams.user ?? {}) as Record<string, unknown>;
    const password = nested.password ?? req.rawParams.password;
    const ctx = serviceContext(req);
    const user = typeof password === 'string' && password !== '' ? await authenticatePassword(ctx, session.username, password) : undefined;
    if (!user || user.id !== session.user_id) {
      await app.throttle.failedAuthentication(req.ip);
      return html(reply, 401, adminModeForm(session.csrf_token, 'Invalid login or password'));
    }
    await enterAdminMode(ctx, session.id);
    return reply.code(302).header('location', '/users/sign_in').send();
  });

  app.post('/admin/session/destroy', { config }, async (req, reply) => {
    const session = await postingSession(req);
    if (session) await leaveAdminMode(serviceContext(req), session.id);
    return reply.code(302).header('location', '/users/sign_in').send();
  });

  // The terms of service (enforce_terms): shown to a signed-in user, who accepts them here.
  app.get('/-/users/terms', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    const session = await findSession(ctx, req.cookies[SESSION_COOKIE]);
    if (!session) return reply.code(302).header('location', '/users/sign_in?redirect_to=/-/users/terms').send();
    return html(reply, 200, termsPage((await applicationSettings(ctx.db)).terms, session.csrf_token));
  });

  app.post('/-/users/terms/accept', { config }, async (req, reply) => {
    const session = await postingSession(req);
    if (!session) return reply.code(302).header('location', '/users/sign_in?redirect_to=/-/users/terms').send();
    await acceptTerms(serviceContext(req), session.user_id);
    return reply.code(302).header('location', '/users/sign_in').send();
  });

  app.post('/users/sign_out', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    // Without the page's CSRF token another site could sign the user out.
    if (await postingSession(req)) await endSession(ctx, req.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.code(302).header('location', '/users/sign_in').send();
  });
};
