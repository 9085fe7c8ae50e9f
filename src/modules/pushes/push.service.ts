// What follows a change of refs, whoever made it (a push over HTTP, or an API write): push events,
// the project's activity, its default branch and empty_repo, the default branch's protection, and
// (later, by a worker) the project's statistics.
// It is the `refs.updated` background job, enqueued once the refs have moved and run at once by
// the writer, so that callers see its effects; if the server stops midway, a worker runs it again.
import { Type } from '@sinclair/typebox';
import { type Kysely, PostgresAdapter } from 'kysely';
import { type ServiceContext, atTime, withTransaction } from '../../core/context.ts';
import type { DB, ProjectRow } from '../../db/schema.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { ZERO_OID } from '../../git/args.ts';
import { type RefUpdate, hasBranches, resolveRef } from '../../git/refs.ts';
import { existingProjectRepository, readDefaultBranch } from '../../git/repository.ts';
import { APPROVALS_RESET, MERGE_REQUEST_REFRESH } from '../../jobs/merge-request-work.ts';
import { MERGE_STATUS_CHECK } from '../../jobs/merge-status-check.ts';
import { type JobOutcome, type RunningJob, defineJobKind, enqueue, enqueueMany, runNow, withdraw } from '../../jobs/queue.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../events/events.service.ts';
import { createPushPipelineJob } from '../pipelines/pipelines.jobs.ts';
import { pushMayMakePipeline } from '../pipelines/pipelines.service.ts';
import { resolveTodos } from '../todos/todos.service.ts';
import { protectDefaultBranch, settleHead } from './default-branch.ts';
import { pushEventsData } from './push-data.ts';
import { refreshStatisticsLater } from './repository-statistics.jobs.ts';

const Oid = Type.String({ pattern: '^[0-9a-f]{40}$' });
const RefUpdateSchema = Type.Object({ ref: Type.String({ minLength: 1 }), before: Oid, after: Oid }, { additionalProperties: false });

const RefsUpdatedPayload = Type.Object(
  {
    projectId: Type.Integer(),
    userId: Type.Integer(),
    updates: Type.Array(RefUpdateSchema, { minItems: 1 }),
    /** The project's first branch came with it (a README commit at creation): a first push whatever its row says. */
    firstPush: Type.Optional(Type.Boolean()),
    /** `git push -o` options: `ci.skip`, `ci.variable="KEY=value"`. */
    pushOptions: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

const isBranch = (update: RefUpdate) => update.ref.startsWith('refs/heads/');

export const refsUpdatedJob = defineJobKind({
  name: 'refs.updated',
  payload: RefsUpdatedPayload,
  run: (ctx, payload, job) => processRefUpdates(ctx, payload, job),
});

/**
 * Records what a change of refs means for the project. A first push to an empty repository
 * settles the default branch (HEAD and the project's row) and protects it; then the push events
 * (with last_activity_at) and empty_repo. Git is read first; the rows change in one transaction
 * that also completes the job, so a run cut short leaves nothing half-recorded.
 */
async function processRefUpdates(ctx: ServiceContext, payload: typeof RefsUpdatedPayload.static, job: RunningJob): Promise<void> {
  const { updates } = payload;
  const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', payload.projectId).executeTakeFirst();
  if (!row) return; // deleted meanwhile: nothing left to record
  const gitDir = existingProjectRepository(ctx.config.repositoryStorages, row);

  const createsBranch = updates.some((u) => isBranch(u) && u.before === ZERO_OID);
  const firstPush = payload.firstPush === true || ((row.empty_repo || row.default_branch === null) && createsBranch);
  let defaultBranch = row.default_branch;
  if (gitDir !== null && firstPush) defaultBranch = (await settleHead(ctx, row, gitDir, updates)) ?? defaultBranch;
  const data = gitDir !== null ? await pushEventsData(gitDir, updates, defaultBranch) : [];
  const branchesComeOrGo = updates.some((u) => isBranch(u) && (u.before === ZERO_OID || u.after === ZERO_OID));
  const empty = branchesComeOrGo ? gitDir === null || !(await hasBranches(gitDir)) : row.empty_repo;
  const pipelineUpdates: RefUpdate[] = [];
  for (const u of updates) {
    if (u.after !== ZERO_OID && /^refs\/(heads|tags)\//.test(u.ref) && (await pushMayMakePipeline(ctx, row, u.after))) pipelineUpdates.push(u);
  }
  const protect = firstPush && defaultBranch !== null && updates.some((u) => u.ref === `refs/heads/${defaultBranch}` && u.before === ZERO_OID);

  await withTransaction(atTime(ctx, ctx.now()), async (tx) => {
    // The project's row first, as deleting the project takes it: a deletion meanwhile waits for
    // this record instead of deadlocking with it (its cascade waiting on this event, this update
    // on its row), or has happened, and there is nothing left to record.
    const postgres = tx.db.getExecutor().adapter instanceof PostgresAdapter;
    const locked = await tx.db.selectFrom('projects').select('id').where('id', '=', row.id).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirst();
    if (!locked) return job.complete(tx.db);
    if (defaultBranch !== row.default_branch || empty !== row.empty_repo) {
      await tx.db.updateTable('projects').set({ default_branch: defaultBranch, empty_repo: empty }).where('id', '=', row.id).execute();
    }
    for (const pushData of data) await recordEvent(tx, { projectId: row.id, authorId: payload.userId, action: 'pushed', pushData });
    if (protect) await protectDefaultBranch(tx, row, defaultBranch as string);
    if (gitDir !== null) await refreshStatisticsLater(tx.db, row.id);
    const ci = ciPushOptions(payload.pushOptions ?? []);
    await enqueuePushPipelines(tx.db, row.id, payload.userId, pipelineUpdates, ci);
    await recheckMergeRequests(tx.db, row.id, updates);
    await refreshMergeRequests(tx, row.id, payload.userId, updates, ci);
    await pushHooksLater(tx.db, row.id, payload.userId, updates, ci);
    await job.complete(tx.db);
  });
}

/** More refs of one type than this in one push run no push hooks (push_event_hooks_limit). */
const PUSH_EVENT_HOOKS_LIMIT = 3;

/**
 * The webhooks of a push: a push or tag push event per branch or tag (none for a type with more
 * refs than the limit, as Git::ProcessRefChangesService), and the system hooks' repository update.
 */
async function pushHooksLater(db: Kysely<DB>, projectId: number, userId: number, updates: readonly RefUpdate[], ci: CiPushOptions): Promise<void> {
  const pushOptions = ci.skip || ci.variables ? { ci: { ...(ci.skip ? { skip: true } : {}), ...(ci.variables ? { variable: Object.fromEntries(ci.variables.map((v) => [v.key, v.value])) } : {}) } } : undefined;
  for (const prefix of ['refs/heads/', 'refs/tags/']) {
    const refs = updates.filter((u) => u.ref.startsWith(prefix));
    if (refs.length > PUSH_EVENT_HOOKS_LIMIT) continue;
    for (const u of refs) {
      await enqueueHookEvent(db, { projectId }, { kind: 'push', projectId, userId, ref: u.ref, before: u.before, after: u.after, ...(pushOptions ? { pushOptions } : {}) });
    }
  }
  const refs = updates.filter((u) => /^refs\/(heads|tags)\//.test(u.ref)).map((u) => ({ ref: u.ref, before: u.before, after: u.after }));
  if (refs.length > 0) await enqueueHookEvent(db, { projectId }, { kind: 'repository_update', projectId, userId, updates: refs });
}

interface CiPushOptions {
  skip?: true;
  variables?: { key: string; value: string }[];
}

/** `-o ci.skip` and `-o ci.variable="KEY=value"` (the platform's Gitlab::PushOptions; the shell removes the quotes). */
export function ciPushOptions(options: readonly string[]): CiPushOptions {
  const ci: CiPushOptions = {};
  for (const option of options) {
    if (option === 'ci.skip') ci.skip = true;
    const variable = /^ci\.variable=(.*)$/.exec(option)?.[1].replace(/^"(.*)"$/, '$1');
    const equals = variable?.indexOf('=') ?? -1;
    if (variable && equals > 0) (ci.variables ??= []).push({ key: variable.slice(0, equals), value: variable.slice(equals + 1) });
  }
  return ci;
}

/** A pipeline for each branch or tag the change created or moved with a configuration (deletions make none). */
async function enqueuePushPipelines(db: Kysely<DB>, projectId: number, userId: number, updates: readonly RefUpdate[], ci: CiPushOptions): Promise<void> {
  for (const u of updates) {
    await enqueue(db, createPushPipelineJob, { projectId, userId, ref: u.ref, before: u.before, after: u.after, ...ci });
  }
}

/** Open merge requests from or into a branch that moved are unchecked until checked again (MergeRequests::RefreshService). */
async function recheckMergeRequests(db: Kysely<DB>, projectId: number, updates: readonly RefUpdate[]): Promise<void> {
  const branches = [...new Set(updates.filter(isBranch).map((u) => u.ref.slice('refs/heads/'.length)))];
  if (branches.length === 0) return;
  const result = await db
    .updateTable('merge_requests')
    .set({ merge_status: 'unchecked' })
    .where('project_id', '=', projectId)
    .where('state', '=', 'opened')
    .where((eb) => eb.or([eb('source_branch', 'in', branches), eb('target_branch', 'in', branches)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) await enqueue(db, MERGE_STATUS_CHECK, { projectId, branches });
}

/**
 * Open merge requests from a branch the push moved are refreshed (their ref, their automatic
 * merge, their pipeline), their approvals reset, and the pusher's pending to-dos on them are done.
 */
async function refreshMergeRequests(ctx: ServiceContext, projectId: number, userId: number, updates: readonly RefUpdate[], ci: CiPushOptions): Promise<void> {
  const moved = [...new Set(updates.filter((u) => isBranch(u) && u.after !== ZERO_OID).map((u) => u.ref.slice('refs/heads/'.length)))];
  if (moved.length === 0) return;
  const mrs = await ctx.db.selectFrom('merge_requests').select('id').where('project_id', '=', projectId).where('state', '=', 'opened').where('source_branch', 'in', moved).execute();
  const skipPipeline = ci.skip === true ? { skipPipeline: true } : {};
  await enqueueMany(ctx.db, MERGE_REQUEST_REFRESH, mrs.map((mr) => ({ payload: { mergeRequestId: mr.id, userId, ...skipPipeline } })));
  // Their approvals no longer cover what the branch holds: reset, if the project says so.
  if (mrs.length > 0) await enqueue(ctx.db, APPROVALS_RESET, { projectId, mergeRequestIds: mrs.map((mr) => mr.id) });
  for (const mr of mrs) await resolveTodos(ctx, { type: 'MergeRequest', id: mr.id, projectId }, userId);
}

// ---- Changes of refs by the server itself --------------------------------------------------------

const RefIntent = Type.Object({ ref: Type.String({ minLength: 1 }), before: Oid }, { additionalProperties: false });
export type RefIntent = typeof RefIntent.static;

const RefsChangingPayload = Type.Object(
  { projectId: Type.Integer(), userId: Type.Integer(), refs: Type.Array(RefIntent, { minItems: 1 }), pushOptions: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);

/** How long the intent of a change waits before a worker takes its writer for stopped. */
const INTENT_GRACE_MS = 5 * 60 * 1000;

/**
 * The intent of a change of refs whose writer stopped before confirming it (see changeRefs): the
 * refs that moved from where they were are recorded, as what they now hold; the others never changed.
 */
export const refsChangingJob = defineJobKind({
  name: 'refs.changing',
  payload: RefsChangingPayload,
  async run(ctx, { projectId, userId, refs, pushOptions }, job) {
    const row = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', projectId).executeTakeFirst();
    const gitDir = row ? existingProjectRepository(ctx.config.repositoryStorages, row) : null;
    if (gitDir === null) return;
    const updates: RefUpdate[] = [];
    for (const { ref, before } of refs) {
      const after = (await resolveRef(gitDir, ref)) ?? ZERO_OID;
      if (after !== before) updates.push({ ref, before, after });
    }
    if (updates.length > 0) await processRefUpdates(ctx, { projectId, userId, updates, ...(pushOptions ? { pushOptions } : {}) }, job);
  },
});

/**
 * Changes refs (apply, which returns what it changed) and records the change, with no moment at
 * which a stopped server loses the record: the intent (which refs, from where) is committed first,
 * due only after a grace period; once apply is done, the intent gives way to `refs.updated`, run
 * at once. Should apply fail, the intent is withdrawn; should the server stop in between, a worker
 * takes the intent up after the grace period. Called outside a transaction: the intent must commit first.
 * Apply runs under a push lease on the repository (withRepositoryWrite), as a push does: while a
 * storage move holds the repository (or after it moved it off the storage the project row names)
 * the change is refused with `readOnly` (the API's 400 by default) before anything is written.
 */
export async function changeRefs(
  ctx: ServiceContext,
  project: Pick<ProjectRow, 'id' | 'repository_storage'>,
  userId: number,
  refs: readonly RefIntent[],
  apply: () => Promise<readonly RefUpdate[]>,
  options: { pushOptions?: readonly string[]; readOnly?: () => Error } = {},
): Promise<JobOutcome | null> {
  if (ctx.db.isTransaction) throw new Error('changeRefs commits the intent of the change first: call it outside a transaction');
  const pushOptions = options.pushOptions && options.pushOptions.length > 0 ? [...options.pushOptions] : undefined;
  const repository = { kind: 'project', id: project.id, storage: project.repository_storage } as const;
  const done = await withRepositoryWrite(
    ctx,
    repository,
    async () => {
      const intent = await enqueue(ctx.db, refsChangingJob, { projectId: project.id, userId, refs: [...refs], ...(pushOptions ? { pushOptions } : {}) }, { runAt: new Date(Date.now() + INTENT_GRACE_MS) });
      try {
        return { intent, updates: await apply() };
      } catch (error) {
        await withdraw(ctx.db, intent);
        throw error;
      }
    },
    options.readOnly,
  );
  const id = await withTransaction(ctx, async (tx) => {
    // A worker took the intent up (apply outlasted the grace period): it records the change.
    if (!(await withdraw(tx.db, done.intent))) return null;
    return done.updates.length === 0 ? null : enqueueRefUpdates(tx, project.id, userId, done.updates, { runHere: true, pushOptions });
  });
  return runNow(ctx, refsUpdatedJob, id);
}

/** Enqueues `refs.updated` for a change of refs that has happened, for a worker to run. */
export async function enqueueRefUpdates(
  ctx: ServiceContext,
  projectId: number,
  userId: number,
  updates: readonly RefUpdate[],
  options: { runHere?: boolean; pushOptions?: readonly string[] } = {},
): Promise<number | null> {
  const pushOptions = options.pushOptions && options.pushOptions.length > 0 ? { pushOptions: [...options.pushOptions] } : {};
  return enqueue(ctx.db, refsUpdatedJob, { projectId, userId, updates: [...updates], ...pushOptions }, { runHere: options.runHere });
}

/**
 * Records a change of refs, once the refs have moved: enqueues `refs.updated` and runs it here,
 * so that the caller answers with its effects. Should that run fail, the job stays queued and the
 * workers retry it; the outcome says so. `userId` is whom the push is recorded for, explicit
 * because it is not always the actor: a queued job records it for the user who asked.
 */
export async function recordRefUpdates(ctx: ServiceContext, project: Pick<ProjectRow, 'id'>, userId: number, updates: readonly RefUpdate[], pushOptions: readonly string[] = []): Promise<JobOutcome | null> {
  if (updates.length === 0) return null;
  const id = await enqueueRefUpdates(ctx, project.id, userId, updates, { runHere: true, pushOptions });
  return runNow(ctx, refsUpdatedJob, id);
}

/** The change a new project's README commit makes: its default branch created at that commit. */
export async function initialCommitUpdate(gitDir: string): Promise<RefUpdate | null> {
  const branch = await readDefaultBranch(gitDir);
  const after = branch === null ? null : await resolveRef(gitDir, `refs/heads/${branch}`);
  return after === null ? null : { ref: `refs/heads/${branch}`, before: ZERO_OID, after };
}
