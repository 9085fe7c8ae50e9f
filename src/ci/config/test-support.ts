// Helpers shared by the compiler's tests: compile from text with a fake repository, seed with a
// default push context.
import { compileConfig } from './compile.ts';
import { CiConfigError, includeMessages } from './errors.ts';
import { seedPipeline } from './seed.ts';
import type { CompiledConfig, ConfigLimits, IncludeRef, PipelineSeed, SeedContext } from './types.ts';

export interface FakeRepository {
  /** Local files of the project. */
  files?: Record<string, string>;
  /** Other projects: path → file → text. */
  projects?: Record<string, Record<string, string>>;
  remote?: Record<string, string>;
}

export function fakeResolver(repository: FakeRepository, calls: IncludeRef[] = []) {
  return async (ref: IncludeRef): Promise<string> => {
    calls.push(ref);
    if (ref.type === 'local') {
      const files = ref.project ? repository.projects?.[ref.project] : repository.files;
      const text = files?.[ref.path];
      if (text === undefined) throw new CiConfigError(includeMessages.localMissing(ref.location));
      return text;
    }
    if (ref.type === 'project') {
      const project = repository.projects?.[ref.project];
      if (!project) throw new CiConfigError(includeMessages.projectNotFound(ref.project));
      const text = project[ref.file];
      if (text === undefined) throw new CiConfigError(includeMessages.projectFileMissing(ref.project, ref.file));
      return text;
    }
    if (ref.type === 'remote') {
      const text = repository.remote?.[ref.url];
      if (text === undefined) throw new CiConfigError(includeMessages.remoteHttpCode(ref.url, 404));
      return text;
    }
    throw new Error('templates are the compiler’s own');
  };
}

export function compile(content: string, repository: FakeRepository = {}, limits?: Partial<ConfigLimits>): Promise<CompiledConfig> {
  return compileConfig({ content, resolveInclude: fakeResolver(repository), limits });
}

/** The message of the CiConfigError `promise` rejects with. */
export async function errorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CiConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a configuration error');
}

export function pushContext(overrides: Partial<SeedContext> = {}): SeedContext {
  const ref = overrides.ref ?? 'main';
  const refType = overrides.refType ?? 'branch';
  const source = overrides.source ?? 'push';
  const variables: Record<string, string> = {
    CI_PIPELINE_SOURCE: source,
    CI_COMMIT_REF_NAME: ref,
    CI_DEFAULT_BRANCH: 'main',
    CI_PROJECT_PATH: 'group/project',
    ...(refType === 'branch' ? { CI_COMMIT_BRANCH: ref } : { CI_COMMIT_TAG: ref }),
    ...overrides.variables,
  };
  return {
    source,
    ref,
    refType,
    changedPaths: null,
    listPaths: async () => [],
    ...overrides,
    variables,
  };
}

export async function seed(content: string, overrides: Partial<SeedContext> = {}, repository: FakeRepository = {}): Promise<PipelineSeed> {
  return seedPipeline(await compile(content, repository), pushContext(overrides));
}

/** Job name → when, for the jobs a pipeline gets. */
export async function seededWhens(content: string, overrides: Partial<SeedContext> = {}): Promise<Record<string, string>> {
  const result = await seed(content, overrides);
  if (result.filteredOut) return {};
  return Object.fromEntries(result.jobs.map((job) => [job.name, job.when]));
}
