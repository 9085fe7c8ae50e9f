// The background jobs that mail an administrator's decision on a sign-up (see approval-mail.ts).
import { defineJobKind } from '../../jobs/queue.ts';
import { SEND_APPROVAL, SEND_REJECTION, sendApprovalMail, sendRejectionMail } from './approval-mail.ts';

export const sendApprovalJob = defineJobKind({ ...SEND_APPROVAL, run: (ctx, payload, job) => sendApprovalMail(ctx, payload.userId, job) });
export const sendRejectionJob = defineJobKind({ ...SEND_REJECTION, run: (ctx, payload, job) => sendRejectionMail(ctx, payload, job) });
