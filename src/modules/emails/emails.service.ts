// Writes of users' further email addresses (the platform's Emails::CreateService and DestroyService,
// 14.x). An address is kept trimmed and in lower case, must read as an address and be no one's yet
// (primary or further); unless an administrator skips it, a mail asks its owner to confirm it.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import { type FieldErrors, invalidFields } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { EmailRow, UserRow } from '../../db/schema.ts';
import { BLANK, INVALID, TAKEN, addError, tooLong } from '../../domain/validation.ts';
import { type JobDeclaration, type RunningJob, enqueue } from '../../jobs/queue.ts';
import { sendMail } from '../../mail/mailer.ts';
import { recheckUserSignatures } from '../gpg-keys/gpg-keys.service.ts';
import { emailInUse } from './emails.finder.ts';

// The platform's address check: something, one @, a domain with a dot-free or dotted name, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL = 255;

const Payload = Type.Object({ emailId: Type.Integer() }, { additionalProperties: false });
export const SEND_EMAIL_CONFIRMATION: JobDeclaration<typeof Payload> = { name: 'emails.send_confirmation', payload: Payload, maxAttempts: 10 };

async function validate(ctx: ServiceContext, email: string): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  if (email === '') addError(errors, 'email', BLANK);
  else if (!EMAIL.test(email)) addError(errors, 'email', INVALID);
  if (email.length > MAX_EMAIL) addError(errors, 'email', tooLong(MAX_EMAIL));
  if (email !== '' && (await emailInUse(ctx.db, email))) addError(errors, 'email', TAKEN);
  return errors;
}

/** POST /user/emails, POST /users/:id/emails: the new address, or the model's 400. */
export async function addEmail(ctx: ServiceContext, user: UserRow, input: { email: string; confirmed: boolean }): Promise<EmailRow> {
  const email = input.email.trim().toLowerCase();
  try {
    return await withTransaction(ctx, async (tx) => {
      const errors = await validate(tx, email);
      if (Object.keys(errors).length > 0) throw invalidFields(errors);
      const at = ctx.now().toISOString();
      const row = await tx.db
        .insertInto('emails')
        .values({ user_id: user.id, email, confirmed_at: input.confirmed ? at : null, confirmation_token: null, confirmation_sent_at: null, created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      // A confirmed address may verify signatures its owner's keys made: they are checked again.
      if (input.confirmed) await recheckUserSignatures(tx.db, user.id);
      else await enqueue(tx.db, SEND_EMAIL_CONFIRMATION, { emailId: row.id });
      return row;
    });
  } catch (error) {
    // Two additions of one address racing: the loser hears what a later request would.
    if (isUniqueViolation(error)) throw invalidFields({ email: [TAKEN] });
    throw error;
  }
}

export async function deleteEmail(ctx: ServiceContext, email: EmailRow): Promise<void> {
  await ctx.db.deleteFrom('emails').where('id', '=', email.id).execute();
}

/** The background job's work: mails the confirmation link, its token made only now. */
export async function sendEmailConfirmation(ctx: ServiceContext, emailId: number, job: RunningJob): Promise<void> {
  const row = await ctx.db
    .selectFrom('emails')
    .innerJoin('users', 'users.id', 'emails.user_id')
    .select(['emails.email', 'users.name'])
    .where('emails.id', '=', emailId)
    .where('emails.confirmed_at', 'is', null)
    .executeTakeFirst();
  if (row) {
    const token = generateToken('', 20);
    const at = ctx.now().toISOString();
    await ctx.db.updateTable('emails').set({ confirmation_token: digest(token), confirmation_sent_at: at }).where('id', '=', emailId).execute();
    await sendMail(ctx.config, {
      to: row.email,
      subject: 'Confirmation instructions',
      text: `Hello, ${row.name}!\n\nYou can confirm your email through the link below:\n\n${ctx.config.externalUrl}/-/profile/emails/confirmation?confirmation_token=${token}\n`,
    });
  }
  await job.complete(ctx.db);
}

/**
 * The confirmation link's page: confirms the further address whose mail carried this token, once;
 * null when the token names none. Signatures its owner's keys made are judged again.
 */
export async function confirmEmail(ctx: ServiceContext, token: string): Promise<EmailRow | null> {
  if (token === '') return null;
  return withTransaction(ctx, async ({ db }) => {
    const at = ctx.now().toISOString();
    const row = await db
      .updateTable('emails')
      .set({ confirmed_at: at, confirmation_token: null, updated_at: at })
      .where('confirmation_token', '=', digest(token))
      .where('confirmed_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (row) await recheckUserSignatures(db, row.user_id);
    return row ?? null;
  });
}
