// The jobs a job depends on (the platform's Ci::BuildDependencies, local to its pipeline; notes
// gitlab-ci.md §1.4.1): the latest jobs of earlier stages, or with `needs` the needed jobs whose
// artifacts it asked for, narrowed by `dependencies:`. The runner downloads their artifacts, the
// job receives their dotenv variables, and a dependency whose artifacts are gone fails it.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiBuildRow, DB } from '../../db/schema.ts';
import type { CiVariable } from '../../ci/variables.ts';

export interface Dependency {
  id: number;
  name: string;
  artifacts_expire_at: string | null;
  erased_at: string | null;
}

export async function dependencyJobs(db: Kysely<DB>, build: CiBuildRow): Promise<Dependency[]> {
  const listed = (JSON.parse(build.options) as { dependencies?: string[] | null }).dependencies ?? null;
  if (listed !== null && listed.length === 0) return [];
  const jobs = await db
    .selectFrom('ci_builds')
    .select(['id', 'name', 'stage_idx', 'artifacts_expire_at', 'erased_at'])
    .where('pipeline_id', '=', build.pipeline_id)
    .where('retried', '=', false)
    .where('type', '=', 'build')
    .where('id', '!=', build.id)
    .orderBy('id')
    .execute();
  let chosen = jobs.filter((j) => build.scheduling_type === 'dag' || j.stage_idx < build.stage_idx);
  if (build.scheduling_type === 'dag') {
    const needs = (JSON.parse(build.needs ?? '[]') as { name: string; artifacts?: boolean }[]).filter((n) => n.artifacts !== false).map((n) => n.name);
    chosen = chosen.filter((j) => needs.includes(j.name));
  }
  if (listed !== null) chosen = chosen.filter((j) => listed.includes(j.name));
  return chosen.map(({ stage_idx: _stage, ...dependency }) => dependency);
}

/**
 * Whether every dependency can still hand over its artifacts (valid_dependency?): not erased, and
 * not past its artifacts' expiry unless the pipeline keeps them (locked). A dependency that made
 * no artifacts has no expiry, so only its erasure counts.
 */
export function dependenciesValid(dependencies: readonly Dependency[], pipelineLocked: boolean, now: Date): boolean {
  const at = now.toISOString();
  return dependencies.every((d) => d.erased_at === null && (pipelineLocked || d.artifacts_expire_at === null || d.artifacts_expire_at > at));
}

/** The variables of the dependencies' dotenv reports, in the order they were stored (dependency_variables). */
export async function dependencyVariables(db: Kysely<DB>, box: SecretBox, dependencies: readonly Dependency[]): Promise<CiVariable[]> {
  if (dependencies.length === 0) return [];
  const rows = await db
    .selectFrom('ci_job_variables')
    .select(['key', 'value_encrypted'])
    .where('job_id', 'in', dependencies.map((d) => d.id))
    .where('source', '=', 'dotenv')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ key: r.key, value: box.open(r.value_encrypted), public: false, masked: false }));
}
