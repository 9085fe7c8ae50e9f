// GET /-/profile/emails/confirmation?confirmation_token=…: the page the confirmation mail of a
// further address links to, as the platform's email confirmations page.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { serviceContext } from '../../core/context.ts';
import { html, page } from '../../core/html-page.ts';
import { confirmEmail } from './emails.service.ts';

const config = { auth: 'none', json: false } as const;

export const emailConfirmationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/-/profile/emails/confirmation', { config }, async (req, reply) => {
    const token = req.rawParams.confirmation_token;
    const email = await confirmEmail(serviceContext(req), typeof token === 'string' ? token : '');
    if (!email) return html(reply, 404, page('Confirmation', '<p>Confirmation token is invalid.</p>'));
    return html(reply, 200, page('Confirmation', '<p>Your email address has been successfully confirmed.</p>'));
  });
};
