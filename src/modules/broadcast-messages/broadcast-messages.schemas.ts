// Broadcast messages (the platform's broadcast_messages API, 14.x): the entity and the parameters.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';

export const BROADCAST_TYPES = ['banner', 'notification'] as const;
/** The roles a message may be shown to (Guest to Owner). */
export const TARGET_ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;

export const BroadcastMessageEntity = Entity({
  id: Type.Integer(),
  message: Type.String(),
  starts_at: Timestamp,
  ends_at: Timestamp,
  color: Nullable(Type.String()),
  font: Nullable(Type.String()),
  target_access_levels: Type.Array(Type.Integer()),
  target_path: Nullable(Type.String()),
  broadcast_type: Literals(BROADCAST_TYPES),
  dismissable: Nullable(Type.Boolean()),
  active: Type.Boolean(),
});
export type BroadcastMessage = Static<typeof BroadcastMessageEntity>;

export const MessageParams = Params({ id: Type.Integer() });
export const ListBroadcastMessagesQuery = Params({ ...PageParams });

const fields = {
  /** A date and time; parsed by the service (Grape's DateTime). */
  starts_at: Type.Optional(Type.String()),
  ends_at: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  font: Type.Optional(Type.String()),
  target_access_levels: Type.Optional(CommaList(Type.Unsafe<number>({ type: 'integer', enum: [...TARGET_ACCESS_LEVELS] }))),
  target_path: Type.Optional(Type.String()),
  broadcast_type: Type.Optional(OneOf(BROADCAST_TYPES)),
  dismissable: Type.Optional(Bool()),
};

export const CreateBroadcastMessageBody = Params({ message: Type.String(), ...fields });
export type CreateBroadcastMessageBody = Static<typeof CreateBroadcastMessageBody>;
export const UpdateBroadcastMessageBody = Params({ message: Type.Optional(Type.String()), ...fields });
export type UpdateBroadcastMessageBody = Static<typeof UpdateBroadcastMessageBody>;
