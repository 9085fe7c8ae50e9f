// The mail that confirms a new user's email, sent by a background job enqueued with the user (as
// the platform's Devise confirmable does for every account created unconfirmed). Its token is made
// when it is sent, so that no secret waits in the job's row; a retried sending voids the earlier link.
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../core/context.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import type { JobDeclaration, RunningJob } from '../../jobs/queue.ts';
import { sendMail } from '../../mail/mailer.ts';

const Payload = Type.Object({ userId: Type.Integer() }, { additionalProperties: false });

export const SEND_CONFIRMATION: JobDeclaration<typeof Payload> = { name: 'users.send_confirmation', payload: Payload, maxAttempts: 10 };

export const confirmationLink = (externalUrl: string, token: string) => `${externalUrl}/users/confirmation?confirmation_token=${token}`;

export async function sendConfirmationMail(ctx: ServiceContext, userId: number, job: RunningJob): Promise<void> {
  const user = await ctx.db.selectFrom('users').select(['name', 'email']).where('id', '=', userId).where('confirmed_at', 'is', null).executeTakeFirst();
  // Confirmed (or gone) before the mail went out: nothing to send.
  if (user) {
    const token = generateToken('', 20);
    await ctx.db.updateTable('users').set({ confirmation_token: digest(token) }).where('id', '=', userId).execute();
    await sendMail(ctx.config, {
      to: user.email,
      subject: 'Confirmation instructions',
      text: `Welcome, ${user.name}!\n\nYou can confirm your email through the link below:\n\n${confirmationLink(ctx.config.externalUrl, token)}\n`,
    });
  }
  await job.complete(ctx.db);
}
