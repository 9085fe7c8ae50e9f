// Job and pipeline statuses of the platform (14.x `Ci::HasStatus`, `CommitStatus`, `Ci::Processable`,
// `Ci::Build`, `Ci::Pipeline`), as data: the status groups, the job state machine as a table, the
// pipeline's `set_status`, and the timestamps each transition sets. Pure: no clock, no storage.

export const STATUSES = [
  'created',
  'waiting_for_resource',
  'preparing',
  'pending',
  'running',
  'success',
  'failed',
  'canceled',
  'skipped',
  'manual',
  'scheduled',
] as const;
export type Status = (typeof STATUSES)[number];

export const ACTIVE_STATUSES: readonly Status[] = ['waiting_for_resource', 'preparing', 'pending', 'running'];
export const COMPLETED_STATUSES: readonly Status[] = ['success', 'failed', 'canceled', 'skipped'];
export const BLOCKED_STATUSES: readonly Status[] = ['manual', 'scheduled'];
export const STOPPED_STATUSES: readonly Status[] = [...COMPLETED_STATUSES, ...BLOCKED_STATUSES];
export const ALIVE_STATUSES: readonly Status[] = [...ACTIVE_STATUSES, 'created'];
export const CANCELABLE_STATUSES: readonly Status[] = [...ALIVE_STATUSES, 'scheduled'];
export const STARTED_STATUSES: readonly Status[] = ['running', 'success', 'failed'];
/** Statuses that count as "success with warnings" when the job may fail. */
export const PASSED_WITH_WARNINGS_STATUSES: readonly Status[] = ['failed', 'canceled'];
/** Statuses that are ignored (do not block) when the job may fail: optional manual jobs. */
export const IGNORED_STATUSES: readonly Status[] = ['manual'];
/** The platform's display order of statuses (`ORDERED_STATUSES`). */
export const ORDERED_STATUSES: readonly Status[] = [
  'failed', 'preparing', 'pending', 'running', 'waiting_for_resource', 'manual', 'scheduled', 'canceled',
  'success', 'skipped', 'created',
];

export function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}
export const isActive = (status: Status): boolean => ACTIVE_STATUSES.includes(status);
export const isCompleted = (status: Status): boolean => COMPLETED_STATUSES.includes(status);
export const isBlocked = (status: Status): boolean => BLOCKED_STATUSES.includes(status);
export const isStopped = (status: Status): boolean => STOPPED_STATUSES.includes(status);
export const isAlive = (status: Status): boolean => ALIVE_STATUSES.includes(status);
export const isCancelable = (status: Status): boolean => CANCELABLE_STATUSES.includes(status);

// ---------------------------------------------------------------------------------------------
// Job state machine

export const JOB_EVENTS = [
  'process',
  'enqueue',
  'enqueue_scheduled',
  'enqueue_waiting_for_resource',
  'enqueue_preparing',
  'actionize',
  'schedule',
  'unschedule',
  'run',
  'skip',
  'drop',
  'success',
  'cancel',
] as const;
export type JobEvent = (typeof JOB_EVENTS)[number];

/** What decides between the branches of one event (the guards of the platform's state machine). */
export interface TransitionGuards {
  /** The job belongs to a resource group: enqueueing waits for the resource first. */
  resourceGroup?: boolean;
  /** The job has unmet prerequisites (the platform's kubernetes namespace); Quarry has none. */
  unmetPrerequisites?: boolean;
}

type Branch = { from: readonly Status[]; to: Status; when?: (g: TransitionGuards) => boolean };

const ENQUEUE_FROM: readonly Status[] = ['created', 'skipped', 'manual', 'scheduled'];
const RUNNABLE_BEFORE_START: readonly Status[] = ['created', 'waiting_for_resource', 'preparing', 'pending'];
const withResource = (g: TransitionGuards) => g.resourceGroup === true;
const withPrerequisites = (g: TransitionGuards) => g.unmetPrerequisites === true;

// Branches of an event are tried in order, first match wins (as the state_machines gem does);
// the resource group branch comes first because Processable defines it before Build's.
const JOB_MACHINE: Record<JobEvent, readonly Branch[]> = {
  process: [{ from: ['skipped', 'manual'], to: 'created' }],
  enqueue: [
    { from: ENQUEUE_FROM, to: 'waiting_for_resource', when: withResource },
    { from: ENQUEUE_FROM, to: 'preparing', when: withPrerequisites },
    { from: ENQUEUE_FROM, to: 'pending' },
  ],
  enqueue_scheduled: [
    { from: ['scheduled'], to: 'waiting_for_resource', when: withResource },
    { from: ['scheduled'], to: 'preparing', when: withPrerequisites },
    { from: ['scheduled'], to: 'pending' },
  ],
  enqueue_waiting_for_resource: [
    { from: ['waiting_for_resource'], to: 'preparing', when: withPrerequisites },
    { from: ['waiting_for_resource'], to: 'pending' },
  ],
  enqueue_preparing: [{ from: ['preparing'], to: 'pending', when: (g) => !withPrerequisites(g) }],
  actionize: [{ from: ['created'], to: 'manual' }],
  schedule: [{ from: ['created'], to: 'scheduled' }],
  unschedule: [{ from: ['scheduled'], to: 'manual' }],
  run: [{ from: ['pending'], to: 'running' }],
  skip: [{ from: RUNNABLE_BEFORE_START, to: 'skipped' }],
  drop: [{ from: [...RUNNABLE_BEFORE_START, 'running', 'scheduled'], to: 'failed' }],
  success: [{ from: [...RUNNABLE_BEFORE_START, 'running'], to: 'success' }],
  cancel: [{ from: [...RUNNABLE_BEFORE_START, 'running', 'manual', 'scheduled'], to: 'canceled' }],
};

/** The status a job reaches by `event` from `status`, or null when the event does not apply. */
export function jobTransition(status: Status, event: JobEvent, guards: TransitionGuards = {}): Status | null {
  for (const branch of JOB_MACHINE[event]) {
    if (branch.from.includes(status) && (branch.when === undefined || branch.when(guards))) return branch.to;
  }
  return null;
}

/** The timestamp columns a job transition writes. `scheduledAt: null` clears it. */
export interface JobTimestamps {
  queuedAt?: Date;
  startedAt?: Date;
  finishedAt?: Date;
  waitingForResourceAt?: Date;
  scheduledAt?: Date | null;
}

const QUEUED_FROM: readonly Status[] = ['created', 'waiting_for_resource', 'preparing', 'skipped', 'manual', 'scheduled'];
const STARTED_FROM: readonly Status[] = ['created', 'preparing', 'pending'];
const FINISHED: readonly Status[] = ['success', 'failed', 'canceled'];

/**
 * Timestamps set by a job moving `from` → `to` at `now` (CommitStatus and Processable callbacks).
 * Entering `scheduled` sets scheduled_at from the job's start_in: the caller passes it as `scheduledAt`.
 */
export function jobTransitionTimestamps(from: Status, to: Status, now: Date, scheduledAt?: Date): JobTimestamps {
  const stamps: JobTimestamps = {};
  if (from === to) return stamps;
  if (to === 'pending' && QUEUED_FROM.includes(from)) stamps.queuedAt = now;
  if (to === 'running' && STARTED_FROM.includes(from)) stamps.startedAt = now;
  if (FINISHED.includes(to)) stamps.finishedAt = now;
  if (to === 'waiting_for_resource') stamps.waitingForResourceAt = now;
  if (from === 'scheduled') stamps.scheduledAt = null;
  if (from === 'created' && to === 'scheduled') stamps.scheduledAt = scheduledAt ?? null;
  return stamps;
}

/** A job's running time in seconds: finished_at (or now) − started_at; null before it starts. */
export function jobDuration(job: { startedAt: Date | null; finishedAt: Date | null }, now: Date): number | null {
  if (!job.startedAt) return null;
  return ((job.finishedAt ?? now).getTime() - job.startedAt.getTime()) / 1000;
}

/** A job's time in the queue in seconds: started_at (or now) − queued_at; null if never queued. */
export function jobQueuedDuration(job: { queuedAt: Date | null; startedAt: Date | null }, now: Date): number | null {
  if (!job.queuedAt) return null;
  return ((job.startedAt ?? now).getTime() - job.queuedAt.getTime()) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Pipeline state machine

export type PipelineEvent =
  | 'enqueue'
  | 'request_resource'
  | 'prepare'
  | 'run'
  | 'skip'
  | 'drop'
  | 'succeed'
  | 'cancel'
  | 'block'
  | 'delay';

/** `Ci::Pipeline#set_status`: the event that moves a pipeline towards a composite status (null: none). */
export const PIPELINE_EVENT_FOR_STATUS: Readonly<Record<Status, PipelineEvent | null>> = {
  created: null,
  waiting_for_resource: 'request_resource',
  preparing: 'prepare',
  pending: 'enqueue',
  running: 'run',
  success: 'succeed',
  failed: 'drop',
  canceled: 'cancel',
  skipped: 'skip',
  manual: 'block',
  scheduled: 'delay',
};

const PIPELINE_EVENT_TARGET: Readonly<Record<Exclude<PipelineEvent, 'enqueue'>, Status>> = {
  request_resource: 'waiting_for_resource',
  prepare: 'preparing',
  run: 'running',
  skip: 'skipped',
  drop: 'failed',
  succeed: 'success',
  cancel: 'canceled',
  block: 'manual',
  delay: 'scheduled',
};

/** The status a pipeline reaches by `event`, or null when the event does not apply (loopbacks included). */
export function pipelineTransition(status: Status, event: PipelineEvent): Status | null {
  if (event === 'enqueue') {
    // A finished pipeline that gets new pending jobs (a retry) goes back to running, not pending.
    if (['created', 'manual', 'waiting_for_resource', 'preparing', 'skipped', 'scheduled'].includes(status)) return 'pending';
    if (['success', 'failed', 'canceled'].includes(status)) return 'running';
    return null;
  }
  const to = PIPELINE_EVENT_TARGET[event];
  return to === status ? null : to;
}

export interface PipelineStatusChange {
  from: Status;
  to: Status;
  event: PipelineEvent;
}

/** `set_status(composite)`: the change to apply to a pipeline in `current`, or null when none. */
export function setPipelineStatus(current: Status, composite: Status): PipelineStatusChange | null {
  const event = PIPELINE_EVENT_FOR_STATUS[composite];
  if (event === null) return null;
  const to = pipelineTransition(current, event);
  return to === null ? null : { from: current, to, event };
}

/** What a pipeline transition writes besides its status. */
export interface PipelineTransitionEffects {
  setStartedAt: boolean;
  setFinishedAt: boolean;
  /** Recompute `duration` (on reaching success, failed, canceled or manual). */
  updateDuration: boolean;
  /** Clear `auto_canceled_by_id` (leaving canceled). */
  clearAutoCanceledBy: boolean;
}

export function pipelineTransitionEffects(from: Status, to: Status): PipelineTransitionEffects {
  return {
    setStartedAt: to === 'running' && ['created', 'waiting_for_resource', 'preparing', 'pending'].includes(from),
    setFinishedAt: FINISHED.includes(to),
    updateDuration: FINISHED.includes(to) || to === 'manual',
    clearAutoCanceledBy: from === 'canceled' && to !== 'canceled',
  };
}
