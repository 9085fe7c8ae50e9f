// Resource groups (`resource_group:`): jobs of one group run one at a time across a project. A job
// waits in waiting_for_resource until the group's single resource is free, then goes pending
// (`enqueue_waiting_for_resource`); it holds the resource until it completes.
import { type JobChange } from './pipeline-job.ts';
import { type Status, jobTransition, jobTransitionTimestamps } from './status.ts';

export interface ResourceGroupJob {
  id: number;
  status: Status;
  resourceGroup: string | null;
}

/** A job holds its group's resource from its assignment (→ pending) until it completes. */
const HOLDING_STATUSES: readonly Status[] = ['preparing', 'pending', 'running'];

/** Groups whose resource one of these jobs holds. */
export function busyResourceGroups(jobs: Iterable<ResourceGroupJob>): Set<string> {
  const busy = new Set<string>();
  for (const job of jobs) {
    if (job.resourceGroup !== null && HOLDING_STATUSES.includes(job.status)) busy.add(job.resourceGroup);
  }
  return busy;
}

/**
 * Gives each free group's resource to its oldest waiting job (lowest id). `busyGroups` are the groups
 * held elsewhere in the project (other pipelines); groups held by the given jobs count as busy too.
 */
export function assignResources(
  jobs: readonly ResourceGroupJob[],
  busyGroups: Iterable<string>,
  now: Date,
): JobChange[] {
  const busy = new Set([...busyGroups, ...busyResourceGroups(jobs)]);
  const waiting = jobs
    .filter((job) => job.status === 'waiting_for_resource' && job.resourceGroup !== null)
    .sort((a, b) => a.id - b.id);
  const changes: JobChange[] = [];
  for (const job of waiting) {
    const group = job.resourceGroup as string;
    if (busy.has(group)) continue;
    const to = jobTransition(job.status, 'enqueue_waiting_for_resource');
    if (to === null) continue;
    busy.add(group);
    changes.push({ id: job.id, from: job.status, to, event: 'enqueue_waiting_for_resource', ...jobTransitionTimestamps(job.status, to, now) });
  }
  return changes;
}
