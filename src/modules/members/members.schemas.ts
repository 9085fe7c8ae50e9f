// Group and project members (the platform's members API, release 14.x): the member entity and the
// parameters of every members route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, Params } from '../../core/params.ts';
import { DateOnly, Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

/** The user's public form merged with the membership's own fields. */
export const MemberEntity = Entity({
  ...userBasicFields,
  access_level: Type.Integer(),
  created_at: Timestamp,
  expires_at: Nullable(DateOnly),
  /** 'active' for every membership: nothing here waits for a seat. */
  membership_state: Type.String(),
});
export type Member = Static<typeof MemberEntity>;

/** A bulk addition (user_id with commas) answers with a status instead of a member. */
export const BulkResultEntity = Entity({ status: Type.String(), message: Type.Optional(Type.String()) });

export const SourceParams = Params({ id: IdOrPath });
export const MemberParams = Params({ id: IdOrPath, user_id: Type.Integer() });

export const ListMembersQuery = Params({
  ...PageParams,
  query: Type.Optional(Type.String()),
  user_ids: Type.Optional(CommaList(Type.Integer())),
});
export type ListMembersQuery = Static<typeof ListMembersQuery>;

/**
 * A date, a date and time (only its date is kept), or an empty value that clears the expiry.
 * The platform declares it as a DateTime.
 */
export const ExpiresAt = Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.String({ pattern: '^$' }), Type.Null()]));

export const AddMemberBody = Params({
  access_level: Type.Integer(),
  // An id, or several separated by commas; anything else is looked up and not found.
  user_id: Type.String(),
  expires_at: ExpiresAt,
  invite_source: Type.Optional(Type.String()),
  areas_of_focus: Type.Optional(CommaList(Type.String())),
});
export type AddMemberBody = Static<typeof AddMemberBody>;

export const UpdateMemberBody = Params({
  access_level: Type.Integer(),
  expires_at: ExpiresAt,
});
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const RemoveMemberBody = Params({
  skip_subresources: Type.Optional(Bool({ default: false })),
  unassign_issuables: Type.Optional(Bool({ default: false })),
});
export type RemoveMemberBody = Static<typeof RemoveMemberBody>;
