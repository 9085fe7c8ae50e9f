// A push over HTTP or SSH, server side: a directory of its own under the data directory, holding the
// hooks receive-pack runs and the rules for this pusher, which the pre-receive hook reads;
// receive-pack's configuration and environment; and, once git has exited, the refs the push
// updated, as post-receive wrote them. Fresh hooks for every push: nothing shared can go missing
// (git would skip a missing hook and let the push through unchecked).
//
// The directory also names the project and the pusher, and it is removed only once what the push
// changed is recorded (the `refs.updated` job enqueued): a server stopped between git moving the
// refs and that record leaves it behind, and the sweep of leftovers records the push from it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { Deps } from '../../core/deps.ts';
import type { Config } from '../../config.ts';
import { ownerTag, removeLeftoverEntries } from '../../core/processes.ts';
import { PUSH_DIR_ENV, PUSH_OPTIONS_FILE, REF_UPDATES_FILE, parseRefLines, writeHooks } from '../../git/hooks/hooks.ts';
import type { RefUpdate } from '../../git/refs.ts';
import { type BaseContext, type ServiceContext, systemContext } from '../../core/context.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import type { Pusher } from '../../domain/ref-protection.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { defaultBranchProtection } from './default-branch.ts';
import { type PushRules, RULES_FILE } from './push-rules.ts';
import { enqueueRefUpdates, recordRefUpdates } from './push.service.ts';

const COMPILE_CACHE = 'compile-cache';
/** Who pushed to which project, for recording a push its server did not get to. */
const ORIGIN_FILE = 'origin.json';
const PRE_RECEIVE_SCRIPT = fileURLToPath(new URL('./pre-receive.ts', import.meta.url));

/** Refs the server keeps for itself (pipelines, merge requests, environments): pushes neither see nor change them. */
export const HIDDEN_FROM_PUSHES = ['refs/pipelines/', 'refs/merge-requests/', 'refs/environments/', 'refs/keep-around/'].map((ref) => `receive.hideRefs=${ref}`);

/** The rules of a push by this pusher (pusherOf a user, or a deploy key's) to this project, as they stand now. */
export async function pushRulesFor(deps: Pick<Deps, 'db' | 'config'>, project: Pick<LoadedProject, 'row'>, pusher: Pusher): Promise<PushRules> {
  const { row } = project;
  const emptyRepository = row.empty_repo
    ? {
        defaultBranchProtection: await defaultBranchProtection(deps.db, row.namespace_id),
        projectFullPath: row.full_path,
        membersUrl: `${deps.config.externalUrl}/${row.full_path}/-/project_members`,
      }
    : null;
  return {
    protections: await loadRefProtections(deps.db, row.id),
    pusher,
    defaultBranch: row.default_branch,
    emptyRepository,
    refuseAll: row.repository_read_only ? REPOSITORY_READ_ONLY_MESSAGE : null,
  };
}

export interface PushSession {
  /** receive-pack's configuration (`name=value`). */
  readonly config: readonly string[];
  /** receive-pack's environment, which its hooks inherit. */
  readonly env: Record<string, string>;
  /** The refs the push updated; none when it was refused or failed. */
  refUpdates(): Promise<RefUpdate[]>;
  /** The push options it came with (`git push -o`). */
  pushOptions(): Promise<string[]>;
  /** Removes the push's directory, once what it changed is recorded. */
  close(): Promise<void>;
  /**
   * Once receive-pack has exited: records what the push changed (its events, pipelines, … run
   * now), then removes the push's directory; never rejects. If recording fails, the directory is
   * kept for the sweep of leftovers to record the push.
   */
  finish(ctx: ServiceContext, log: PushLog): Promise<void>;
}

export interface PushLog {
  error(details: object, message: string): void;
}

export interface PushOrigin {
  projectId: number;
  userId: number;
}

const pushesDir = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'pushes');

async function readRefUpdates(dir: string): Promise<RefUpdate[]> {
  try {
    return parseRefLines(await fs.readFile(path.join(dir, REF_UPDATES_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function readPushOptions(dir: string): Promise<string[]> {
  try {
    return (await fs.readFile(path.join(dir, PUSH_OPTIONS_FILE), 'utf8')).split('\n').filter(Boolean);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function openPushSession(config: Pick<Config, 'dataDir'>, rules: PushRules, origin: PushOrigin): Promise<PushSession> {
  const parent = pushesDir(config);
  await fs.mkdir(parent, { recursive: true });
  // Named after this process, so that a restart knows a dead one's leftovers.
  const dir = await fs.mkdtemp(path.join(parent, `${ownerTag()}-`));
  await writeHooks(dir, { preReceive: PRE_RECEIVE_SCRIPT, compileCache: path.join(parent, COMPILE_CACHE) });
  await fs.writeFile(path.join(dir, RULES_FILE), JSON.stringify(rules));
  await fs.writeFile(path.join(dir, ORIGIN_FILE), JSON.stringify(origin));
  const session: PushSession = {
    config: [`core.hooksPath=${dir}`, ...HIDDEN_FROM_PUSHES],
    env: { [PUSH_DIR_ENV]: dir },
    refUpdates: () => readRefUpdates(dir),
    pushOptions: () => readPushOptions(dir),
    async close() {
      // The updates first, in one step: a directory half removed is never recorded a second time.
      await fs.rm(path.join(dir, REF_UPDATES_FILE), { force: true });
      await fs.rm(dir, { recursive: true, force: true });
    },
    async finish(ctx, log) {
      try {
        const outcome = await recordRefUpdates(ctx, { id: origin.projectId }, origin.userId, await session.refUpdates(), await session.pushOptions());
        // The job stays queued for a retry; the push itself has happened.
        if (outcome && !outcome.ok) log.error({ err: outcome.error, job: outcome.id }, 'recording a push failed; it will be retried');
      } catch (error) {
        log.error({ err: error }, 'recording a push failed; its directory is kept for the sweep of leftovers to record it');
        return;
      }
      await session.close();
    },
  };
  return session;
}

/** Enqueues the record of a push left behind with its updates (its server stopped before recording it). */
async function recordLeftoverPush(ctx: BaseContext, dir: string): Promise<void> {
  const updates = await readRefUpdates(dir);
  if (updates.length === 0) return;
  const origin = JSON.parse(await fs.readFile(path.join(dir, ORIGIN_FILE), 'utf8')) as PushOrigin;
  await enqueueRefUpdates(systemContext(ctx), origin.projectId, origin.userId, updates, { pushOptions: await readPushOptions(dir) });
}

/**
 * Removes push directories left over by processes that died mid-push (see core/processes.ts), recording
 * first the pushes whose refs had moved; returns how many went.
 */
export function removePushLeftovers(ctx: BaseContext, maxAgeMs: number): Promise<number> {
  // The compile cache of the hook is shared and kept.
  return removeLeftoverEntries(pushesDir(ctx.config), maxAgeMs, [COMPILE_CACHE], (dir) => recordLeftoverPush(ctx, dir));
}
