// Names derived from refs and job names: CI_COMMIT_REF_SLUG (`Gitlab::Utils.slugify`) and the job's
// group name (`CommitStatus#group_name`), which names parallel jobs' group and their test suite;
// an environment's slug and tier.
import { createHash } from 'node:crypto';
import { DEPLOYMENT_TIERS } from './config/index.ts';

/** Lowercase, every character outside [a-z0-9] becomes `-`, at most 63 characters, no `-` at either end. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]/gu, '-') // per code point, as Ruby's gsub
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

// Trailing " 1/3", ": [ruby, 2.7]" and the like, repeated; `\x08` is what `\b` means in a Ruby class.
const GROUP_SUFFIX = /([\x08\s:]+((\[.*\])|(\d+[\s:/\\]+\d+)))+\s*$/;

/** `rspec 1/3` → `rspec`, `test: [ruby, 2.7]` → `test`. */
export function jobGroupName(name: string): string {
  return name.replace(GROUP_SUFFIX, '').trim();
}

/** The test suite a job's JUnit reports go into: the group name, but a matrix job keeps its full name. */
export function testSuiteName(name: string, isMatrixJob: boolean): string {
  return isMatrixJob ? name : jobGroupName(name);
}

/**
 * An environment's slug (`Gitlab::Slug::Environment`): lowercase letters, digits and `-`, starting
 * with a letter, no repeated `-`, at most 24 characters; a name it changes gets the first 17
 * characters and a suffix from the name's SHA-256, so that slugs of different names stay apart.
 */
export function environmentSlug(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/gu, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-{2,}/g, '-');
  if (slug.length <= 24 && slug === name) return slug.replace(/-$/, '');
  const short = slug.slice(0, 17);
  const suffix = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`).toString(36).slice(-6);
  return `${short.endsWith('-') ? short : `${short}-`}${suffix}`;
}

export type EnvironmentTier = (typeof DEPLOYMENT_TIERS)[number];

/** The tier of a new environment: the job's `deployment_tier`, else guessed from its name (14.x `guess_tier`). */
export function environmentTier(name: string, deploymentTier: string | null): EnvironmentTier {
  const declared = DEPLOYMENT_TIERS.find((tier) => tier === deploymentTier);
  if (declared) return declared;
  if (/dev|review|trunk/i.test(name)) return 'development';
  if (/test|qc/i.test(name)) return 'testing';
  if (/st(a|)g|mod(e|)l|pre|demo/i.test(name)) return 'staging';
  if (/pr(o|)d|live/i.test(name)) return 'production';
  return 'other';
}
