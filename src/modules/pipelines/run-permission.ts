// Whether a user may run a pipeline on a ref of a project when no request of theirs is at hand (a
// trigger's owner, a job's user, a schedule's owner), as the platform's Chain::Validate::Abilities
// decides: CI's create_pipeline, and on a protected branch the right to push or merge to it (on a
// protected tag, to create it).
import type { Kysely } from 'kysely';
import { projectAbilities } from '../../core/access/abilities.ts';
import { projectAccessLevel } from '../../core/access/authorizations.ts';
import { actingUser } from '../../core/auth/actor.ts';
import type { DB, ProjectRow, UserRow } from '../../db/schema.ts';
import { canCreateTag, canMergeToBranch, canPushToBranch, isProtectedBranch, isProtectedTag, pusherOf } from '../../domain/ref-protection.ts';
import { loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { ciAbilities } from './ci-abilities.ts';

/** 'invisible': the user cannot see the project; a message: why the pipeline may not run; null: it may. */
export async function pipelineRefusal(db: Kysely<DB>, user: UserRow, project: ProjectRow, ref: string): Promise<'invisible' | string | null> {
  const actor = actingUser(user);
  const access = await projectAccessLevel(db, user.id, project.id);
  const can = projectAbilities(actor, project, access);
  if (!can.has('read_project') || user.state !== 'active') return 'invisible';
  const [settings] = (await loadProjectSettings(db, [project])).values();
  if (!ciAbilities(actor, { row: project, access, can }, settings).has('create_pipeline')) return 'Insufficient permissions to create a new pipeline';
  const protections = await loadRefProtections(db, project.id);
  const pusher = pusherOf({ access, can }, actor);
  const branchRefused = isProtectedBranch(protections, ref) && !canPushToBranch(protections, ref, pusher) && !canMergeToBranch(protections, ref, pusher);
  const tagRefused = isProtectedTag(protections, ref) && !canCreateTag(protections, ref, pusher);
  return branchRefused || tagRefused ? `Insufficient permissions for protected ref '${ref}'` : null;
}
