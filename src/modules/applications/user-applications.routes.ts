// A signed-in user's own OAuth applications, the platform's /oauth/applications pages:
//   GET    /oauth/applications       the user's applications, a form to register one, and the
//                                    applications the user gave access to
//   POST   /oauth/applications       registers one (name, redirect URIs, scopes, confidential),
//                                    owned by the user, and shows its secret this once
//   GET    /oauth/applications/:id   one of the user's applications
//   DELETE /oauth/applications/:id   (or a form's POST with `_method=delete`) deletes it, revoking
//                                    what it was given
// Anyone not signed in goes to the sign-in page first. The `user_oauth_applications` setting
// decides whether users may have their own: off, the list keeps only the access the user gave and
// every other page sends the user to their profile, as the platform's
// verify_user_oauth_applications_enabled does. Administrators manage instance-wide applications
// through the Applications API, which does not reach these.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import type { FieldErrors } from '../../core/errors.ts';
import { escapeHtml, html, page } from '../../core/html-page.ts';
import type { OauthApplicationRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { findPostingSession, findSession } from '../sessions/sessions.service.ts';
import { authorizedApplications, findUserApplication, userApplications } from './applications.finder.ts';
import { createApplication, deleteApplication } from './applications.service.ts';
import { APPLICATION_SCOPES, applicationErrors } from './applications.validation.ts';

const config = { auth: 'none', json: false } as const;
const LIST = '/oauth/applications';
/** Where the platform sends a user when users may not have applications. */
const PROFILE = '/-/profile';

type Session = NonNullable<Awaited<ReturnType<typeof findSession>>>;

const redirect = (reply: FastifyReply, location: string) => reply.code(302).header('location', location).send();
const notFoundPage = (reply: FastifyReply) => html(reply, 404, page('Not found', '<p>Page not found.</p>'));
const expiredPage = (reply: FastifyReply) => html(reply, 422, page('Applications', '<p>The form has expired. Go back and try again.</p>'));

/** The form's fields: `doorkeeper_application[…]` as the platform's form names them, or bare. */
interface FormInput {
  name: string;
  redirect_uri: string;
  scopes: string;
  confidential: boolean;
}

function formInput(params: Record<string, unknown>): FormInput {
  const nested = params.doorkeeper_application;
  const p = nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : params;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const scopes = Array.isArray(p.scopes) ? p.scopes.filter((s): s is string => typeof s === 'string').join(' ') : text(p.scopes);
  // A checkbox: absent, or its hidden "0" before it, is unchecked (the platform's default is checked).
  const confidential = p.confidential === undefined ? true : ['1', 'true', 'on'].includes(text(Array.isArray(p.confidential) ? p.confidential.at(-1) : p.confidential));
  return { name: text(p.name), redirect_uri: text(p.redirect_uri), scopes, confidential };
}

function applicationForm(csrf: string, input: FormInput, errors: FieldErrors): string {
  const label: Record<string, string> = { name: 'Name', redirect_uri: 'Redirect URI', scopes: 'Scopes' };
  const messages = Object.entries(errors).flatMap(([field, list]) => list.map((m) => `${label[field] ?? field} ${m}`));
  const chosen = new Set(input.scopes.split(/\s+/).filter(Boolean));
  const scopes = [...APPLICATION_SCOPES]
    .map((s) => `<label><input type="checkbox" name="doorkeeper_application[scopes][]" value="${escapeHtml(s)}"${chosen.has(s) ? ' checked' : ''}> <code>${escapeHtml(s)}</code></label>`)
    .join('');
  return `<h2>Add new application</h2>
${messages.length > 0 ? `<ul class="error">${messages.map((m) => `<li>${escapeHtml(m)}</li>`).join('')}</ul>` : ''}
<form method="post" action="${LIST}">
<input type="hidden" name="authenticity_token" value="${escapeHtml(csrf)}">
<label for="name">Name</label><input id="name" name="doorkeeper_application[name]" value="${escapeHtml(input.name)}" required>
<label for="redirect_uri">Redirect URI (one per line)</label><textarea id="redirect_uri" name="doorkeeper_application[redirect_uri]" required>${escapeHtml(input.redirect_uri)}</textarea>
<input type="hidden" name="doorkeeper_application[confidential]" value="0">
<label><input type="checkbox" name="doorkeeper_application[confidential]" value="1"${input.confidential ? ' checked' : ''}> Confidential</label>
<fieldset><legend>Scopes</legend>${scopes}</fieldset>
<button type="submit">Save application</button></form>`;
}

function deleteForm(csrf: string, app: OauthApplicationRow): string {
  return `<form method="post" action="${LIST}/${app.id}"><input type="hidden" name="authenticity_token" value="${escapeHtml(csrf)}"><input type="hidden" name="_method" value="delete"><button type="submit">Destroy</button></form>`;
}

async function listPage(req: FastifyRequest, session: Session, allowed: boolean, form?: { input: FormInput; errors: FieldErrors }): Promise<string> {
  const { db } = req.server.deps;
  const authorized = await authorizedApplications(db, session.user_id);
  const authorizedList = `<h2>Authorized applications (${authorized.length})</h2>${
    authorized.length > 0 ? `<ul>${authorized.map((a) => `<li>${escapeHtml(a.name)}</li>`).join('')}</ul>` : '<p>You don\'t have any authorized applications.</p>'
  }`;
  if (!allowed) return page('Applications', authorizedList, session.csrf_token);
  const own = await userApplications(db, session.user_id);
  const ownList = `<h2>Your applications (${own.length})</h2>${
    own.length > 0
      ? `<ul>${own.map((a) => `<li><a href="${LIST}/${a.id}">${escapeHtml(a.name)}</a> <code>${escapeHtml(a.redirect_uri)}</code>${deleteForm(session.csrf_token, a)}</li>`).join('')}</ul>`
      : '<p>You don\'t have any applications.</p>'
  }`;
  const blank = { name: '', redirect_uri: '', scopes: '', confidential: true };
  return page('Applications', `${applicationForm(session.csrf_token, form?.input ?? blank, form?.errors ?? {})}${ownList}${authorizedList}`, session.csrf_token);
}

function showPage(app: OauthApplicationRow, csrf: string, secret?: string): string {
  return page(
    `Application: ${app.name}`,
    `<dl>
<dt>Application ID</dt><dd><code id="application_id">${escapeHtml(app.uid)}</code></dd>
<dt>Secret</dt><dd>${secret ? `<code id="secret">${escapeHtml(secret)}</code><p>Copy it now: it is not shown again.</p>` : 'Shown only once, when the application was registered.'}</dd>
<dt>Callback URL</dt><dd>${app.redirect_uri.split('\n').map((u) => `<code>${escapeHtml(u)}</code>`).join('<br>')}</dd>
<dt>Confidential</dt><dd>${app.confidential ? 'Yes' : 'No'}</dd>
<dt>Scopes</dt><dd>${app.scopes.split(' ').filter(Boolean).map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</dd>
</dl>${deleteForm(csrf, app)}<p><a href="${LIST}">Back to your applications</a></p>`,
    csrf,
  );
}

export const userApplicationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;
  const usersMayRegister = async () => (await applicationSettings(db)).user_oauth_applications;
  const signIn = (req: FastifyRequest, reply: FastifyReply) => redirect(reply, `/users/sign_in?redirect_to=${encodeURIComponent(req.url)}`);
  const applicationId = (req: FastifyRequest) => {
    const id = String((req.params as { id?: unknown }).id ?? '');
    return /^\d{1,15}$/.test(id) ? Number(id) : null;
  };

  /**
   * The steps every page but the list takes, in the platform's order: signed in, then the setting,
   * then (for a form's post) the session's CSRF token. Null when the reply is already answered.
   */
  async function gate(req: FastifyRequest, reply: FastifyReply, posting: boolean): Promise<Session | null> {
    const ctx = serviceContext(req);
    const session = await findSession(ctx, req.cookies[SESSION_COOKIE]);
    if (!session) return (await signIn(req, reply), null);
    if (!(await usersMayRegister())) return (await redirect(reply, PROFILE), null);
    if (!posting) return session;
    const posted = await findPostingSession(ctx, req.cookies[SESSION_COOKIE], req.rawParams.authenticity_token ?? req.headers['x-csrf-token']);
    if (!posted) return (await expiredPage(reply), null);
    return posted;
  }

  app.get(LIST, { config }, async (req, reply) => {
    const session = await findSession(serviceContext(req), req.cookies[SESSION_COOKIE]);
    if (!session) return signIn(req, reply);
    return html(reply, 200, await listPage(req, session, await usersMayRegister()));
  });

  app.post(LIST, { config }, async (req, reply) => {
    const session = await gate(req, reply, true);
    if (!session) return reply;
    const input = formInput(req.rawParams);
    // Refused: the list again with the messages and what was typed (200, as the platform renders it).
    const errors = applicationErrors(input);
    if (Object.keys(errors).length > 0) return html(reply, 200, await listPage(req, session, true, { input, errors }));
    const { row, secret } = await createApplication(serviceContext(req), input, session.user_id);
    // The platform redirects to the application's page; the secret is kept only as a digest here,
    // so that page is the answer itself, the one time the secret is shown.
    return html(reply, 201, showPage(row, session.csrf_token, secret));
  });

  app.get(`${LIST}/:id`, { config }, async (req, reply) => {
    const session = await gate(req, reply, false);
    if (!session) return reply;
    const id = applicationId(req);
    const row = id === null ? null : await findUserApplication(db, session.user_id, id);
    if (!row) return notFoundPage(reply);
    return html(reply, 200, showPage(row, session.csrf_token));
  });

  async function destroy(req: FastifyRequest, reply: FastifyReply) {
    const session = await gate(req, reply, true);
    if (!session) return reply;
    const id = applicationId(req);
    const row = id === null ? null : await findUserApplication(db, session.user_id, id);
    if (!row) return notFoundPage(reply);
    await deleteApplication(serviceContext(req), row.id, session.user_id);
    return redirect(reply, LIST);
  }

  app.post(`${LIST}/:id`, { config }, async (req, reply) => (req.rawParams._method === 'delete' ? destroy(req, reply) : notFoundPage(reply)));
  app.delete(`${LIST}/:id`, { config }, destroy);
};
