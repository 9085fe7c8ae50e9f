// A user's status (the platform's UserStatus entity, 14.x) and the parameters of its routes.
import { type Static, Type } from '@sinclair/typebox';
import { OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';

export const AVAILABILITIES = ['not_set', 'busy'] as const;

/** The choices of clear_status_after, and how long each lasts. */
export const CLEAR_STATUS_AFTER = {
  '30_minutes': 30 * 60,
  '3_hours': 3 * 3600,
  '8_hours': 8 * 3600,
  '1_day': 86400,
  '3_days': 3 * 86400,
  '7_days': 7 * 86400,
  '30_days': 30 * 86400,
} as const;
export type ClearStatusAfter = keyof typeof CLEAR_STATUS_AFTER;

/** A user without a status answers every field null, and an empty message_html. */
export const UserStatusEntity = Entity({
  emoji: Nullable(Type.String()),
  message: Nullable(Type.String()),
  availability: Nullable(Type.String()),
  message_html: Type.String(),
  clear_status_at: Nullable(Timestamp),
});
export type UserStatus = Static<typeof UserStatusEntity>;

/** GET /users/:user_id/status takes an id or a username. */
export const UserRefParams = Params({ user_id: Type.String() });

/** PUT /user/status: what is not given is cleared. */
export const SetStatusBody = Params({
  emoji: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  // Any text: a value that is not an availability is ignored, as the platform does.
  availability: Type.Optional(Type.String()),
  clear_status_after: Type.Optional(OneOf(Object.keys(CLEAR_STATUS_AFTER) as ClearStatusAfter[])),
});
export type SetStatusBody = Static<typeof SetStatusBody>;
