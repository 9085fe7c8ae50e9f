// Cancelling a pipeline (14.x `Ci::Pipeline#cancel_running`) or one job (`POST /jobs/:id/cancel`).
import { type JobChange } from './pipeline-job.ts';
import { type Status, isCancelable, jobTransition, jobTransitionTimestamps } from './status.ts';

interface CancelableJob {
  id: number;
  status: Status;
}

/** The cancel transition of one job, or null when its status cannot be canceled. */
export function cancelJobChange(job: CancelableJob, now: Date): JobChange | null {
  const to = jobTransition(job.status, 'cancel');
  if (to === null) return null;
  return { id: job.id, from: job.status, to, event: 'cancel', ...jobTransitionTimestamps(job.status, to, now) };
}

/**
 * Cancels every job of the pipeline in a cancelable status (created, waiting_for_resource, preparing,
 * pending, running, scheduled). Manual and finished jobs stay as they are. Process the pipeline
 * afterwards for its new status (usually canceled; manual when a blocking manual job remains).
 */
export function cancelPipelineChanges(jobs: readonly CancelableJob[], now: Date): JobChange[] {
  const changes: JobChange[] = [];
  for (const job of jobs) {
    if (!isCancelable(job.status)) continue;
    const change = cancelJobChange(job, now);
    if (change) changes.push(change);
  }
  return changes;
}
