// Pure row → entity functions for vulnerabilities, their findings and dependencies.
import type { ProjectRow, SecurityDependencyRow, VulnerabilityOccurrenceRow, VulnerabilityRow } from '../../db/schema.ts';
import type { Severity } from '../../ci/reports/security.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import type { Dependency, Finding, Vulnerability, VulnerabilityDetail } from './vulnerabilities.schemas.ts';

export type VulnerabilityProject = Pick<ProjectRow, 'id' | 'description' | 'name' | 'name_with_namespace' | 'path' | 'full_path' | 'created_at' | 'default_branch'>;

export interface VulnerabilityView {
  findings: ReadonlyMap<number, VulnerabilityOccurrenceRow>;
  projects: ReadonlyMap<number, VulnerabilityProject>;
}

export interface DependencyFinding {
  name: string;
  severity: string;
  location_file: string | null;
  package_name: string | null;
}

/** The stored state as the API shows it: a dismissed vulnerability reads `closed` (spec §3). */
const shownState = (state: string) => (state === 'dismissed' ? 'closed' : state) as Vulnerability['state'];

export function presentFinding(row: VulnerabilityOccurrenceRow): Finding {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    severity: row.severity as Finding['severity'],
    confidence: row.confidence as Finding['confidence'],
    report_type: row.report_type as Finding['report_type'],
    project_id: row.project_id,
    scanner_id: row.scanner_id,
    primary_identifier_id: row.primary_identifier_id,
    project_fingerprint: row.project_fingerprint,
    location_fingerprint: row.location_fingerprint,
    uuid: row.uuid,
    name: row.name,
    metadata_version: row.metadata_version,
    raw_metadata: row.raw_metadata,
    vulnerability_id: row.vulnerability_id,
  };
}

/** What both forms show of the row itself, and who and when. */
function vulnerabilityFields(row: VulnerabilityRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    state: shownState(row.state),
    severity: row.severity as Vulnerability['severity'],
    confidence: row.confidence as Vulnerability['confidence'],
    report_type: row.report_type as Vulnerability['report_type'],
  };
}
function editorsAndDates(row: VulnerabilityRow) {
  return {
    editors: { author_id: row.author_id, updated_by_id: row.updated_by_id, last_edited_by_id: row.last_edited_by_id },
    dates: { start_date: row.start_date, due_date: row.due_date, created_at: row.created_at, updated_at: row.updated_at, last_edited_at: row.last_edited_at },
  };
}

export function presentVulnerability(row: VulnerabilityRow, view: VulnerabilityView): Vulnerability {
  const project = view.projects.get(row.project_id) as VulnerabilityProject;
  const finding = view.findings.get(row.id);
  const { editors, dates } = editorsAndDates(row);
  return {
    ...vulnerabilityFields(row),
    project: presentProjectIdentity(project),
    finding: finding ? presentFinding(finding) : null,
    ...editors,
    resolved_by_id: row.resolved_by_id,
    dismissed_by_id: row.dismissed_by_id,
    ...dates,
    resolved_at: row.resolved_at,
    dismissed_at: row.dismissed_at,
    resolved_on_default_branch: row.resolved_on_default_branch,
    project_default_branch: project.default_branch,
  };
}

export function presentVulnerabilityDetail(row: VulnerabilityRow, project: Pick<ProjectRow, 'id' | 'name' | 'full_path' | 'name_with_namespace'>): VulnerabilityDetail {
  const { editors, dates } = editorsAndDates(row);
  return {
    ...vulnerabilityFields(row),
    project: { id: project.id, name: project.name, full_path: project.full_path, full_name: project.name_with_namespace },
    ...editors,
    closed_by_id: row.dismissed_by_id,
    ...dates,
    closed_at: row.dismissed_at,
  };
}

/** A dependency; its vulnerabilities (the findings on its file and package) only when `withVulnerabilities`. */
export function presentDependency(row: SecurityDependencyRow, findings: readonly DependencyFinding[], withVulnerabilities: boolean): Dependency {
  const dependency: Dependency = { name: row.name, version: row.version, package_manager: row.package_manager, dependency_file_path: row.file_path };
  if (withVulnerabilities) {
    dependency.vulnerabilities = findings
      .filter((f) => f.location_file === row.file_path && f.package_name === row.name)
      .map((f) => ({ name: f.name, severity: f.severity as Severity }));
  }
  return dependency;
}
