// Protected branches and tags (the platform's protected_branches and protected_tags APIs, 14.x
// with the paid tiers' fields): entities and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';
import { PROTECTED_REF_ACCESS_LEVELS } from '../../domain/ref-protection.ts';

/**
 * One access level of a rule; user_id and group_id name a user or group rule, which Quarry does not
 * offer. A push level naming a deploy key carries its deploy_key_id (as later releases show it).
 */
export const AccessLevelEntity = Entity({
  access_level: Type.Integer(),
  access_level_description: Type.String(),
  user_id: Nullable(Type.Integer()),
  group_id: Nullable(Type.Integer()),
  deploy_key_id: Type.Optional(Type.Integer()),
});
export type AccessLevel = Static<typeof AccessLevelEntity>;

export const ProtectedBranchEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  push_access_levels: Type.Array(AccessLevelEntity),
  merge_access_levels: Type.Array(AccessLevelEntity),
  allow_force_push: Type.Boolean(),
  unprotect_access_levels: Type.Array(AccessLevelEntity),
  code_owner_approval_required: Type.Boolean(),
});
export type ProtectedBranch = Static<typeof ProtectedBranchEntity>;

export const ProtectedTagEntity = Entity({
  name: Type.String(),
  create_access_levels: Type.Array(AccessLevelEntity),
});
export type ProtectedTag = Static<typeof ProtectedTagEntity>;

export const ProjectParams = Params({ id: IdOrPath });
/** `name` is a branch or tag name or a wildcard pattern, URL-encoded (`release%2F*`). */
export const RuleParams = Params({ id: IdOrPath, name: Type.String() });

export const ListProtectedBranchesQuery = Params({ ...PageParams, search: Type.Optional(Type.String()) });
export type ListProtectedBranchesQuery = Static<typeof ListProtectedBranchesQuery>;
export const ListProtectedTagsQuery = Params({ ...PageParams });

/** An access level out of PROTECTED_REF_ACCESS_LEVELS ("does not have a valid value" otherwise). */
const AccessLevelParam = Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...PROTECTED_REF_ACCESS_LEVELS] }));

/** An entry of allowed_to_push: a role, or a deploy key enabled on the project (user and group rules are not offered). */
const AllowedToPushEntry = Params({
  access_level: AccessLevelParam,
  deploy_key_id: Type.Optional(Type.Integer()),
  user_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
});

export const ProtectBranchBody = Params({
  name: Type.String(),
  push_access_level: AccessLevelParam,
  allowed_to_push: Type.Optional(Type.Array(AllowedToPushEntry, { maxItems: 100 })),
  merge_access_level: AccessLevelParam,
  allow_force_push: Type.Optional(Bool({ default: false })),
  unprotect_access_level: AccessLevelParam,
  code_owner_approval_required: Type.Optional(Bool({ default: false })),
});
export type ProtectBranchBody = Static<typeof ProtectBranchBody>;

export const ProtectTagBody = Params({
  name: Type.String(),
  create_access_level: AccessLevelParam,
});
export type ProtectTagBody = Static<typeof ProtectTagBody>;
