// The default branch on the first push to an empty repository: HEAD names the branch the project
// asked for (main unless told otherwise), which the push may not bring; HEAD then names the first
// branch pushed, the project names HEAD's branch, and that branch gets the protection its
// namespace's default_branch_protection asks for (Projects::ProtectDefaultBranchService).
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB, ProjectRow } from '../../db/schema.ts';
import { ZERO_OID, validBranchName } from '../../git/args.ts';
import { type RefUpdate, resolveRef } from '../../git/refs.ts';
import { readDefaultBranch, setDefaultBranch } from '../../git/repository.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { defaultBranchProtection as namespaceBranchProtection } from '../../domain/settings/namespace-settings.ts';
import { ADMIN_ACCESS_LEVEL, type Pusher, defaultBranchRule, isProtectedBranch } from '../../domain/ref-protection.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { protectBranch } from '../protected-refs/protected-refs.service.ts';

const BRANCH_PREFIX = 'refs/heads/';

/** The default_branch_protection of a project's namespace: a group's own setting, else the instance's. */
export async function defaultBranchProtection(db: Kysely<DB>, namespaceId: number): Promise<number> {
  const namespace = await db.selectFrom('namespaces').select(['id', 'type']).where('id', '=', namespaceId).executeTakeFirstOrThrow();
  return namespaceBranchProtection(db, namespace);
}

/**
 * Makes HEAD name an existing branch after a push created branches: when the branch it names does
 * not exist, the first branch created that does. Returns HEAD's branch (null when none exists).
 * HEAD is written under a push lease: while a storage move holds the repository this is refused,
 * and the job recording the push is retried.
 */
export async function settleHead(ctx: ServiceContext, project: Pick<ProjectRow, 'id' | 'repository_storage'>, gitDir: string, updates: readonly RefUpdate[]): Promise<string | null> {
  const head = await readDefaultBranch(gitDir);
  if (head !== null && (await resolveRef(gitDir, `${BRANCH_PREFIX}${head}`)) !== null) return head;
  for (const { ref, before } of updates) {
    const branch = ref.slice(BRANCH_PREFIX.length);
    if (!ref.startsWith(BRANCH_PREFIX) || before !== ZERO_OID || !validBranchName(branch)) continue;
    if ((await resolveRef(gitDir, ref)) === null) continue;
    await withRepositoryWrite(ctx, { kind: 'project', id: project.id, storage: project.repository_storage }, () => setDefaultBranch(gitDir, branch));
    return branch;
  }
  return null;
}

/** The platform creates the rule with the project's creator, skipping every authorization check. */
const SYSTEM: Pusher = { accessLevel: ADMIN_ACCESS_LEVEL, isAdmin: true, canPushCode: true };

/** Protects the project's new default branch as its namespace asks, unless a rule already covers it. */
export async function protectDefaultBranch(ctx: ServiceContext, project: Pick<ProjectRow, 'id' | 'namespace_id'>, branch: string): Promise<void> {
  const rule = defaultBranchRule(await defaultBranchProtection(ctx.db, project.namespace_id));
  if (rule === null || isProtectedBranch(await loadRefProtections(ctx.db, project.id), branch)) return;
  try {
    await protectBranch(ctx, project.id, SYSTEM, { name: branch, push_access_level: rule.pushAccessLevel, merge_access_level: rule.mergeAccessLevel });
  } catch (error) {
    // Another push protected it in between.
    if (!(error instanceof DomainError && error.status === 409)) throw error;
  }
}
