// The public shapes of the .gitlab-ci.yml compiler: what goes in (content and callbacks), what comes
// out (a compiled configuration, then a pipeline seed). Pure data, no behaviour.

/** Where an `include:` entry points. The compiler resolves `template` itself. */
export type IncludeRef =
  /** `path` is repository-relative without a leading slash; `location` is the text as written, for messages. */
  | {
      type: 'local';
      path: string;
      location: string;
      /** Set when the including file came from another project: read the path there, at this ref. */
      project?: string;
      ref?: string | null;
    }
  | { type: 'project'; project: string; file: string; ref: string | null }
  | { type: 'remote'; url: string }
  | { type: 'template'; name: string }
  /** A file of the archive of a job of the parent pipeline (child pipelines only). */
  | { type: 'artifact'; path: string; job: string };

export interface ConfigLimits {
  /** Bytes of one file's text, and the parsed size estimate (the platform's max_yaml_size_bytes). */
  maxYamlSizeBytes: number;
  /** Nesting depth of the parsed YAML (max_yaml_depth). */
  maxYamlDepth: number;
  /** Aliases expanded per document, weighted by what they expand to (the `yaml` package's guard). */
  maxAliasCount: number;
  /** Included files in total, nested ones counted. */
  maxIncludes: number;
  /** Levels of `extends`. */
  maxExtendsDepth: number;
  /** Levels of `!reference` resolving another `!reference`. */
  maxReferenceDepth: number;
  /** Jobs in one configuration and in one pipeline (after `parallel`). */
  maxJobs: number;
  /** Entries of one job's `needs` (the platform's ci_needs_size_limit). */
  maxNeeds: number;
}

export interface CompileInput {
  /** The text of the configuration file. */
  content: string;
  /** Reads an included file; throws CiConfigError with the platform's message when missing or forbidden. */
  resolveInclude(ref: IncludeRef): Promise<string>;
  limits?: Partial<ConfigLimits>;
  /** Variables for `$VAR` in include locations and `include:rules` (predefined + project ones); none if absent. */
  variables?: Record<string, string>;
}

export interface VariableDefinition {
  key: string;
  value: string;
  /** The top-level `{value, description}` form's description. */
  description?: string;
}

export interface YamlVariable {
  key: string;
  value: string;
  public: true;
}

export interface Rule {
  if?: string;
  changes?: string[];
  exists?: string[];
  when?: string;
  start_in?: string;
  allow_failure?: boolean;
  variables?: Record<string, string>;
}

/** only/except in their hash form (the array form is `refs`). */
export interface Policy {
  refs?: string[];
  variables?: string[];
  changes?: string[];
  kubernetes?: string;
}

export interface Need {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

/** `needs:` entries that are not jobs of this pipeline (`project:` / `pipeline:`), kept as written. */
export interface CrossNeed {
  [key: string]: unknown;
}

export interface Image {
  name: string;
  entrypoint?: string[];
  ports?: unknown[];
}

export interface Service extends Image {
  alias?: string;
  command?: string[];
}

export interface Artifacts {
  name?: string;
  untracked?: boolean;
  paths?: string[];
  exclude?: string[];
  when?: string;
  expire_in?: string;
  expose_as?: string;
  public?: boolean;
  /** Report type → paths. */
  reports?: Record<string, string[]>;
}

export interface Cache {
  key: string | { files?: string[]; prefix?: string };
  paths?: string[];
  untracked?: boolean;
  policy: string;
  when: string;
}

export interface Retry {
  max: number;
  when: string[];
}

export interface Trigger {
  /** Multi-project: the downstream project's path. */
  project?: string;
  branch?: string;
  /** Child pipeline: the files its configuration is made of. */
  include?: Array<Record<string, string>>;
  strategy?: string;
  forward?: { yaml_variables?: boolean; pipeline_variables?: boolean };
}

export interface Environment {
  name: string;
  url?: string;
  action?: string;
  on_stop?: string;
  auto_stop_in?: string;
  deployment_tier?: string;
  kubernetes?: Record<string, unknown>;
}

export type Parallel = number | { matrix: Array<Record<string, string[]>> };

export interface CompiledJob {
  name: string;
  stage: string;
  /** Position of `stage` in CompiledConfig.stages. */
  stageIdx: number;
  /** true for a bridge (trigger job). */
  bridge: boolean;
  script: string[] | null;
  beforeScript: string[] | null;
  afterScript: string[] | null;
  image: Image | null;
  services: Service[] | null;
  /** The job's own YAML variables (after extends), in order; global ones are in CompiledConfig.variables. */
  variables: VariableDefinition[];
  /** Which global variables the job inherits: true (all), false (none) or a list of names. */
  inheritVariables: boolean | string[];
  rules: Rule[] | null;
  /** After the platform's default (`refs: [branches, tags]` when neither rules nor workflow:rules); null with rules. */
  only: Policy | null;
  except: Policy | null;
  /** The job-level `when` (default on_success). */
  when: string;
  startIn: string | null;
  /** The platform's static allow_failure: the keyword if set, else job-level `when: manual`. */
  allowFailure: boolean;
  /** Whether `allow_failure` was written (a rule's `when: manual` keeps allow_failure false unless it was). */
  allowFailureDefined: boolean;
  allowFailureExitCodes: number[] | null;
  needs: Need[] | null;
  crossNeeds: CrossNeed[];
  dependencies: string[] | null;
  artifacts: Artifacts | null;
  cache: Cache[] | null;
  tags: string[] | null;
  retry: Retry | null;
  /** Seconds, or null. */
  timeout: number | null;
  /** The coverage regular expression without its slashes. */
  coverage: string | null;
  parallel: Parallel | null;
  trigger: Trigger | null;
  environment: Environment | null;
  interruptible: boolean | null;
  resourceGroup: string | null;
  release: Record<string, unknown> | null;
  secrets: Record<string, unknown> | null;
}

export interface CompiledConfig {
  /** With `.pre` first and `.post` last. */
  stages: string[];
  variables: VariableDefinition[];
  workflowRules: Rule[] | null;
  /** Visible jobs only, in configuration order. */
  jobs: CompiledJob[];
  /** The configuration after includes, extends and !reference, as lint's merged_yaml. */
  mergedYaml: string;
  warnings: string[];
}

export interface SeedContext {
  /** Predefined + CI/CD + pipeline variables, for expressions. */
  variables: Record<string, string>;
  /** push, web, api, trigger, schedule, pipeline, parent_pipeline, external, chat, webide, merge_request_event… */
  source: string;
  ref: string;
  refType: 'branch' | 'tag';
  /** null: `changes` evaluate true, as the platform does without a diff. */
  changedPaths: string[] | null;
  /** All files of the commit, for `rules:exists`. */
  listPaths(): Promise<string[]>;
}

export interface SeededNeed {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

export interface SeededJob {
  name: string;
  stage: string;
  stageIdx: number;
  when: 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';
  /** Seconds for delayed jobs. */
  startIn: number | null;
  allowFailure: boolean;
  allowFailureExitCodes: number[] | null;
  schedulingType: 'stage' | 'dag';
  needs: SeededNeed[] | null;
  dependencies: string[] | null;
  /** Global (after inherit and workflow:rules:variables) + job + matrix + rules variables; the last writer wins in place. */
  yamlVariables: YamlVariable[];
  /** CI_NODE_INDEX / CI_NODE_TOTAL for parallel jobs (the platform adds them with the job's predefined variables). */
  parallelVariables: YamlVariable[];
  /** The platform's build options, as plain JSON (script, image, artifacts, …). */
  options: Record<string, unknown>;
  tags: string[];
  resourceGroup: string | null;
  environment: string | null;
  interruptible: boolean | null;
  trigger: Trigger | null;
  coverageRegex: string | null;
  /** The job's name before parallel expansion. */
  baseName: string;
}

export interface SeededStage {
  name: string;
  index: number;
}

export type PipelineSeed =
  | { filteredOut: true; message: string }
  | {
      filteredOut: false;
      stages: SeededStage[];
      jobs: SeededJob[];
      /** Variables set by the matching workflow rule. */
      workflowVariables: YamlVariable[];
      warnings: string[];
    };
