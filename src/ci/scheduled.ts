// Delayed jobs whose time has come (`Ci::BuildScheduleWorker` → `enqueue_scheduled`).
import { type JobChange, type PipelineJob } from './pipeline-job.ts';
import { jobTransition, jobTransitionTimestamps } from './status.ts';

/**
 * Scheduled jobs whose `scheduledAt` has passed (or is unset, as the platform allows) move on:
 * pending, or waiting_for_resource in a resource group. Run processing afterwards for the statuses.
 */
export function enqueueDueScheduled(jobs: readonly PipelineJob[], now: Date): JobChange[] {
  const changes: JobChange[] = [];
  for (const job of jobs) {
    if (job.status !== 'scheduled') continue;
    if (job.scheduledAt !== null && job.scheduledAt.getTime() >= now.getTime()) continue; // `past?` is strict
    const to = jobTransition(job.status, 'enqueue_scheduled', { resourceGroup: job.resourceGroup !== null });
    if (to === null) continue;
    changes.push({ id: job.id, from: job.status, to, event: 'enqueue_scheduled', ...jobTransitionTimestamps(job.status, to, now) });
  }
  return changes;
}
