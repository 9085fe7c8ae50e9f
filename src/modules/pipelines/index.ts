// What the pipelines module offers other modules beyond its role files: waking the runners that
// wait for jobs, and the processing of a pipeline's jobs after a change.
export { onPendingBuilds, queueTick, wakeRunnerRequests, PENDING_BUILDS_CHANNEL } from './pending-builds.ts';
