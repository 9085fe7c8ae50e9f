// What the pipelines module offers other modules beyond its role files: waking the runners that
// wait for jobs, who may do what with CI, processing a pipeline after a change of its jobs, and the
// CI/CD variables that reach a pipeline's jobs.
export { onPendingBuilds, queueTick, wakeRunnerRequests, PENDING_BUILDS_CHANNEL } from './pending-builds.ts';
export { type CiAbility, ciAbilities } from './ci-abilities.ts';
export { loadCi, loadedCi } from './ci-loader.ts';
export { processLater, processManyLater } from './pipeline-work.ts';
export { processInTransaction } from './processing.ts';
export { DEFAULT_CONFIG_PATH, includeResolver, readPipelineConfig } from './pipeline-config.ts';
export { type ScopedVariable, scopeCovers, variablesForEnvironment, variablesForProject } from './reaching-variables.ts';
export { pipelineRefusal } from './run-permission.ts';
export { pipelineMergeRequests, predefinedProjectVariables } from './project-variables.ts';
