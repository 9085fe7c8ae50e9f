// CI/CD variables of projects, groups and the instance (14.x lib/api/ci/variables.rb,
// group_variables.rb, admin/ci/variables.rb; entity Ci::Variable): the entity shows
// `environment_scope` where the owner's variables have one (projects, and groups, whose scope is
// always `*` in the free tier), never for the instance's.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';
import { VARIABLE_TYPES } from '../../ci/variable-rules.ts';

const instanceFields = {
  variable_type: Type.String(),
  key: Type.String(),
  value: Type.String(),
  protected: Type.Boolean(),
  masked: Type.Boolean(),
};
export const InstanceVariableEntity = Entity(instanceFields);
export const ScopedVariableEntity = Entity({ ...instanceFields, environment_scope: Type.String() });

export const OwnerParams = Params({ id: IdOrPath });
export const OwnerKeyParams = Params({ id: IdOrPath, key: Type.String() });
export const KeyParams = Params({ key: Type.String() });
export const ListQuery = Params({ ...PageParams });

const Filter = Type.Optional(Params({ environment_scope: Type.Optional(Type.String()) }));
export const FilterQuery = Params({ filter: Filter });

const common = {
  protected: Type.Optional(Bool()),
  masked: Type.Optional(Bool()),
  variable_type: Type.Optional(OneOf(VARIABLE_TYPES)),
};
export const CreateVariableBody = Params({ key: Type.String(), value: Type.String(), ...common });
export const UpdateVariableBody = Params({ key: Type.Optional(Type.String()), value: Type.Optional(Type.String()), ...common });
export const CreateProjectVariableBody = Params({ key: Type.String(), value: Type.String(), ...common, environment_scope: Type.Optional(Type.String()) });
export const UpdateProjectVariableBody = Params({
  key: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  ...common,
  environment_scope: Type.Optional(Type.String()),
  filter: Filter,
});
