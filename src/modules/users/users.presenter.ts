// Pure row → entity functions for users. Lists pass in what they preloaded (identities, attributes).
import type { UserRow } from '../../db/schema.ts';
import { userWebUrl } from '../../domain/urls.ts';
import type { CustomAttribute } from '../custom-attributes/custom-attributes.schemas.ts';
import type { UserAdmin, UserBasic, User, UserSelf } from './users.schemas.ts';

/** Internal accounts the platform runs itself; they are not people and cannot sign in. */
export const INTERNAL_USER_TYPES = ['ghost', 'alert_bot', 'support_bot', 'migration_bot', 'security_bot', 'automation_bot'] as const;
const BOT_TYPES = new Set<string>([...INTERNAL_USER_TYPES, 'project_bot', 'group_bot']);

export interface UserView {
  baseUrl: string;
  identities?: ReadonlyMap<number, { provider: string; extern_uid: string }[]>;
  /** Present only when custom attributes were asked for. */
  customAttributes?: ReadonlyMap<number, CustomAttribute[]>;
}

/** A profile is readable unless it is private, blocked or unconfirmed; the user and admins always read it. */
export function canReadProfile(user: UserRow, viewer: { id: number; isAdmin: boolean } | null): boolean {
  if (viewer && (viewer.isAdmin || viewer.id === user.id)) return true;
  return !user.private_profile && user.state !== 'blocked' && user.state !== 'ldap_blocked' && user.confirmed_at !== null;
}

function withAttributes<T extends object>(entity: T, user: UserRow, view: UserView): T {
  if (!view.customAttributes) return entity;
  return { ...entity, custom_attributes: view.customAttributes.get(user.id) ?? [] };
}

/** The UserBasic fields, which members and project owners show too. */
export function userBasicFields(user: Pick<UserRow, 'id' | 'username' | 'name' | 'state'>, baseUrl: string): UserBasic {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    avatar_url: null,
    web_url: userWebUrl(baseUrl, user.username),
  };
}

export function presentUserBasic(user: UserRow, view: UserView): UserBasic {
  return withAttributes(userBasicFields(user, view.baseUrl), user, view);
}

function singleFields(user: UserRow, view: UserView, readable: boolean): User {
  return {
    ...userBasicFields(user, view.baseUrl),
    ...(readable ? { created_at: user.created_at } : {}),
    bio: user.bio,
    bot: BOT_TYPES.has(user.user_type),
    location: user.location,
    public_email: user.public_email,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
    website_url: user.website_url,
    organization: user.organization,
    job_title: user.job_title,
    ...(readable ? { followers: 0, following: 0 } : {}),
  };
}

export function presentUser(user: UserRow, view: UserView, viewer: { id: number; isAdmin: boolean } | null): User {
  return withAttributes(singleFields(user, view, canReadProfile(user, viewer)), user, view);
}

function selfFields(user: UserRow, view: UserView): UserSelf {
  return {
    ...(singleFields(user, view, true) as UserSelf),
    created_at: user.created_at,
    followers: 0,
    following: 0,
    last_sign_in_at: user.last_sign_in_at,
    confirmed_at: user.confirmed_at,
    last_activity_on: user.last_activity_on,
    email: user.email,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: user.current_sign_in_at,
    identities: view.identities?.get(user.id) ?? [],
    can_create_group: user.can_create_group,
    can_create_project: user.projects_limit > 0,
    two_factor_enabled: user.two_factor_enabled,
    external: user.external,
    private_profile: user.private_profile,
    commit_email: user.commit_email ?? user.email,
  };
}

export function presentUserSelf(user: UserRow, view: UserView): UserSelf {
  return withAttributes(selfFields(user, view), user, view);
}

export function presentUserAdmin(user: UserRow, view: UserView): UserAdmin {
  return withAttributes(
    {
      ...selfFields(user, view),
      is_admin: user.admin,
      note: user.note,
      current_sign_in_ip: user.current_sign_in_ip,
      last_sign_in_ip: user.last_sign_in_ip,
      sign_in_count: user.sign_in_count,
    },
    user,
    view,
  );
}
