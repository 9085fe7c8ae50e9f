// Namespaces (spec Part 2 §2.3, §4.3): the entity and the parameters of every namespaces route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { DateOnly, Entity, Literals, Nullable } from '../../core/schema.ts';

const basic = {
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  kind: Literals(['user', 'group']),
  full_path: Type.String(),
  parent_id: Nullable(Type.Integer()),
  avatar_url: Nullable(Type.String()),
  web_url: Type.String(),
};

/** NamespaceBasic: the namespace a project shows. */
export const NamespaceBasicEntity = Entity(basic);
export type NamespaceBasic = Static<typeof NamespaceBasicEntity>;

export const NamespaceEntity = Entity({
  ...basic,
  // Groups the caller administers.
  members_count_with_descendants: Type.Optional(Type.Integer()),
  billable_members_count: Type.Integer(),
  // Namespaces the caller administers (owners and administrators).
  plan: Type.Optional(Type.String()),
  trial_ends_on: Type.Optional(Nullable(DateOnly)),
  trial: Type.Optional(Type.Boolean()),
});
export type Namespace = Static<typeof NamespaceEntity>;

export const NamespaceExistenceEntity = Entity({ exists: Type.Boolean(), suggests: Type.Array(Type.String()) });

export const ListNamespacesQuery = Params({
  ...PageParams,
  search: Type.Optional(Type.String()),
  owned_only: Type.Optional(Bool()),
});
export type ListNamespacesQuery = Static<typeof ListNamespacesQuery>;

export const NamespaceIdParams = Params({ id: IdOrPath });

export const ExistsQuery = Params({ parent_id: Type.Optional(Type.Integer()) });
export type ExistsQuery = Static<typeof ExistsQuery>;
