// The link an invitation's mail carries, GET /-/invites/:token. Signed in as the owner of the
// invited address, confirmed, it accepts the invitation at once (as the platform does when the
// signed-in user matches the invitation); signed out, it leads to the sign-up form (when sign-up is
// open and nobody has the address yet) or to the sign-in form, which comes back here.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SESSION_COOKIE } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import { escapeHtml, html, page } from '../../core/html-page.ts';
import { fieldsOf } from '../../core/params.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { roleName } from '../members/members.service.ts';
import { findSession } from '../sessions/sessions.service.ts';
import { findUserByEmail, findUserById } from '../users/users.finder.ts';
import { findInvitationByToken } from './invitations.finder.ts';
import { acceptInvitation } from './invitations.service.ts';

const config = { auth: 'none', json: false } as const;

export const invitePageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/-/invites/:token', { config }, async (req, reply) => {
    const ctx = serviceContext(req);
    const token = String(fieldsOf(req.params).token ?? '');
    const invitation = await findInvitationByToken(ctx.db, token);
    if (!invitation) return html(reply, 404, page('Invitation not found', '<p>This invitation was accepted or withdrawn already, or its link is not complete.</p>'));
    const session = await findSession(ctx, req.cookies[SESSION_COOKIE]);
    const user = session && (await findUserById(ctx.db, session.user_id));
    if (!user) {
      const signUp = (await applicationSettings(ctx.db)).signup_enabled && !(await findUserByEmail(ctx.db, invitation.invite_email));
      const next = signUp ? `/users/sign_up?invite_token=${encodeURIComponent(token)}` : `/users/sign_in?redirect_to=${encodeURIComponent(`/-/invites/${token}`)}`;
      return reply.code(302).header('location', next).send();
    }
    const outcome = await acceptInvitation(ctx, invitation, user);
    if (outcome.accepted) {
      const what = `${outcome.source.type === 'Project' ? 'project' : 'group'} ${outcome.source.name}`;
      return html(reply, 200, page('Invitation accepted', `<p>You have been granted ${escapeHtml(roleName(invitation.access_level))} access to ${escapeHtml(what)}.</p>`));
    }
    const why =
      outcome.reason === 'another_address'
        ? `This invitation was sent to ${escapeHtml(invitation.invite_email)}: sign in as the user with that email address to accept it.`
        : outcome.reason === 'unconfirmed'
          ? 'Confirm your email address first (follow the link of the confirmation mail), then this link again.'
          : 'The invitation could not be accepted.';
    return html(reply, outcome.reason === 'refused' ? 409 : 403, page('Invitation', `<p>${why}</p>`));
  });
};
