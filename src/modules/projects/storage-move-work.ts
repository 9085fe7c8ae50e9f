// The work of moving a project's repository to another storage, step by step through the
// platform's states, each step recorded before the next begins so that a move cut short (a crash,
// a restart) resumes where it was when its job runs again:
//
//   scheduled → started: the repository is read-only (since scheduling), marked so in the
//     repository too, and the pushes already under way, on any node, are waited for;
//   started → replicated: copied to the destination (its wiki's repository with it), verified (the refs and every object's
//     checksum equal on both sides, and the original unchanged meanwhile, else copied again), and
//     switched to in one transaction that also makes the project writable again;
//   replicated → finished: the original removed, unless a write reached it after the copy (then
//     `cleanup failed`, and the original is kept: nothing is lost).
//
// A failure before the switch leaves the project where it was, writable, and the move `failed`.
import path from 'node:path';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { ProjectRepositoryStorageMoveRow } from '../../db/schema.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { waitForPushes } from '../../domain/push-leases.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import { refsChecksum } from '../../git/checksums.ts';
import { replicateRepository } from '../../git/replicate.ts';
import {
  deleteRepository,
  markReadOnly,
  projectWikiRelativePath,
  repositoryExists,
  repositoryPath,
  repositoryRelativePath,
  unmarkReadOnly,
} from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import type { RunningJob } from '../../jobs/queue.ts';

/** How long a move waits for the pushes under way when it starts; they are refused from then on. */
const PUSH_WAIT_MS = 10 * 60 * 1000;

export class MoveFailure extends Error {}

type Move = ProjectRepositoryStorageMoveRow;

async function loadMove(ctx: ServiceContext, moveId: number): Promise<Move | undefined> {
  return ctx.db.selectFrom('project_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirst();
}

function directoryOf(ctx: ServiceContext, storage: string): string {
  const dir = storageDirectory(ctx.config.repositoryStorages, storage);
  if (dir === null) throw new MoveFailure(`repository storage "${storage}" is not configured`);
  return dir;
}

/** Moves the state on from `from` to `to`; false when another run did it first. */
async function advance(ctx: ServiceContext, move: Move, from: number, to: number): Promise<boolean> {
  const result = await ctx.db
    .updateTable('project_repository_storage_moves')
    .set({ state: to, updated_at: ctx.now().toISOString() })
    .where('id', '=', move.id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The project's repositories, relative to a storage: its own, then its wiki's, which moves with it. */
const repositoriesOf = (projectId: number) => [repositoryRelativePath(projectId), projectWikiRelativePath(projectId)];

/** scheduled/started → replicated: the copy, checked, becomes the project's repository. */
async function moveRepository(ctx: ServiceContext, move: Move): Promise<boolean> {
  if (move.state === MOVE_STATE.scheduled) await advance(ctx, move, MOVE_STATE.scheduled, MOVE_STATE.started);
  const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', move.project_id).executeTakeFirst();
  if (!project) throw new MoveFailure('the project is gone');
  if (project.repository_storage !== move.source_storage_name) throw new MoveFailure(`the project is on storage "${project.repository_storage}", not "${move.source_storage_name}"`);
  if (move.source_storage_name === move.destination_storage_name) throw new MoveFailure('the source and destination storages are the same');
  const sourceDir = directoryOf(ctx, move.source_storage_name);
  const destinationDir = directoryOf(ctx, move.destination_storage_name);
  for (const relative of repositoriesOf(project.id)) await markReadOnly(path.join(sourceDir, relative), REPOSITORY_READ_ONLY_MESSAGE);
  // Pushes on every node (its own repository's and its wiki's), not only this one's.
  await waitForPushes(ctx, [{ kind: 'project', id: project.id }, { kind: 'project_wiki', id: project.id }], PUSH_WAIT_MS);
  for (const relative of repositoriesOf(project.id)) await replicateRepository(path.join(sourceDir, relative), path.join(destinationDir, relative), destinationDir);
  return withTransaction(ctx, async (tx) => {
    const now = ctx.now().toISOString();
    const switched = await tx.db
      .updateTable('projects')
      .set({ repository_storage: move.destination_storage_name, repository_read_only: false })
      .where('id', '=', project.id)
      .where('repository_storage', '=', move.source_storage_name)
      .executeTakeFirst();
    if (Number(switched.numUpdatedRows) === 0) throw new MoveFailure('the project left its storage during the move');
    await tx.db.updateTable('project_repository_storage_moves').set({ state: MOVE_STATE.replicated, updated_at: now }).where('id', '=', move.id).execute();
    return true;
  });
}

/** replicated → finished: the original goes, unless something was written to it after the copy. */
async function cleanUp(ctx: ServiceContext, move: Move, job: RunningJob): Promise<void> {
  const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', move.project_id).executeTakeFirst();
  const sourceDir = storageDirectory(ctx.config.repositoryStorages, move.source_storage_name);
  // A project since moved back (or gone) owns, or leaves, what is there now.
  if (project && project.repository_storage !== move.source_storage_name && sourceDir !== null) {
    const source = repositoryPath(sourceDir, project.id);
    const destinationDir = storageDirectory(ctx.config.repositoryStorages, project.repository_storage);
    const destination = destinationDir === null ? null : repositoryPath(destinationDir, project.id);
    if (repositoryExists(source) && destination !== null && repositoryExists(destination) && (await refsChecksum(source)) !== (await refsChecksum(destination))) {
      await finish(ctx, move, MOVE_STATE.cleanup_failed, `the repository on storage "${move.source_storage_name}" changed after it was copied; it is kept there`, job);
      return;
    }
    await deleteRepository(source);
    // The wiki's original goes too (it was read-only from the start, so no write reached it).
    await deleteRepository(path.join(sourceDir, projectWikiRelativePath(project.id)));
  }
  await finish(ctx, move, MOVE_STATE.finished, null, job);
}

async function finish(ctx: ServiceContext, move: Move, state: number, errorMessage: string | null, job: RunningJob | null): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .updateTable('project_repository_storage_moves')
      .set({ state, error_message: errorMessage, updated_at: ctx.now().toISOString() })
      .where('id', '=', move.id)
      .execute();
    await job?.complete(tx.db);
  });
}

/** Runs (or resumes) a move; a MoveFailure fails it at once, other errors are retried by the queue. */
export async function runProjectStorageMove(ctx: ServiceContext, moveId: number, job: RunningJob): Promise<void> {
  let move = await loadMove(ctx, moveId);
  if (!move) return;
  if (move.state === MOVE_STATE.scheduled || move.state === MOVE_STATE.started || move.state === MOVE_STATE.initial) {
    try {
      await moveRepository(ctx, move);
    } catch (error) {
      if (!(error instanceof MoveFailure)) {
        await recordError(ctx, moveId, error);
        throw error;
      }
      await failProjectStorageMove(ctx, moveId, error.message);
      await job.complete(ctx.db);
      return;
    }
    move = (await loadMove(ctx, moveId)) as Move;
  }
  if (move.state === MOVE_STATE.replicated) return cleanUp(ctx, move, job);
  await job.complete(ctx.db);
}

async function recordError(ctx: ServiceContext, moveId: number, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await ctx.db.updateTable('project_repository_storage_moves').set({ error_message: message.slice(0, 1000) }).where('id', '=', moveId).execute();
}

/**
 * Gives a move up: before the switch, the project stays where it was and is writable again (the
 * copy, if any, goes); after it, only the cleanup failed and the original is kept.
 */
export async function failProjectStorageMove(ctx: ServiceContext, moveId: number, reason: string | null): Promise<void> {
  const move = await loadMove(ctx, moveId);
  if (!move) return;
  if (move.state === MOVE_STATE.replicated) {
    await finish(ctx, move, MOVE_STATE.cleanup_failed, reason ?? move.error_message, null);
    return;
  }
  if (move.state !== MOVE_STATE.initial && move.state !== MOVE_STATE.scheduled && move.state !== MOVE_STATE.started) return;
  const sourceDir = storageDirectory(ctx.config.repositoryStorages, move.source_storage_name);
  const destinationDir = storageDirectory(ctx.config.repositoryStorages, move.destination_storage_name);
  const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', move.project_id).executeTakeFirst();
  const stillThere = project?.repository_storage === move.source_storage_name;
  // The copy, if any, goes; a destination that cannot even be cleared (the reason the move
  // failed, often) keeps nothing of it that matters, and must not keep the project read-only.
  if (stillThere && destinationDir !== null && move.destination_storage_name !== move.source_storage_name) {
    for (const relative of repositoriesOf(move.project_id)) await deleteRepository(path.join(destinationDir, relative)).catch(() => {});
  }
  if (stillThere && sourceDir !== null) for (const relative of repositoriesOf(move.project_id)) await unmarkReadOnly(path.join(sourceDir, relative));
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .updateTable('project_repository_storage_moves')
      .set({ state: MOVE_STATE.failed, error_message: reason ?? move.error_message, updated_at: ctx.now().toISOString() })
      .where('id', '=', move.id)
      .execute();
    if (stillThere) await tx.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', move.project_id).execute();
  });
}
