// Writes of users' statuses (the platform's Users::SetStatusService, 14.x): an emoji, a message or an
// availability sets the status (the emoji defaulting to speech_balloon when a message is given);
// none of them clears it.
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { type FieldErrors, invalidFields } from '../../core/errors.ts';
import type { DB, UserStatusRow } from '../../db/schema.ts';
import { addError, tooLong } from '../../domain/validation.ts';
import { AVAILABILITIES, CLEAR_STATUS_AFTER, type SetStatusBody } from './user-status.schemas.ts';

export const DEFAULT_EMOJI = 'speech_balloon';
const MAX_MESSAGE = 100;
/** The form of an emoji's name (gemoji's): lower-case letters, digits, `_`, `+` and `-`. */
const EMOJI_NAME = /^[a-z0-9_+-]{1,100}$/;

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
const isAvailability = (value: string | undefined): value is (typeof AVAILABILITIES)[number] => (AVAILABILITIES as readonly string[]).includes(value ?? '');

function validate(emoji: string, message: string | null): FieldErrors {
  const errors: FieldErrors = {};
  if (!EMOJI_NAME.test(emoji)) addError(errors, 'emoji', 'does not exist');
  if (message !== null && [...message].length > MAX_MESSAGE) addError(errors, 'message', tooLong(MAX_MESSAGE));
  return errors;
}

/** PUT /user/status: the status now shown, or undefined when it was cleared. */
export async function setUserStatus(ctx: ServiceContext, userId: number, input: SetStatusBody): Promise<UserStatusRow | undefined> {
  return withTransaction(ctx, async ({ db }) => {
    if (!present(input.emoji) && !present(input.message) && !isAvailability(input.availability)) {
      await db.deleteFrom('user_statuses').where('user_id', '=', userId).execute();
      return undefined;
    }
    const now = ctx.now();
    const message = input.message ?? null;
    const emoji = present(input.emoji) ? input.emoji : DEFAULT_EMOJI;
    const errors = validate(emoji, message);
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    const values = {
      emoji,
      message,
      availability: isAvailability(input.availability) ? input.availability : 'not_set',
      clear_status_at: input.clear_status_after ? new Date(now.getTime() + CLEAR_STATUS_AFTER[input.clear_status_after] * 1000).toISOString() : null,
      updated_at: now.toISOString(),
    };
    return db
      .insertInto('user_statuses')
      .values({ user_id: userId, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** The periodic clean-up: removes the statuses whose time has passed; returns how many. */
export async function removeExpiredStatuses(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db.deleteFrom('user_statuses').where('clear_status_at', '<=', now.toISOString()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
