// Protecting and unprotecting branches and tags, with the platform's answers: a branch rule that
// exists is a 409, a model refusal a 422 listing full messages, a rule the caller could not
// unprotect a 403 (whether it is being created or removed, as the paid tiers rule).
import { ACCESS } from '../../core/access/levels.ts';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { apiError, badRequest, conflict, forbidden, messageList } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { type Pusher, canUnprotect } from '../../domain/ref-protection.ts';
import { BLANK, TAKEN, fullMessage } from '../../domain/validation.ts';
import {
  type BranchAccessLevelRow,
  type ProtectedBranchRow,
  type ProtectedTagRow,
  branchAccessLevels,
  deployKeysEnabledOn,
  findProtectedBranch,
  findProtectedTag,
} from './protected-refs.finder.ts';
import type { ProtectBranchBody, ProtectTagBody } from './protected-refs.schemas.ts';

/** The platform's find_by! miss. */
export const ruleNotFound = () => apiError(404, '404 Not found');


const BLANK_NAME = fullMessage('name', BLANK);
const isBlank = (name: string) => name.trim() === '';


// ---- Branches -------------------------------------------------------------------------------------

const branchExists = (name: string) => conflict(`Protected branch '${name}' already exists`);

/**
 * POST /projects/:id/protected_branches: each access level defaults to Maintainers. `pusher` holds
 * the rights the rule is checked against: the actor's on the project, or the system's when a first
 * push protects the default branch.
 */
export async function protectBranch(
  ctx: ServiceContext,
  projectId: number,
  pusher: Pusher,
  body: ProtectBranchBody,
): Promise<{ row: ProtectedBranchRow; levels: BranchAccessLevelRow[] }> {
  const { db } = ctx;
  if (await findProtectedBranch(db, projectId, body.name)) throw branchExists(body.name);
  const unprotect = body.unprotect_access_level ?? ACCESS.MAINTAINER;
  if (!canUnprotect([unprotect], pusher)) throw forbidden();
  if (isBlank(body.name)) throw messageList([BLANK_NAME]);
  const push = await pushLevels(ctx, projectId, body);
  const at = ctx.now().toISOString();
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const row = await trx
        .insertInto('protected_branches')
        .values({
          project_id: projectId,
          name: body.name,
          allow_force_push: body.allow_force_push ?? false,
          code_owner_approval_required: body.code_owner_approval_required ?? false,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const levels = [
        ...push.map((level) => ({ protected_branch_id: row.id, action: 'push', ...level })),
        { protected_branch_id: row.id, action: 'merge', access_level: body.merge_access_level ?? ACCESS.MAINTAINER, deploy_key_id: null },
        { protected_branch_id: row.id, action: 'unprotect', access_level: unprotect, deploy_key_id: null },
      ];
      await trx.insertInto('protected_branch_access_levels').values(levels).execute();
      return { row, levels };
    });
  } catch (error) {
    // Another request protected the same name in between.
    if (isUniqueViolation(error)) throw branchExists(body.name);
    throw error;
  }
}

type PushLevel = { access_level: number; deploy_key_id: number | null };

/**
 * The push levels of a new rule, as the paid tiers read them: push_access_level, then each entry of
 * allowed_to_push (a role, or a deploy key enabled on the project, once each); Maintainers when
 * neither is given.
 */
async function pushLevels(ctx: ServiceContext, projectId: number, body: ProtectBranchBody): Promise<PushLevel[]> {
  const allowed = body.allowed_to_push ?? [];
  if (allowed.some((entry) => entry.user_id !== undefined || entry.group_id !== undefined)) {
    throw badRequest('allowed_to_push takes access levels and deploy keys; user and group rules are not offered');
  }
  const role = body.push_access_level ?? (allowed.length === 0 ? ACCESS.MAINTAINER : undefined);
  const levels: PushLevel[] = role === undefined ? [] : [{ access_level: role, deploy_key_id: null }];
  const keyIds = allowed.flatMap((entry) => (entry.deploy_key_id === undefined ? [] : [entry.deploy_key_id]));
  const enabled = await deployKeysEnabledOn(ctx.db, projectId, keyIds);
  const errors = new Set<string>();
  for (const entry of allowed) {
    const level = { access_level: entry.access_level ?? ACCESS.MAINTAINER, deploy_key_id: entry.deploy_key_id ?? null };
    const taken = levels.some((l) => (level.deploy_key_id === null ? l.deploy_key_id === null && l.access_level === level.access_level : l.deploy_key_id === level.deploy_key_id));
    if (taken) errors.add(fullMessage(level.deploy_key_id === null ? 'push_access_levels_access_level' : 'push_access_levels_deploy_key_id', TAKEN));
    else if (level.deploy_key_id !== null && !enabled.has(level.deploy_key_id)) errors.add(fullMessage('push_access_levels_deploy_key', 'is not enabled for this project'));
    levels.push(level);
  }
  if (errors.size > 0) throw messageList([...errors]);
  return levels;
}

/** DELETE /projects/:id/protected_branches/:name: the rule only, never the branch. */
export async function unprotectBranch(ctx: ServiceContext, projectId: number, pusher: Pusher, name: string, ifUnmodifiedSince: string | string[] | undefined): Promise<void> {
  const { db } = ctx;
  const row = await findProtectedBranch(db, projectId, name);
  if (!row) throw ruleNotFound();
  checkUnmodifiedSince(ifUnmodifiedSince, Date.parse(row.updated_at));
  const unprotect = ((await branchAccessLevels(db, projectId, [row.id])).get(row.id) ?? []).filter((l) => l.action === 'unprotect');
  if (!canUnprotect(unprotect.map((l) => l.access_level), pusher)) throw forbidden();
  await db.deleteFrom('protected_branches').where('id', '=', row.id).execute();
}

// ---- Tags -------------------------------------------------------------------------------------------

/** POST /projects/:id/protected_tags: the create level defaults to Maintainers. */
export async function protectTag(ctx: ServiceContext, projectId: number, body: ProtectTagBody): Promise<{ row: ProtectedTagRow; levels: number[] }> {
  const { db } = ctx;
  const taken = [fullMessage('name', TAKEN)];
  if (isBlank(body.name)) throw messageList([BLANK_NAME]);
  if (await findProtectedTag(db, projectId, body.name)) throw messageList(taken);
  const at = ctx.now().toISOString();
  const level = body.create_access_level ?? ACCESS.MAINTAINER;
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const row = await trx
        .insertInto('protected_tags')
        .values({ project_id: projectId, name: body.name, created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.insertInto('protected_tag_create_access_levels').values({ protected_tag_id: row.id, access_level: level }).execute();
      return { row, levels: [level] };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw messageList(taken);
    throw error;
  }
}

export async function unprotectTag(ctx: ServiceContext, projectId: number, name: string, ifUnmodifiedSince: string | string[] | undefined): Promise<void> {
  const { db } = ctx;
  const row = await findProtectedTag(db, projectId, name);
  if (!row) throw ruleNotFound();
  checkUnmodifiedSince(ifUnmodifiedSince, Date.parse(row.updated_at));
  await db.deleteFrom('protected_tags').where('id', '=', row.id).execute();
}
