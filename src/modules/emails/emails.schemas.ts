// A user's further email addresses (the platform's Email entity, 14.x) and their routes' parameters.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';

export const EmailEntity = Entity({ id: Type.Integer(), email: Type.String(), confirmed_at: Nullable(Timestamp) });
export type Email = Static<typeof EmailEntity>;

export const ListEmailsQuery = Params({ ...PageParams });
export const EmailIdParams = Params({ email_id: Type.Integer() });
export const UserIdParams = Params({ id: Type.Integer() });
export const UserEmailParams = Params({ id: Type.Integer(), email_id: Type.Integer() });

export const CreateEmailBody = Params({ email: Type.String() });
/** Administrators may add an address already confirmed. */
export const AdminCreateEmailBody = Params({ email: Type.String(), skip_confirmation: Type.Optional(Bool()) });
