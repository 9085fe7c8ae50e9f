// seedPipeline: one compiled configuration + one pipeline's facts → the stages and jobs to create.
// workflow:rules first, then each job's rules or only/except, then parallel expansion, then needs
// checked against the jobs that made it (build/rules.rb, pipeline/seed/build.rb, chain/populate.rb).
import { PipelineFacts } from './conditions.ts';
import { parseDuration } from './duration.ts';
import { configError } from './errors.ts';
import { expandString } from './expand-string.ts';
import { resolveLimits } from './limits.ts';
import { expandParallel, type ParallelInstance } from './parallel.ts';
import { policyIncludes } from './policy-eval.ts';
import { evaluateRules } from './rules-eval.ts';
import type {
  CompiledConfig, CompiledJob, ConfigLimits, PipelineSeed, SeedContext, SeededJob, SeededNeed, YamlVariable,
} from './types.ts';

export const FILTERED_OUT_MESSAGE = 'Pipeline filtered out by workflow rules.';
export const NO_JOBS_MESSAGE = 'No stages / jobs for this pipeline.';

type Pairs = Array<[string, string]>;

/** Hash#merge: a key keeps its first position and takes the last value. */
function mergePairs(base: Pairs, over: Pairs): Pairs {
  const out = new Map(base);
  for (const [key, value] of over) out.set(key, value);
  return [...out];
}

function toYamlVariables(pairs: Pairs): YamlVariable[] {
  return pairs.map(([key, value]) => ({ key, value, public: true }));
}

export async function seedPipeline(
  config: CompiledConfig,
  context: SeedContext,
  limits?: Partial<ConfigLimits>,
): Promise<PipelineSeed> {
  const { maxJobs, maxNeeds } = resolveLimits(limits);
  const facts = new PipelineFacts(context);
  const warnings = [...config.warnings];

  let rootVariables: Pairs = config.variables.map((v) => [v.key, v.value]);
  let workflowVariables: Pairs = [];
  if (config.workflowRules) {
    const globals = { ...Object.fromEntries(rootVariables), ...context.variables };
    const result = await evaluateRules(config.workflowRules, 'always', facts, globals);
    if (result.when === 'never') return { filteredOut: true, message: FILTERED_OUT_MESSAGE };
    workflowVariables = Object.entries(result.variables);
    rootVariables = mergePairs(rootVariables, workflowVariables);
  }

  const seeded: SeededJob[] = [];
  for (const job of config.jobs) {
    const inherited = rootVariables.filter(([key]) =>
      job.inheritVariables === true ? true : job.inheritVariables === false ? false : job.inheritVariables.includes(key),
    );
    const jobPairs = mergePairs(inherited, job.variables.map((v) => [v.key, v.value]));
    const expressionVariables = { ...Object.fromEntries(jobPairs), ...context.variables };

    let when = job.when;
    let startIn = job.startIn;
    let allowFailure = job.allowFailure;
    let ruleVariables: Pairs = [];
    if (job.rules) {
      const result = await evaluateRules(job.rules, job.when, facts, expressionVariables);
      if (result.when === 'never') continue;
      when = result.when;
      startIn = result.startIn ?? (when === 'delayed' ? job.startIn : null);
      if (result.allowFailure !== null) allowFailure = result.allowFailure;
      ruleVariables = Object.entries(result.variables);
    } else if (!policyIncludes(job.only, job.except, facts, expressionVariables)) {
      continue;
    }

    const instances: Array<ParallelInstance | null> = expandParallel(job.name, job.parallel) ?? [null];
    for (const instance of instances) {
      if (seeded.length >= maxJobs) {
        const total = seeded.length + instances.length;
        configError(`Pipeline has too many jobs! Requested ${total}, but the limit is ${maxJobs}.`);
      }
      const pairs = mergePairs(mergePairs(jobPairs, instance?.variables ?? []), ruleVariables);
      seeded.push(seedJob(job, instance, { when, startIn, allowFailure }, pairs, context));
    }
  }

  resolveNeeds(seeded, config, maxNeeds);
  const withJobs = new Set(seeded.map((job) => job.stageIdx));
  // No job to run is no error of the configuration: no pipeline is made, none saved (Chain::Populate).
  if (seeded.length === 0 || seeded.every((job) => job.stage === '.pre' || job.stage === '.post')) {
    return { filteredOut: true, message: NO_JOBS_MESSAGE };
  }
  seeded.sort((a, b) => a.stageIdx - b.stageIdx);
  const stages = config.stages
    .map((name, index) => ({ name, index }))
    .filter((stage) => withJobs.has(stage.index));
  return { filteredOut: false, stages, jobs: seeded, workflowVariables: toYamlVariables(workflowVariables), warnings };
}

function seedJob(
  job: CompiledJob,
  instance: ParallelInstance | null,
  decided: { when: string; startIn: string | null; allowFailure: boolean },
  pairs: Pairs,
  context: SeedContext,
): SeededJob {
  const variables = { ...Object.fromEntries(pairs), ...context.variables };
  const lookup = (name: string) => variables[name];
  const startSeconds = decided.when === 'delayed' && decided.startIn !== null ? parseDuration(decided.startIn) : null;
  const environmentName = job.environment ? expandString(job.environment.name, lookup, false) : null;
  const resourceGroup = job.resourceGroup === null ? null : expandString(job.resourceGroup, lookup, false);
  const parallelVariables: YamlVariable[] = instance
    ? [
        { key: 'CI_NODE_INDEX', value: String(instance.index), public: true },
        { key: 'CI_NODE_TOTAL', value: String(instance.total), public: true },
      ]
    : [];
  return {
    name: instance?.name ?? job.name,
    baseName: job.name,
    stage: job.stage,
    stageIdx: job.stageIdx,
    when: decided.when as SeededJob['when'],
    startIn: typeof startSeconds === 'number' ? startSeconds : null,
    allowFailure: decided.allowFailure,
    allowFailureExitCodes: job.allowFailureExitCodes,
    schedulingType: job.needs !== null ? 'dag' : 'stage',
    needs: job.needs ? job.needs.map((need) => ({ ...need })) : null,
    dependencies: job.dependencies ? [...job.dependencies] : null,
    yamlVariables: toYamlVariables(pairs),
    parallelVariables,
    options: buildOptions(job, instance, decided.startIn),
    tags: job.tags ?? [],
    resourceGroup,
    environment: environmentName,
    interruptible: job.interruptible,
    trigger: job.trigger,
    coverageRegex: job.coverage,
  };
}

/** The platform's build options (yaml_processor build_attributes), absent keys left out. */
function buildOptions(job: CompiledJob, instance: ParallelInstance | null, startIn: string | null): Record<string, unknown> {
  const options: Record<string, unknown> = {
    image: job.image,
    services: job.services,
    allow_failure_criteria: job.allowFailureExitCodes ? { exit_codes: job.allowFailureExitCodes } : null,
    artifacts: job.artifacts,
    cache: job.cache,
    dependencies: job.dependencies,
    cross_dependencies: job.crossNeeds.length > 0 ? job.crossNeeds : null,
    job_timeout: job.timeout,
    before_script: job.beforeScript,
    script: job.script,
    after_script: job.afterScript,
    environment: job.environment,
    resource_group_key: job.resourceGroup,
    retry: job.retry,
    parallel: instance ? { total: instance.total } : null,
    instance: instance?.index ?? null,
    start_in: startIn,
    trigger: job.trigger,
    release: job.release,
    coverage: job.coverage,
    interruptible: job.interruptible,
  };
  return JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== null && v !== undefined))));
}

/**
 * Needs name jobs; a parallel job's base name means all its instances. A need whose job did not
 * make it into the pipeline is dropped when optional and an error otherwise.
 */
function resolveNeeds(seeded: SeededJob[], config: CompiledConfig, maxNeeds: number): void {
  const present = new Set(seeded.map((job) => job.name));
  const instancesOf = new Map<string, string[]>();
  for (const job of config.jobs) {
    const names = expandParallel(job.name, job.parallel)?.map((instance) => instance.name);
    if (names) instancesOf.set(job.name, names);
  }
  const expand = (name: string) => instancesOf.get(name) ?? [name];
  for (const job of seeded) {
    if (job.dependencies) {
      job.dependencies = job.dependencies.flatMap(expand);
      job.options.dependencies = job.dependencies;
    }
    if (!job.needs) continue;
    const needs: SeededNeed[] = job.needs.flatMap((need) => expand(need.name).map((name) => ({ ...need, name })));
    if (needs.length > maxNeeds) {
      configError(
        `${job.name}: one job can only need ${maxNeeds} others, but you have listed ${needs.length}. See needs keyword documentation for more details`,
      );
    }
    job.needs = needs.filter((need) => {
      if (present.has(need.name)) return true;
      if (need.optional) return false;
      configError(`'${job.name}' job needs '${need.name}' job, but '${need.name}' is not in any previous stage`);
    });
  }
}
