// Invitations to groups and projects by email (spec Part 2 §2.7 and §4.7): the invitation entity,
// the answer of an invitation request and of a change, and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS } from '../../core/access/levels.ts';
import { PageParams } from '../../core/pagination.ts';
import { CommaList, IdOrPath, Params } from '../../core/params.ts';
import { DateOnly, Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { ExpiresAt } from '../members/members.schemas.ts';

export const InvitationEntity = Entity({
  id: Type.Integer(),
  invite_email: Type.String(),
  created_at: Timestamp,
  access_level: Type.Integer(),
  expires_at: Nullable(DateOnly),
  /** The user who accepted it; invitations are listed while nobody has, so always null there. */
  user_name: Nullable(Type.String()),
  created_by_name: Nullable(Type.String()),
});
export type Invitation = Static<typeof InvitationEntity>;

/** PUT …/invitations/:email answers with what it changes (spec Part 2 §4.7). */
export const InvitationChangeEntity = Entity({
  expires_at: Nullable(DateOnly),
  access_level: Type.Integer(),
});

/** POST …/invitations: success, or a failure per address (or one message for the whole request). */
export const InviteResultEntity = Type.Union([
  Entity({ status: Type.Literal('success') }),
  Entity({ status: Type.Literal('error'), message: Type.Union([Type.String(), Type.Record(Type.String(), Type.String())]) }),
]);
export type InviteResult = Static<typeof InviteResultEntity>;

/** The platform's Gitlab::Access.all_values: minimal access is not offered to invitations. */
const INVITATION_LEVELS = [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ACCESS.OWNER];

export const SourceParams = Params({ id: IdOrPath });
export const InvitationParams = Params({ id: IdOrPath, email: Type.String() });

export const InviteBody = Params({
  // One address or several separated by commas (or an array); a blank value is answered in the
  // body ("Email cannot be blank"), a malformed address refuses the whole request.
  email: Type.Union([Type.String({ pattern: '^$' }), CommaList(Type.String({ format: 'email' }))]),
  access_level: Type.Integer({ enum: INVITATION_LEVELS }),
  expires_at: ExpiresAt,
  invite_source: Type.Optional(Type.String()),
  areas_of_focus: Type.Optional(CommaList(Type.String())),
});
export type InviteBody = Static<typeof InviteBody>;

export const ListInvitationsQuery = Params({
  ...PageParams,
  /** The exact address; empty lists every invitation. */
  query: Type.Optional(Type.String()),
});

export const UpdateInvitationBody = Params({
  access_level: Type.Optional(Type.Integer({ enum: INVITATION_LEVELS })),
  expires_at: ExpiresAt,
});
export type UpdateInvitationBody = Static<typeof UpdateInvitationBody>;
