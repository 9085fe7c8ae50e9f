// Vulnerabilities (spec Part 1 §2.14, §2.15, §4.9, §4.10) and dependencies (§2.16, §4.11): the
// entities and the parameters of their routes. The list form (also a creation's answer) carries
// the project's identity and the finding as its stored row; the single form (one vulnerability,
// and the actions' answers) is the spec's, with `closed_by_id`/`closed_at` for a dismissal.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { CONFIDENCES, SEVERITIES } from '../../ci/reports/security.ts';
import { ProjectIdentityEntity } from '../projects/projects.schemas.ts';

/** The states as the API shows them: a dismissed vulnerability reads `closed` (spec §3). */
export const VULNERABILITY_STATES = ['opened', 'detected', 'confirmed', 'resolved', 'closed'] as const;
export const REPORT_TYPES = ['sast', 'dependency_scanning', 'container_scanning', 'dast', 'secret_detection', 'coverage_fuzzing', 'api_fuzzing', 'cluster_image_scanning'] as const;
export const PACKAGE_MANAGERS = ['bundler', 'composer', 'conan', 'maven', 'npm', 'pip', 'yarn'] as const;

const Severity = Literals(SEVERITIES);
const Confidence = Literals(CONFIDENCES);
const ReportType = Literals(REPORT_TYPES);
const UserId = Nullable(Type.Integer());
const NullableTime = Nullable(Timestamp);

/** The finding as its row (vulnerability_occurrences), as the platform exposes it without an entity. */
export const FindingEntity = Entity({
  id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  severity: Severity,
  confidence: Confidence,
  report_type: ReportType,
  project_id: Type.Integer(),
  scanner_id: Type.Integer(),
  primary_identifier_id: Type.Integer(),
  project_fingerprint: Type.String(),
  location_fingerprint: Type.String(),
  uuid: Type.String(),
  name: Type.String(),
  metadata_version: Type.String(),
  /** The report's item serialized as JSON text. */
  raw_metadata: Type.String(),
  vulnerability_id: Nullable(Type.Integer()),
});
export type Finding = Static<typeof FindingEntity>;

/** What both forms show first: the vulnerability itself. */
const vulnerabilityFields = {
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Literals(VULNERABILITY_STATES),
  severity: Severity,
  confidence: Confidence,
  report_type: ReportType,
};
const dates = { start_date: Nullable(Type.String()), due_date: Nullable(Type.String()), created_at: Timestamp, updated_at: Timestamp, last_edited_at: NullableTime };
const editors = { author_id: UserId, updated_by_id: UserId, last_edited_by_id: UserId };

/** The list form (§2.14). */
export const VulnerabilityEntity = Entity({
  ...vulnerabilityFields,
  project: ProjectIdentityEntity,
  finding: Nullable(FindingEntity),
  ...editors,
  resolved_by_id: UserId,
  dismissed_by_id: UserId,
  ...dates,
  resolved_at: NullableTime,
  dismissed_at: NullableTime,
  resolved_on_default_branch: Type.Boolean(),
  project_default_branch: Nullable(Type.String()),
});
export type Vulnerability = Static<typeof VulnerabilityEntity>;

/** The single form (§2.15). */
export const VulnerabilityDetailEntity = Entity({
  ...vulnerabilityFields,
  project: Entity({ id: Type.Integer(), name: Type.String(), full_path: Type.String(), full_name: Type.String() }),
  ...editors,
  closed_by_id: UserId,
  ...dates,
  closed_at: NullableTime,
});
export type VulnerabilityDetail = Static<typeof VulnerabilityDetailEntity>;

/** A dependency (§2.16); `vulnerabilities` only for callers who may read the security dashboard. */
export const DependencyEntity = Entity({
  name: Type.String(),
  version: Nullable(Type.String()),
  package_manager: Type.String(),
  dependency_file_path: Type.String(),
  vulnerabilities: Type.Optional(Type.Array(Entity({ name: Type.String(), severity: Severity }))),
});
export type Dependency = Static<typeof DependencyEntity>;

export const ProjectParams = Params({ id: IdOrPath });
export const VulnerabilityParams = Params({ id: Type.Integer() });
export const ListVulnerabilitiesQuery = Params({ ...PageParams });
export const CreateVulnerabilityQuery = Params({ finding_id: Type.Integer() });
export const ListDependenciesQuery = Params({ ...PageParams, package_manager: Type.Optional(CommaList(OneOf(PACKAGE_MANAGERS))) });
