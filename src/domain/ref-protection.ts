// What protected branches and tags allow, as the platform decides it on a push or a web/API change
// of a ref (14.x: Gitlab::UserAccess, Checks::BranchCheck and TagCheck, ProtectedRefAccess,
// RefMatcher): pure functions over a project's rules, which the protected-refs finder
// (loadRefProtections) reads once. No database here: the pre-receive hook loads this for every
// push and must start fast.
//
// Every rule matching a ref applies, exact or wildcard alike: one access level of any of them that
// the pusher passes is enough (the platform gives exact names no precedence).
import type { LoadedProject } from '../core/access/loaders.ts';
import { ACCESS } from '../core/access/levels.ts';

/** The level only instance administrators pass. */
export const ADMIN_ACCESS_LEVEL = 60;

/** Levels a rule may name: No one, Developers + Maintainers, Maintainers, Instance admins. */
export const PROTECTED_REF_ACCESS_LEVELS = [ACCESS.NO_ACCESS, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ADMIN_ACCESS_LEVEL] as const;

const DESCRIPTIONS: Record<number, string> = {
  [ACCESS.NO_ACCESS]: 'No one',
  [ACCESS.DEVELOPER]: 'Developers + Maintainers',
  [ACCESS.MAINTAINER]: 'Maintainers',
  // 14.x describes this level as null; later releases name it so.
  [ADMIN_ACCESS_LEVEL]: 'Instance admins',
};

export function accessLevelDescription(level: number): string {
  return DESCRIPTIONS[level] ?? String(level);
}

export interface BranchProtection {
  /** An exact branch name or a pattern with `*` wildcards. */
  name: string;
  pushAccessLevels: readonly number[];
  /** Deploy keys this rule lets push, whatever the role. */
  pushDeployKeyIds?: readonly number[];
  mergeAccessLevels: readonly number[];
  unprotectAccessLevels: readonly number[];
  allowForcePush: boolean;
  codeOwnerApprovalRequired: boolean;
}

export interface TagProtection {
  name: string;
  createAccessLevels: readonly number[];
}

export interface RefProtections {
  branches: readonly BranchProtection[];
  tags: readonly TagProtection[];
}

// ---- Names ---------------------------------------------------------------------------------------

/**
 * Whether a rule's name covers a ref: the same name, or a pattern whose `*` stand for any
 * characters, `/` included (`release/*` covers `release/1.0/hotfix`). Case-sensitive; a blank
 * rule name covers nothing.
 */
export function matchesProtectedName(pattern: string, refName: string): boolean {
  if (pattern.trim() === '') return false;
  if (pattern === refName) return true;
  return pattern.includes('*') && wildcardMatch(pattern, refName);
}

/** Glob matching with `*` only; backtracking to the last star alone keeps it polynomial (no regular expression to blow up). */
function wildcardMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

export function matchingBranchRules(protections: RefProtections, branch: string): BranchProtection[] {
  return protections.branches.filter((rule) => matchesProtectedName(rule.name, branch));
}

export function isProtectedBranch(protections: RefProtections, branch: string): boolean {
  return protections.branches.some((rule) => matchesProtectedName(rule.name, branch));
}

export function isProtectedTag(protections: RefProtections, tag: string): boolean {
  return protections.tags.some((rule) => matchesProtectedName(rule.name, tag));
}

/** A branch entity's developers_can_push / developers_can_merge: some matching rule allows exactly Developers. */
export function developersCan(protections: RefProtections, action: 'push' | 'merge', branch: string): boolean {
  return matchingBranchRules(protections, branch).some((rule) =>
    (action === 'push' ? rule.pushAccessLevels : rule.mergeAccessLevels).includes(ACCESS.DEVELOPER),
  );
}

// ---- Who may ----------------------------------------------------------------------------------

/** The person changing refs, as the rules see them. */
export interface Pusher {
  /** Effective access level on the project (0 without a membership). */
  accessLevel: number;
  isAdmin: boolean;
  /** The project's push_code ability: Developer or more, on a project that is not archived. */
  canPushCode: boolean;
  /** Set when a deploy key pushes: rules that name it let it push. */
  deployKeyId?: number;
}

export function pusherOf(project: Pick<LoadedProject, 'access' | 'can'>, actor: { isAdmin: boolean } | null): Pusher {
  return { accessLevel: project.access, isAdmin: actor?.isAdmin ?? false, canPushCode: project.can.has('push_code') };
}

/**
 * Whether the pusher passes one access level of a rule: nobody passes No one, administrators pass
 * any other, members pass a level up to their own while they may push code.
 */
export function passesAccessLevel(level: number, pusher: Pusher): boolean {
  if (level === ACCESS.NO_ACCESS) return false;
  if (pusher.isAdmin) return true;
  return pusher.canPushCode && pusher.accessLevel >= level;
}

const passesAny = (levels: readonly number[], pusher: Pusher) => levels.some((level) => passesAccessLevel(level, pusher));

/** Deleting a protected branch or tag is for maintainers (push_to_delete_protected_branch, maintainer_access). */
const isMaintainer = (pusher: Pusher) => pusher.isAdmin || pusher.accessLevel >= ACCESS.MAINTAINER;

/** An empty repository, and the default_branch_protection setting (of its namespace or the instance) that then applies. */
export interface EmptyRepository {
  defaultBranchProtection: number;
}

/**
 * Pushing commits to a branch: push_code, and on a protected branch a push level of a matching
 * rule. In an empty repository under full protection every branch counts as protected, and
 * maintainers and administrators may make the first push.
 */
export function canPushToBranch(protections: RefProtections, branch: string, pusher: Pusher, empty?: EmptyRepository): boolean {
  if (!pusher.canPushCode) return false;
  const rules = matchingBranchRules(protections, branch);
  const emptyProtected = empty !== undefined && emptyRepositoryProtected(empty.defaultBranchProtection);
  if (rules.length === 0 && !emptyProtected) return true;
  if (emptyProtected && isMaintainer(pusher)) return true;
  return rules.some((rule) => passesAny(rule.pushAccessLevels, pusher) || namesDeployKey(rule, pusher));
}

const namesDeployKey = (rule: BranchProtection, pusher: Pusher) =>
  pusher.deployKeyId !== undefined && (rule.pushDeployKeyIds ?? []).includes(pusher.deployKeyId);

/** Merging into a branch: push_code, and on a protected branch a merge level of a matching rule. */
export function canMergeToBranch(protections: RefProtections, branch: string, pusher: Pusher): boolean {
  const rules = matchingBranchRules(protections, branch);
  if (rules.length === 0) return pusher.canPushCode;
  return rules.some((rule) => passesAny(rule.mergeAccessLevels, pusher));
}

/** Rewriting a branch's history: a push to it, and on a protected branch a matching rule that allows force pushes. */
export function canForcePush(protections: RefProtections, branch: string, pusher: Pusher): boolean {
  const rules = matchingBranchRules(protections, branch);
  if (rules.length > 0 && !rules.some((rule) => rule.allowForcePush)) return false;
  return canPushToBranch(protections, branch, pusher);
}

export interface BranchDeletion {
  defaultBranch: string | null;
  /** Through the web or the API (which the platform counts as web), not a git push. */
  viaWeb: boolean;
}

/**
 * Deleting a branch: never the default branch; a protected one only through the web or API, by a
 * maintainer; any other with push_code.
 */
export function canDeleteBranch(protections: RefProtections, branch: string, pusher: Pusher, context: BranchDeletion): boolean {
  if (!pusher.canPushCode || branch === context.defaultBranch) return false;
  return !isProtectedBranch(protections, branch) || (context.viaWeb && isMaintainer(pusher));
}

/**
 * Removing a protection (or creating one, which the platform refuses to whoever could not remove
 * it): a rule without unprotect levels is anyone's to remove, otherwise one level must pass.
 */
export function canUnprotect(unprotectAccessLevels: readonly number[], pusher: Pusher): boolean {
  return unprotectAccessLevels.length === 0 || passesAny(unprotectAccessLevels, pusher);
}

/** Creating a tag: push_code, and for a protected name a create level of a matching rule. */
export function canCreateTag(protections: RefProtections, tag: string, pusher: Pusher): boolean {
  const rules = protections.tags.filter((rule) => matchesProtectedName(rule.name, tag));
  if (rules.length === 0) return pusher.canPushCode;
  return rules.some((rule) => passesAny(rule.createAccessLevels, pusher));
}

/** Moving an existing tag: push_code; a protected tag never moves. */
export function canUpdateTag(protections: RefProtections, tag: string, pusher: Pusher): boolean {
  return pusher.canPushCode && !isProtectedTag(protections, tag);
}

/** Deleting a tag: push_code; a protected one only through the web or API, by a maintainer who may create it. */
export function canDeleteTag(protections: RefProtections, tag: string, pusher: Pusher, context: { viaWeb: boolean }): boolean {
  if (!pusher.canPushCode) return false;
  if (!isProtectedTag(protections, tag)) return true;
  return context.viaWeb && isMaintainer(pusher) && canCreateTag(protections, tag, pusher);
}

// ---- Default branch protection ---------------------------------------------------------------------

/** The values of the default_branch_protection setting. */
export const DEFAULT_BRANCH_PROTECTION = { none: 0, developerCanPush: 1, full: 2, developerCanMerge: 3 } as const;

function emptyRepositoryProtected(setting: number): boolean {
  return setting === DEFAULT_BRANCH_PROTECTION.full || setting === DEFAULT_BRANCH_PROTECTION.developerCanMerge;
}

/** The rule the platform creates for the default branch after the first push to it, or null without protection. */
export function defaultBranchRule(setting: number): { pushAccessLevel: number; mergeAccessLevel: number } | null {
  if (setting === DEFAULT_BRANCH_PROTECTION.none) return null;
  return {
    pushAccessLevel: setting === DEFAULT_BRANCH_PROTECTION.developerCanPush ? ACCESS.DEVELOPER : ACCESS.MAINTAINER,
    mergeAccessLevel: setting === DEFAULT_BRANCH_PROTECTION.developerCanMerge ? ACCESS.DEVELOPER : ACCESS.MAINTAINER,
  };
}

// ---- Refusals, with the platform's messages -----------------------------------------------------------

export const REFUSALS = {
  pushCode: 'You are not allowed to push code to this project.',
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtectedBranch: 'You are not allowed to force push code to a protected branch on this project.',
  deleteProtectedBranch:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  deleteProtectedBranchNonWeb: 'You can only delete protected branches using the web interface.',
  pushProtectedBranch: 'You are not allowed to push code to protected branches on this project.',
  createProtectedBranch: 'You are not allowed to create protected branches on this project.',
  createProtectedBranchNonWeb: 'You can only create protected branches using the web interface and API.',
  updateProtectedTag: 'Protected tags cannot be updated.',
  deleteProtectedTag: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  deleteProtectedTagNonWeb: 'You can only delete protected tags using the web interface.',
  createProtectedTag: 'You are not allowed to create this tag as it is protected.',
} as const;

export type RefChangeKind = 'create' | 'update' | 'delete';

export interface BranchChange {
  branch: string;
  kind: RefChangeKind;
  /** An update that is not a fast-forward (never a creation or a deletion). */
  force: boolean;
}

export interface ChangeContext extends BranchDeletion {
  /** The repository has no commits yet; the refusal then names the project and its members page. */
  emptyRepository?: EmptyRepository & { projectFullPath: string; membersUrl: string };
}

/** Why the platform refuses a pusher's change to a branch, or null when it accepts it. */
export function branchChangeRefusal(protections: RefProtections, change: BranchChange, pusher: Pusher, context: ChangeContext): string | null {
  if (!pusher.canPushCode) return REFUSALS.pushCode;
  const { branch } = change;
  if (change.kind === 'delete' && branch === context.defaultBranch) return REFUSALS.deleteDefaultBranch;
  const empty = context.emptyRepository;
  const rules = matchingBranchRules(protections, branch);
  if (rules.length === 0 && !(empty && emptyRepositoryProtected(empty.defaultBranchProtection))) return null;
  if (change.force && !rules.some((rule) => rule.allowForcePush)) return REFUSALS.forcePushProtectedBranch;
  if (empty) {
    if (canPushToBranch(protections, branch, pusher, empty)) return null;
    return `\nA default branch (e.g. master) does not yet exist for ${empty.projectFullPath}\nAsk a project Owner or Maintainer to create a default branch:\n\n  ${empty.membersUrl}\n\n`;
  }
  if (change.kind === 'delete') {
    if (!isMaintainer(pusher)) return REFUSALS.deleteProtectedBranch;
    return context.viaWeb ? null : REFUSALS.deleteProtectedBranchNonWeb;
  }
  if (canPushToBranch(protections, branch, pusher)) return null;
  // Who may only merge creates a protected branch through the web or API alone (and, the platform
  // adds, from a commit already on a protected branch, which the caller checks in git).
  if (change.kind === 'create') {
    if (!canMergeToBranch(protections, branch, pusher)) return REFUSALS.createProtectedBranch;
    return context.viaWeb ? null : REFUSALS.createProtectedBranchNonWeb;
  }
  return REFUSALS.pushProtectedBranch;
}

export interface TagChange {
  tag: string;
  kind: RefChangeKind;
}

/** Why the platform refuses a pusher's change to a tag, or null when it accepts it. */
export function tagChangeRefusal(protections: RefProtections, change: TagChange, pusher: Pusher, context: { viaWeb: boolean }): string | null {
  if (!pusher.canPushCode) return REFUSALS.pushCode;
  if (!isProtectedTag(protections, change.tag)) return null;
  if (change.kind === 'update') return REFUSALS.updateProtectedTag;
  if (change.kind === 'delete') {
    if (!isMaintainer(pusher)) return REFUSALS.deleteProtectedTag;
    if (!context.viaWeb) return REFUSALS.deleteProtectedTagNonWeb;
  }
  return canCreateTag(protections, change.tag, pusher) ? null : REFUSALS.createProtectedTag;
}
