// Users (spec Part 2 §2.2, §4.2): the entity ladder and the parameters of every users route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, OneOf, Params } from '../../core/params.ts';
import { DateOnly, Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';

// ---- Entities: basic → single → self → administrator ------------------------------------------

/** The fields of UserBasic, which members and project owners show too. */
export const userBasicFields = {
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  state: Type.String(),
  avatar_url: Nullable(Type.String()),
  web_url: Type.String(),
};

const customAttributes = { custom_attributes: Type.Optional(Type.Array(CustomAttributeEntity)) };

/** The public list form. */
export const UserBasicEntity = Entity({ ...userBasicFields, ...customAttributes });

const single = {
  ...userBasicFields,
  // Left out when the caller may not read the profile (private, blocked or unconfirmed).
  created_at: Type.Optional(Timestamp),
  bio: Type.String(),
  bot: Type.Boolean(),
  location: Type.String(),
  public_email: Nullable(Type.String()),
  skype: Type.String(),
  linkedin: Type.String(),
  twitter: Type.String(),
  website_url: Type.String(),
  organization: Type.String(),
  job_title: Type.String(),
  followers: Type.Optional(Type.Integer()),
  following: Type.Optional(Type.Integer()),
};

/** The single form, as others see a user. */
export const UserEntity = Entity({ ...single, ...customAttributes });

export const IdentityEntity = Entity({ provider: Type.String(), extern_uid: Type.String() });

const self = {
  ...single,
  created_at: Timestamp,
  followers: Type.Integer(),
  following: Type.Integer(),
  last_sign_in_at: Nullable(Timestamp),
  confirmed_at: Nullable(Timestamp),
  last_activity_on: Nullable(DateOnly),
  email: Type.String(),
  theme_id: Type.Integer(),
  color_scheme_id: Type.Integer(),
  projects_limit: Type.Integer(),
  current_sign_in_at: Nullable(Timestamp),
  identities: Type.Array(IdentityEntity),
  can_create_group: Type.Boolean(),
  can_create_project: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  external: Type.Boolean(),
  private_profile: Type.Boolean(),
  commit_email: Nullable(Type.String()),
};

/** What a user sees of themself (GET /user). */
export const UserSelfEntity = Entity({ ...self, ...customAttributes });

/** The administrator form. */
export const UserAdminEntity = Entity({
  ...self,
  is_admin: Type.Boolean(),
  note: Nullable(Type.String()),
  current_sign_in_ip: Nullable(Type.String()),
  last_sign_in_ip: Nullable(Type.String()),
  sign_in_count: Type.Integer(),
  ...customAttributes,
});

export type UserBasic = Static<typeof UserBasicEntity>;
export type User = Static<typeof UserEntity>;
export type UserSelf = Static<typeof UserSelfEntity>;
export type UserAdmin = Static<typeof UserAdminEntity>;

// ---- Parameters ---------------------------------------------------------------------------------

/** `/users/:id` accepts digits only; anything else is an unknown route. */
export const USER_ID_ROUTE = ':id(^\\d+$)';
export const UserIdParams = Params({ id: Type.Integer() });

export const ORDER_COLUMNS = ['id', 'name', 'username', 'created_at', 'updated_at'] as const;

export const ListUsersQuery = Params(
  {
    ...PageParams,
    search: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    extern_uid: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String()),
    active: Type.Optional(Bool()),
    blocked: Type.Optional(Bool()),
    external: Type.Optional(Bool()),
    exclude_internal: Type.Optional(Bool()),
    exclude_external: Type.Optional(Bool()),
    admins: Type.Optional(Bool()),
    without_projects: Type.Optional(Bool()),
    two_factor: Type.Optional(OneOf(['enabled', 'disabled'])),
    created_after: Type.Optional(Type.String({ format: 'date-time' })),
    created_before: Type.Optional(Type.String({ format: 'date-time' })),
    order_by: Type.Optional(OneOf(ORDER_COLUMNS)),
    sort: Type.Optional(OneOf(['asc', 'desc'])),
    custom_attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
    with_custom_attributes: Type.Optional(Bool({ default: false })),
  },
  { 'x-all-or-none-of': [['extern_uid', 'provider']] },
);
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const ShowUserQuery = Params({ with_custom_attributes: Type.Optional(Bool({ default: false })) });

/** Fields that create and update share. */
const profile = {
  password: Type.Optional(Type.String()),
  admin: Type.Optional(Bool()),
  external: Type.Optional(Bool()),
  can_create_group: Type.Optional(Bool()),
  private_profile: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  projects_limit: Type.Optional(Type.Integer()),
  bio: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  organization: Type.Optional(Type.String()),
  job_title: Type.Optional(Type.String()),
  linkedin: Type.Optional(Type.String()),
  skype: Type.Optional(Type.String()),
  twitter: Type.Optional(Type.String()),
  website_url: Type.Optional(Type.String()),
  note: Type.Optional(Type.String()),
  color_scheme_id: Type.Optional(Type.Integer()),
  theme_id: Type.Optional(Type.Integer()),
  extern_uid: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  view_diffs_file_by_file: Type.Optional(Bool()),
  avatar: Type.Optional(Type.Unknown()),
};

export const CreateUserBody = Params(
  {
    email: Type.String(),
    name: Type.String(),
    username: Type.String(),
    ...profile,
    reset_password: Type.Optional(Bool()),
    force_random_password: Type.Optional(Bool()),
    skip_confirmation: Type.Optional(Bool()),
  },
  { 'x-at-least-one-of': [['password', 'reset_password', 'force_random_password']], 'x-all-or-none-of': [['extern_uid', 'provider']] },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Params(
  {
    email: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    ...profile,
    skip_reconfirmation: Type.Optional(Bool()),
    public_email: Type.Optional(Type.String()),
    commit_email: Type.Optional(Type.String()),
  },
  { 'x-all-or-none-of': [['extern_uid', 'provider']] },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const DeleteUserBody = Params({ hard_delete: Type.Optional(Bool()) });

export const IdentityParams = Params({ id: Type.Integer(), provider: Type.String() });
