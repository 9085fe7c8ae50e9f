// Reads of a project's license policies, and of a pipeline's license scanning report artifacts.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, SoftwareLicensePolicyRow } from '../../db/schema.ts';

export function projectPolicies(db: Kysely<DB>, projectId: number): SelectQueryBuilder<DB, 'software_license_policies', SoftwareLicensePolicyRow> {
  return db.selectFrom('software_license_policies').selectAll().where('project_id', '=', projectId).orderBy('id');
}

/** A policy by its id (digits) or by its license's name, whatever its case (the platform's find_by_id_or_name). */
export async function findPolicy(db: Kysely<DB>, projectId: number, idOrName: string): Promise<SoftwareLicensePolicyRow | undefined> {
  if (/^\d+$/.test(idOrName)) {
    const id = Number(idOrName);
    return Number.isSafeInteger(id) ? projectPolicies(db, projectId).where('id', '=', id).executeTakeFirst() : undefined;
  }
  return projectPolicies(db, projectId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', idOrName.toLowerCase()))
    .executeTakeFirst();
}

/** The project's policies for these license names (any case), in one query. */
export function policiesNamed(db: Kysely<DB>, projectId: number, names: readonly string[]): Promise<SoftwareLicensePolicyRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return projectPolicies(db, projectId)
    .where((eb) => eb(eb.fn('lower', ['name']), 'in', [...new Set(names.map((n) => n.toLowerCase()))]))
    .execute();
}

/** A pipeline of the project; undefined when the project has no such pipeline. */
export function findProjectPipeline(db: Kysely<DB>, projectId: number, pipelineId: number) {
  return db.selectFrom('ci_pipelines').select(['id', 'project_id', 'status']).where('id', '=', pipelineId).where('project_id', '=', projectId).executeTakeFirst();
}

/** The license scanning report artifacts of the pipeline's current jobs. */
export function licenseReportArtifacts(db: Kysely<DB>, pipelineId: number) {
  return db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_job_artifacts.build_id')
    .select(['ci_job_artifacts.file_path', 'ci_job_artifacts.size'])
    .where('ci_builds.pipeline_id', '=', pipelineId)
    .where('ci_builds.retried', '=', false)
    .where('ci_job_artifacts.file_type', '=', 'license_scanning')
    .orderBy('ci_job_artifacts.build_id')
    .execute();
}
