// Reads of vulnerabilities, their findings and the dependency list. A page of vulnerabilities
// loads its findings and projects in one query each; the dependency list is the latest
// default-branch dependency scan's, paged in the database, with the findings of its page's files.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, SecurityDependencyRow, VulnerabilityOccurrenceRow, VulnerabilityRow } from '../../db/schema.ts';
import type { DependencyFinding, VulnerabilityProject, VulnerabilityView } from './vulnerabilities.presenter.ts';

/** The project's vulnerabilities, most severe first, then oldest first. */
export function projectVulnerabilities(db: Kysely<DB>, projectId: number): SelectQueryBuilder<DB, 'vulnerabilities', VulnerabilityRow> {
  return db.selectFrom('vulnerabilities').selectAll().where('project_id', '=', projectId).orderBy('severity_level', 'desc').orderBy('id', 'asc');
}

export function findVulnerability(db: Kysely<DB>, id: number): Promise<VulnerabilityRow | undefined> {
  return db.selectFrom('vulnerabilities').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A finding of the project; undefined when the project has none with this id. */
export function findProjectFinding(db: Kysely<DB>, projectId: number, findingId: number): Promise<VulnerabilityOccurrenceRow | undefined> {
  return db.selectFrom('vulnerability_occurrences').selectAll().where('id', '=', findingId).where('project_id', '=', projectId).executeTakeFirst();
}

const PROJECT_COLUMNS = ['id', 'description', 'name', 'name_with_namespace', 'path', 'full_path', 'created_at', 'default_branch'] as const;

/** The findings and projects these vulnerabilities show. */
export async function loadVulnerabilityView(db: Kysely<DB>, rows: readonly VulnerabilityRow[]): Promise<VulnerabilityView> {
  const ids = rows.map((r) => r.id);
  const projectIds = [...new Set(rows.map((r) => r.project_id))];
  const [findings, projects] = await Promise.all([
    ids.length === 0 ? [] : db.selectFrom('vulnerability_occurrences').selectAll().where('vulnerability_id', 'in', ids).orderBy('id').execute(),
    projectIds.length === 0 ? [] : db.selectFrom('projects').select(PROJECT_COLUMNS).where('id', 'in', projectIds).execute(),
  ]);
  const byVulnerability = new Map<number, VulnerabilityOccurrenceRow>();
  for (const f of findings) if (f.vulnerability_id !== null && !byVulnerability.has(f.vulnerability_id)) byVulnerability.set(f.vulnerability_id, f);
  return { findings: byVulnerability, projects: new Map<number, VulnerabilityProject>(projects.map((p) => [p.id, p])) };
}

/** The latest default-branch pipeline of the project with a dependency scan that could be read; null when none. */
export async function latestDependencyPipeline(db: Kysely<DB>, projectId: number): Promise<number | null> {
  const row = await db
    .selectFrom('security_scans')
    .select('pipeline_id')
    .where('project_id', '=', projectId)
    .where('scan_type', '=', 'dependency_scanning')
    .where('default_branch', '=', true)
    .where('status', '=', 'succeeded')
    .orderBy('pipeline_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.pipeline_id ?? null;
}

/** The pipeline's dependencies, by name (then file, then as found), of these package managers when given. */
export function pipelineDependencies(db: Kysely<DB>, pipelineId: number, packageManagers: readonly string[] | undefined): SelectQueryBuilder<DB, 'security_dependencies', SecurityDependencyRow> {
  return db
    .selectFrom('security_dependencies')
    .selectAll()
    .where('pipeline_id', '=', pipelineId)
    .$if(packageManagers !== undefined, (q) => q.where('package_manager', 'in', packageManagers as string[]))
    .orderBy('name')
    .orderBy('file_path')
    .orderBy('id');
}

/** The dependency scanning findings of the pipeline in these files. */
export async function dependencyFindings(db: Kysely<DB>, pipelineId: number, files: readonly string[]): Promise<DependencyFinding[]> {
  if (files.length === 0) return [];
  return db
    .selectFrom('security_findings')
    .innerJoin('security_scans', 'security_scans.id', 'security_findings.scan_id')
    .select(['security_findings.name', 'security_findings.severity', 'security_findings.location_file', 'security_findings.package_name'])
    .where('security_scans.pipeline_id', '=', pipelineId)
    .where('security_scans.scan_type', '=', 'dependency_scanning')
    .where('security_findings.location_file', 'in', [...new Set(files)])
    .orderBy('security_findings.id')
    .execute();
}
