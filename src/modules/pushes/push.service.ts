// What follows a change of refs, whoever made it (a push over HTTP, or an API write): push events,
// the project's activity, its default branch and empty_repo, and the listeners of ref updates.
import type { Deps } from '../../core/deps.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { ZERO_OID } from '../../git/args.ts';
import { type RefUpdate, resolveRef } from '../../git/refs.ts';
import { existingProjectRepository, readDefaultBranch } from '../../git/repository.ts';
import { refreshEmptyRepo } from '../../domain/project-repository.ts';
import { recordEvent } from '../events/events.service.ts';
import { protectDefaultBranch, settleHead } from './default-branch.ts';
import { pushEventsData } from './push-data.ts';
import { notifyRefsUpdated } from './ref-listeners.ts';

const isBranch = (update: RefUpdate) => update.ref.startsWith('refs/heads/');

/**
 * Records what a change of refs means for the project; called once the refs have changed. A first
 * push to an empty repository settles the default branch (HEAD and the project's row) and protects
 * it; then the push events (with last_activity_at), empty_repo, and last the listeners
 * (ref-listeners.ts), whose failures reject this call once everything else is recorded.
 */
export async function recordRefUpdates(deps: Deps, project: ProjectRow, userId: number, updates: readonly RefUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  const { db } = deps;
  // The caller's row may predate the change, or another push that raced it.
  const row = (await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst()) ?? project;
  const gitDir = existingProjectRepository(deps.config.repositoryStorages, row);

  let defaultBranch = row.default_branch;
  const firstPush = (Boolean(row.empty_repo) || defaultBranch === null) && updates.some((u) => isBranch(u) && u.before === ZERO_OID);
  if (gitDir !== null && firstPush) defaultBranch = (await settleHead(gitDir, updates)) ?? defaultBranch;
  const data = gitDir !== null ? await pushEventsData(gitDir, updates, defaultBranch) : [];

  const now = deps.now();
  await db.transaction().execute(async (trx) => {
    if (defaultBranch !== row.default_branch) await trx.updateTable('projects').set({ default_branch: defaultBranch }).where('id', '=', row.id).execute();
    for (const pushData of data) await recordEvent(trx, { projectId: row.id, authorId: userId, action: 'pushed', pushData }, now);
  });
  if (updates.some((u) => isBranch(u) && (u.before === ZERO_OID || u.after === ZERO_OID))) await refreshEmptyRepo(deps, { ...row, default_branch: defaultBranch });
  if (firstPush && defaultBranch !== null && updates.some((u) => u.ref === `refs/heads/${defaultBranch}` && u.before === ZERO_OID)) {
    await protectDefaultBranch(deps, row, defaultBranch);
  }

  const updated = (await db.selectFrom('projects').selectAll().where('id', '=', row.id).executeTakeFirst()) ?? row;
  await notifyRefsUpdated(deps, { project: updated, userId, updates });
}

/**
 * A project created with a first commit (initialize_with_readme) gets what pushing that commit
 * would have brought: the push event, its default branch settled and protected, the listeners
 * told. Returns the project's row as it then is.
 */
export async function recordInitialCommit(deps: Deps, project: ProjectRow, userId: number): Promise<ProjectRow> {
  const dir = existingProjectRepository(deps.config.repositoryStorages, project);
  const branch = dir === null ? null : await readDefaultBranch(dir);
  const after = dir === null || branch === null ? null : await resolveRef(dir, `refs/heads/${branch}`);
  if (after === null) return project;
  await recordRefUpdates(deps, project, userId, [{ ref: `refs/heads/${branch}`, before: ZERO_OID, after }]);
  return (await deps.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst()) ?? project;
}
