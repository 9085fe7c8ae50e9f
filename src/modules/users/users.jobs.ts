// The background job that mails a new user's confirmation link (see confirmation-mail.ts).
import { defineJobKind } from '../../jobs/queue.ts';
import { SEND_CONFIRMATION, sendConfirmationMail } from './confirmation-mail.ts';

export const sendConfirmationJob = defineJobKind({ ...SEND_CONFIRMATION, run: (ctx, payload, job) => sendConfirmationMail(ctx, payload.userId, job) });
