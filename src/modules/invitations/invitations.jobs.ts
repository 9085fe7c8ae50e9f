// The background job that mails an invitation (see invitation-mail.ts).
import { defineJobKind } from '../../jobs/queue.ts';
import { SEND_INVITATION, sendInvitationMail } from './invitation-mail.ts';

export const sendInvitationJob = defineJobKind({ ...SEND_INVITATION, run: (ctx, payload, job) => sendInvitationMail(ctx, payload.memberId, job) });
