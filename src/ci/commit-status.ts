// The state an external system reports for a commit status (14.x `POST /projects/:id/statuses/:sha`)
// as transitions of the job state machine: `pending` enqueues, `running` enqueues when it can and
// then runs, `success`, `failed` (reason `api_failure`) and `canceled` finish. A status the machine
// does not allow is refused in the platform's words (state_machines' InvalidTransition).
import { type JobEvent, type JobTimestamps, type Status, jobTransition, jobTransitionTimestamps } from './status.ts';

export const COMMIT_STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

/** Which events a state fires, in order; an optional one that does not apply is skipped (a non-bang event). */
const EVENTS: Record<CommitStatusState, { event: JobEvent; optional?: true }[]> = {
  pending: [{ event: 'enqueue' }],
  running: [{ event: 'enqueue', optional: true }, { event: 'run' }],
  success: [{ event: 'success' }],
  failed: [{ event: 'drop' }],
  canceled: [{ event: 'cancel' }],
};

export type CommitStatusChange = { to: Status; timestamps: JobTimestamps; failureReason: string | null } | { refused: string };

/** The change a reported state makes to a status now in `from` (`created` for a new one). */
export function commitStatusChange(from: Status, state: CommitStatusState, now: Date): CommitStatusChange {
  let status = from;
  const timestamps: JobTimestamps = {};
  for (const { event, optional } of EVENTS[state]) {
    const to = jobTransition(status, event);
    if (to === null) {
      if (optional) continue;
      return { refused: `Cannot transition status via :${event} from :${status} (Reason(s): Status cannot transition via "${event}")` };
    }
    Object.assign(timestamps, jobTransitionTimestamps(status, to, now));
    status = to;
  }
  return { to: status, timestamps, failureReason: status === 'failed' ? 'api_failure' : null };
}
