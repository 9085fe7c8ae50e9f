// The mails that tell a sign-up awaiting approval what an administrator decided, sent by background
// jobs enqueued with the decision. An approval names the user, who still exists when the job runs;
// a rejection deletes the account, so its job carries the name and address the mail goes to.
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../core/context.ts';
import type { JobDeclaration, RunningJob } from '../../jobs/queue.ts';
import { sendMail } from '../../mail/mailer.ts';

const ApprovedPayload = Type.Object({ userId: Type.Integer() }, { additionalProperties: false });
const RejectedPayload = Type.Object({ name: Type.String(), email: Type.String() }, { additionalProperties: false });

export const SEND_APPROVAL: JobDeclaration<typeof ApprovedPayload> = { name: 'users.send_approval', payload: ApprovedPayload, maxAttempts: 10 };
export const SEND_REJECTION: JobDeclaration<typeof RejectedPayload> = { name: 'users.send_rejection', payload: RejectedPayload, maxAttempts: 10 };

export async function sendApprovalMail(ctx: ServiceContext, userId: number, job: RunningJob): Promise<void> {
  const user = await ctx.db.selectFrom('users').select(['name', 'username', 'email']).where('id', '=', userId).executeTakeFirst();
  // Deleted before the mail went out: nothing to send.
  if (user) {
    await sendMail(ctx.config, {
      to: user.email,
      subject: 'Welcome to Quarry!',
      text: `Hi ${user.name}!\n\nYour account has been approved by an administrator. You can now sign in as ${user.username}:\n\n${ctx.config.externalUrl}/users/sign_in\n`,
    });
  }
  await job.complete(ctx.db);
}

export async function sendRejectionMail(ctx: ServiceContext, payload: { name: string; email: string }, job: RunningJob): Promise<void> {
  await sendMail(ctx.config, {
    to: payload.email,
    subject: 'Quarry account request rejected',
    text: `Hi ${payload.name},\n\nYour request to join ${ctx.config.externalUrl} has been rejected.\n`,
  });
  await job.complete(ctx.db);
}
