// The background job that mails the link confirming a further address (see emails.service.ts).
import { defineJobKind } from '../../jobs/queue.ts';
import { SEND_EMAIL_CONFIRMATION, sendEmailConfirmation } from './emails.service.ts';

export const sendEmailConfirmationJob = defineJobKind({ ...SEND_EMAIL_CONFIRMATION, run: (ctx, payload, job) => sendEmailConfirmation(ctx, payload.emailId, job) });
