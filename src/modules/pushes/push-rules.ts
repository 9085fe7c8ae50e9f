// What a push may change, ref by ref, by the platform's rules (domain/ref-protection.ts) for one
// pusher. The server works the rules out before receive-pack starts; the pre-receive hook applies
// them to the refs pushed, with the force-push test that needs the pushed objects. Kept free of
// the database, since the hook loads it for every push.
import { ZERO_OID, validRefName } from '../../git/args.ts';
import {
  type ChangeContext,
  type Pusher,
  type RefChangeKind,
  REFUSALS,
  type RefProtections,
  branchChangeRefusal,
  isProtectedBranch,
  tagChangeRefusal,
} from '../../domain/ref-protection.ts';
import type { RefUpdate } from '../../git/refs.ts';

/** The file of a push's directory (QUARRY_PUSH_DIR) that holds its rules, as JSON. */
export const RULES_FILE = 'rules.json';

export interface PushRules {
  protections: RefProtections;
  pusher: Pusher;
  defaultBranch: string | null;
  /** Set while the repository has no branch: the default branch protection then covers every branch. */
  emptyRepository: ChangeContext['emptyRepository'] | null;
  /** A refusal of every ref (the repository is read-only), or null. */
  refuseAll: string | null;
}

/** Whether an update rewrites history (its old commit is not an ancestor of the new one). */
export type ForceTest = (before: string, after: string) => Promise<boolean>;

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

function kindOf(update: RefUpdate): RefChangeKind {
  if (update.before === ZERO_OID) return 'create';
  return update.after === ZERO_OID ? 'delete' : 'update';
}

/** Why the platform refuses this change of one ref, or null when it accepts it. */
export async function refusalOf(rules: PushRules, update: RefUpdate, isForce: ForceTest): Promise<string | null> {
  if (rules.refuseAll !== null) return rules.refuseAll;
  const { ref } = update;
  if (!validRefName(ref) || !ref.startsWith('refs/')) return `Invalid ref name: ${JSON.stringify(ref)}`;
  const kind = kindOf(update);
  if (ref.startsWith(BRANCH_PREFIX)) {
    const branch = ref.slice(BRANCH_PREFIX.length);
    // Only a protected branch cares, and the test needs git: leave it out elsewhere.
    const force = kind === 'update' && isProtectedBranch(rules.protections, branch) && (await isForce(update.before, update.after));
    const context: ChangeContext = { defaultBranch: rules.defaultBranch, viaWeb: false, ...(rules.emptyRepository ? { emptyRepository: rules.emptyRepository } : {}) };
    return branchChangeRefusal(rules.protections, { branch, kind, force }, rules.pusher, context);
  }
  if (ref.startsWith(TAG_PREFIX)) return tagChangeRefusal(rules.protections, { tag: ref.slice(TAG_PREFIX.length), kind }, rules.pusher, { viaWeb: false });
  return rules.pusher.canPushCode ? null : REFUSALS.pushCode;
}

/** The first refusal among a push's refs: the platform checks them in order and one refusal stops the push. */
export async function firstRefusal(rules: PushRules, updates: readonly RefUpdate[], isForce: ForceTest): Promise<string | null> {
  for (const update of updates) {
    const refusal = await refusalOf(rules, update, isForce);
    if (refusal !== null) return refusal;
  }
  return null;
}
