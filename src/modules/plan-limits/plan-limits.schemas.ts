// Plan limits (spec Part 2 §2.9, §4.9; the platform's plan limits API, 13.10+): the entity, byte
// sizes of the largest package file per package type, and the parameters.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { OneOf, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';

/** The plans of the enterprise-shaped API; the community edition has only `default`. */
export const PLAN_NAMES = ['default', 'free', 'bronze', 'silver', 'premium', 'gold', 'ultimate', 'ultimate_trial', 'premium_trial'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export const PLAN_LIMIT_FIELDS = [
  'conan_max_file_size',
  'generic_packages_max_file_size',
  'helm_max_file_size',
  'maven_max_file_size',
  'npm_max_file_size',
  'nuget_max_file_size',
  'pypi_max_file_size',
  'terraform_module_max_file_size',
] as const;
export type PlanLimitField = (typeof PLAN_LIMIT_FIELDS)[number];

/** One schema per limit field. */
const limitFields = <T extends TSchema>(schema: () => T) => Object.fromEntries(PLAN_LIMIT_FIELDS.map((field) => [field, schema()])) as Record<PlanLimitField, T>;

export const PlanLimitsEntity = Entity(limitFields(() => Type.Integer({ minimum: 0 })));
export type PlanLimits = Static<typeof PlanLimitsEntity>;

export const ShowPlanLimitsQuery = Params({ plan_name: Type.Optional(OneOf(PLAN_NAMES, { default: 'default' })) });

/** Byte sizes; a value the model would refuse (below 0) is its validation error, not a parameter's. */
export const UpdatePlanLimitsBody = Params({
  plan_name: OneOf(PLAN_NAMES),
  ...limitFields(() => Type.Optional(Type.Integer())),
});
export type UpdatePlanLimitsBody = Static<typeof UpdatePlanLimitsBody>;
