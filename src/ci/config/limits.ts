import type { ConfigLimits } from './types.ts';

/** The platform's defaults (Gitlab::Config::Loader::Yaml, External::Context, Extendable::Entry). */
export const DEFAULT_LIMITS: Readonly<ConfigLimits> = Object.freeze({
  maxYamlSizeBytes: 1024 * 1024,
  maxYamlDepth: 100,
  // The yaml package weighs each alias by the aliases it contains: 10,000 lets real files use an
  // anchor hundreds of times while a "billion laughs" file stops after a few levels.
  maxAliasCount: 10_000,
  maxIncludes: 100,
  maxExtendsDepth: 10,
  maxReferenceDepth: 10,
  maxJobs: 2000,
  maxNeeds: 50,
});

export function resolveLimits(partial: Partial<ConfigLimits> | undefined): ConfigLimits {
  return { ...DEFAULT_LIMITS, ...partial };
}
