// The invitation's mail, sent by a background job enqueued with the invitation. The accept link's
// token is made here, not with the invitation, so that no secret waits in the job's row: each
// sending stores a fresh token's digest first, and a retried sending makes the earlier link void.
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../core/context.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import type { JobDeclaration, RunningJob } from '../../jobs/queue.ts';
import { sendMail } from '../../mail/mailer.ts';
import { roleName } from '../members/members.service.ts';

const Payload = Type.Object({ memberId: Type.Integer() }, { additionalProperties: false });

export const SEND_INVITATION: JobDeclaration<typeof Payload> = { name: 'invitations.send', payload: Payload, maxAttempts: 10 };

export const acceptLink = (externalUrl: string, token: string) => `${externalUrl}/-/invites/${token}`;

/** What the mail names: the source as people read it ("Group / Project project") and who invites. */
async function invitationTerms(ctx: ServiceContext, memberId: number) {
  const row = await ctx.db
    .selectFrom('members as m')
    .leftJoin('users as c', 'c.id', 'm.created_by_id')
    .leftJoin('projects as p', (join) => join.onRef('p.id', '=', 'm.source_id').on('m.source_type', '=', 'Project'))
    .leftJoin('namespaces as g', (join) => join.onRef('g.id', '=', 'm.source_id').on('m.source_type', '=', 'Namespace'))
    .select(['m.invite_email', 'm.access_level', 'm.source_type', 'c.name as inviter', 'p.name_with_namespace as project_name', 'g.full_name as group_name'])
    .where('m.id', '=', memberId)
    .where('m.user_id', 'is', null)
    .executeTakeFirst();
  if (!row?.invite_email) return null;
  const what = row.source_type === 'Project' ? `${row.project_name} project` : `${row.group_name} group`;
  return { to: row.invite_email, what, inviter: row.inviter ?? 'Someone', role: roleName(row.access_level) };
}

export async function sendInvitationMail(ctx: ServiceContext, memberId: number, job: RunningJob): Promise<void> {
  // Accepted or withdrawn before its mail went out: nothing to send.
  const terms = await invitationTerms(ctx, memberId);
  if (terms) {
    const token = generateToken('', 20);
    await ctx.db.updateTable('members').set({ invite_token: digest(token) }).where('id', '=', memberId).where('user_id', 'is', null).execute();
    await sendMail(ctx.config, {
      to: terms.to,
      subject: `Invitation to join the ${terms.what}`,
      text: `You are invited!\n\n${terms.inviter} invited you to join the ${terms.what} as ${terms.role}.\n\nJoin now: ${acceptLink(ctx.config.externalUrl, token)}\n`,
    });
  }
  await job.complete(ctx.db);
}
