// The top level (entry/root.rb, entry/jobs.rb): reserved keys first, in the platform's order, then
// every other key as a job (hidden when its name starts with a dot), then the logical checks.
import { configError } from './errors.ts';
import { checkKeys, entryFail, humanize, isArrayOfStrings } from './entries/errors.ts';
import { compileDefaults, compileJob } from './entries/job.ts';
import { rules } from './entries/rules.ts';
import { variableDefinitions } from './entries/variables.ts';
import { checkJobs } from './logic.ts';
import type { CompiledConfig, CompiledJob, ConfigLimits } from './types.ts';
import { isHash } from './yaml-loader.ts';

export const RESERVED_KEYS = [
  'default', 'include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'types', 'cache',
  'workflow',
];
export const DEFAULT_STAGES = ['.pre', 'build', 'test', 'deploy', '.post'];

export function compileRoot(config: Record<string, unknown>, limits: ConfigLimits): Omit<CompiledConfig, 'mergedYaml'> {
  const warnings: string[] = [];
  const defaults = compileDefaults(config);
  const variables = variableDefinitions('variables', config.variables, true);
  const stages = stagesOf(config, warnings);
  const workflowRules = workflowRulesOf(config.workflow);

  const definitions = Object.entries(config).filter(([name]) => !RESERVED_KEYS.includes(name));
  const visible: Array<[string, Record<string, unknown>, boolean]> = [];
  for (const [name, value] of definitions) {
    if (name.startsWith('.')) continue;
    if (!isHash(value)) configError(`jobs ${humanize(name)} config should be a hash`.toLowerCase());
    const isJob = Object.hasOwn(value, 'script');
    if (!isJob && !Object.hasOwn(value, 'trigger')) {
      configError(`jobs ${humanize(name)} config should implement a script: or a trigger: keyword`.toLowerCase());
    }
    visible.push([name, value, !isJob]);
  }
  if (visible.length === 0) configError('jobs config should contain at least one visible job');
  if (visible.length > limits.maxJobs) {
    configError(`Pipeline has too many jobs! Requested ${visible.length}, but the limit is ${limits.maxJobs}.`);
  }

  const jobs: CompiledJob[] = visible.map(([name, value, bridge]) => {
    const job = compileJob(name, value, bridge, defaults, workflowRules !== null, warnings);
    return { ...job, stageIdx: stages.indexOf(job.stage) };
  });
  checkJobs(jobs, stages);
  return { stages, variables, workflowRules, jobs, warnings };
}

function stagesOf(config: Record<string, unknown>, warnings: string[]): string[] {
  const key = config.stages !== undefined && config.stages !== null ? 'stages' : config.types !== undefined && config.types !== null ? 'types' : null;
  if (key === 'types') warnings.push('root `types` is deprecated in 9.0 and will be removed in 15.0.');
  if (key === null) return [...DEFAULT_STAGES];
  const value = config[key];
  if (!isArrayOfStrings(value)) entryFail(key, 'config should be an array of strings');
  return value;
}

function workflowRulesOf(workflow: unknown) {
  if (workflow === undefined || workflow === null) return null;
  if (!isHash(workflow)) entryFail('workflow', 'config should be a hash');
  checkKeys('workflow', workflow, ['rules']);
  if (workflow.rules === undefined || workflow.rules === null) return null;
  return rules('workflow:rules', workflow.rules, true);
}

/** `.pre` first and `.post` last unless written elsewhere (EdgeStagesInjector). */
export function injectEdgeStages(config: Record<string, unknown>): Record<string, unknown> {
  const key = Object.hasOwn(config, 'stages') ? 'stages' : Object.hasOwn(config, 'types') ? 'types' : null;
  if (key === null) return config;
  const stages = config[key];
  if (!Array.isArray(stages) || stages.length === 0) return config;
  const patched = [...stages];
  if (!patched.includes('.pre')) patched.unshift('.pre');
  if (!patched.includes('.post')) patched.push('.post');
  return { ...config, [key]: patched };
}
