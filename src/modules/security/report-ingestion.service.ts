// Ingesting a completed pipeline's security reports (notes gitlab-ci.md §6.2): every sast and
// dependency_scanning artifact of its jobs becomes a scan, with its findings and dependency list,
// kept per pipeline (a report that cannot be read is a scan with its errors, one read despite
// problems a scan with its warnings: security-summary.ts shows both). On the default
// branch, the findings of the newest pipeline for a report type also become the project's lasting
// findings (one per UUID, updated when found again), each new one with a vulnerability in the
// `detected` state, and the project's vulnerabilities of that type are marked resolved on the
// default branch when their finding is no longer reported, unmarked when it comes back. Runs as
// background work; running it again for a pipeline gives the same result.
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { DB } from '../../db/schema.ts';
import { type ParsedSecurityReport, type ReportFinding, SEVERITY_LEVEL, type SecurityReportType, parseSecurityReport, parsingError } from '../../ci/reports/security.ts';
import { INGESTED_REPORT_TYPES } from '../../jobs/security-work.ts';
import type { RunningJob } from '../../jobs/queue.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';

/** Reports larger than this are not read (an error of their scan). */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/** Rows per statement, well within both databases' limits on parameters. */
const CHUNK = 200;

const chunks = <T>(items: readonly T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

interface Scan {
  buildId: number;
  type: SecurityReportType;
  report: ParsedSecurityReport;
}

/** Whether the job asked for its reports to be validated against their schema (the platform's `VALIDATE_SCHEMA`). */
function validatesSchema(yamlVariables: string): boolean {
  try {
    const variables = JSON.parse(yamlVariables) as { key?: unknown; value?: unknown }[];
    return Array.isArray(variables) && variables.some((v) => v?.key === 'VALIDATE_SCHEMA' && typeof v.value === 'string' && v.value.toLowerCase() === 'true');
  } catch {
    return false;
  }
}

async function readScans(ctx: ServiceContext, pipelineId: number, projectId: number): Promise<Scan[]> {
  const artifacts = await ctx.db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_job_artifacts.build_id')
    .select(['ci_job_artifacts.build_id', 'ci_job_artifacts.file_type', 'ci_job_artifacts.file_path', 'ci_job_artifacts.size', 'ci_builds.yaml_variables'])
    .where('ci_builds.pipeline_id', '=', pipelineId)
    .where('ci_builds.retried', '=', false)
    .where('ci_job_artifacts.file_type', 'in', [...INGESTED_REPORT_TYPES])
    .orderBy('ci_job_artifacts.build_id')
    .execute();
  const storage = artifactsStorage(ctx.config);
  const scans: Scan[] = [];
  for (const artifact of artifacts) {
    const type = artifact.file_type as SecurityReportType;
    let report: ParsedSecurityReport;
    const unread = (message: string): ParsedSecurityReport => ({ findings: [], dependencies: [], errors: [parsingError(message)], warnings: [] });
    if (artifact.size > MAX_REPORT_BYTES) {
      report = unread(`Report is too large (${artifact.size} bytes; at most ${MAX_REPORT_BYTES})`);
    } else {
      try {
        report = parseSecurityReport(type, await storage.readAll(artifact.file_path), projectId, validatesSchema(artifact.yaml_variables));
      } catch {
        // The storage's words name paths, which clients are not shown.
        report = unread('Report could not be read');
      }
    }
    scans.push({ buildId: artifact.build_id, type, report });
  }
  return scans;
}

export async function ingestPipelineReports(ctx: ServiceContext, pipelineId: number, job: RunningJob | null): Promise<void> {
  const pipeline = await ctx.db.selectFrom('ci_pipelines').select(['id', 'project_id', 'ref', 'tag', 'user_id']).where('id', '=', pipelineId).executeTakeFirst();
  const project = pipeline && (await ctx.db.selectFrom('projects').select(['id', 'default_branch']).where('id', '=', pipeline.project_id).executeTakeFirst());
  const scans = pipeline && project ? await readScans(ctx, pipeline.id, project.id) : [];
  await withTransaction(ctx, async (tx) => {
    if (pipeline && project) {
      const defaultBranch = !pipeline.tag && pipeline.ref === project.default_branch;
      const now = tx.now().toISOString();
      await tx.db.deleteFrom('security_scans').where('pipeline_id', '=', pipeline.id).execute();
      for (const scan of scans) await storeScan(tx.db, { projectId: project.id, pipelineId: pipeline.id, defaultBranch, now }, scan);
      if (defaultBranch) {
        for (const type of INGESTED_REPORT_TYPES) {
          const ofType = scans.filter((s) => s.type === type);
          if (ofType.length === 0 || (await newerDefaultBranchScan(tx.db, project.id, pipeline.id, type))) continue;
          const findings = ofType.flatMap((s) => s.report.findings);
          await storeFindings(tx.db, { projectId: project.id, authorId: pipeline.user_id, now }, findings);
          // A report that could not be read says nothing of what is gone.
          if (ofType.every((s) => s.report.errors.length === 0)) await markResolved(tx.db, project.id, type, findings);
        }
      }
    }
    await job?.complete(tx.db);
  });
}

async function storeScan(db: Kysely<DB>, at: { projectId: number; pipelineId: number; defaultBranch: boolean; now: string }, scan: Scan): Promise<void> {
  const { id: scanId } = await db
    .insertInto('security_scans')
    .values({
      project_id: at.projectId,
      pipeline_id: at.pipelineId,
      build_id: scan.buildId,
      scan_type: scan.type,
      status: scan.report.errors.length === 0 ? 'succeeded' : 'report_error',
      errors: JSON.stringify(scan.report.errors),
      warnings: JSON.stringify(scan.report.warnings),
      default_branch: at.defaultBranch,
      created_at: at.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const base = { scan_id: scanId, project_id: at.projectId, pipeline_id: at.pipelineId };
  for (const part of chunks(scan.report.findings)) {
    await db
      .insertInto('security_findings')
      .values(part.map((f) => ({ ...base, uuid: f.uuid, report_type: f.reportType, severity: f.severity, confidence: f.confidence, name: f.name, location_file: f.locationFile, package_name: f.packageName })))
      .execute();
  }
  for (const part of chunks(scan.report.dependencies)) {
    await db
      .insertInto('security_dependencies')
      .values(part.map((d) => ({ ...base, name: d.name, version: d.version, package_manager: d.packageManager, file_path: d.filePath })))
      .execute();
  }
}

/** Whether a later default-branch pipeline's reports of this type were ingested already (this one is then outdated). */
async function newerDefaultBranchScan(db: Kysely<DB>, projectId: number, pipelineId: number, type: SecurityReportType): Promise<boolean> {
  const newer = await db
    .selectFrom('security_scans')
    .select('id')
    .where('project_id', '=', projectId)
    .where('scan_type', '=', type)
    .where('default_branch', '=', true)
    .where('pipeline_id', '>', pipelineId)
    .limit(1)
    .executeTakeFirst();
  return newer !== undefined;
}

/** The ids of the project's scanners (by external id), created when missing. */
async function scannerIds(db: Kysely<DB>, projectId: number, findings: readonly ReportFinding[], now: string): Promise<Map<string, number>> {
  const wanted = new Map(findings.map((f) => [f.scanner.externalId, f.scanner]));
  if (wanted.size === 0) return new Map();
  await db
    .insertInto('vulnerability_scanners')
    .values([...wanted.values()].map((s) => ({ project_id: projectId, external_id: s.externalId, name: s.name, vendor: s.vendor, created_at: now, updated_at: now })))
    .onConflict((oc) => oc.columns(['project_id', 'external_id']).doNothing())
    .execute();
  const rows = await db.selectFrom('vulnerability_scanners').select(['id', 'external_id']).where('project_id', '=', projectId).where('external_id', 'in', [...wanted.keys()]).execute();
  return new Map(rows.map((r) => [r.external_id, r.id]));
}

/** The ids of the project's identifiers (by fingerprint), created when missing. */
async function identifierIds(db: Kysely<DB>, projectId: number, findings: readonly ReportFinding[], now: string): Promise<Map<string, number>> {
  const wanted = new Map(findings.flatMap((f) => f.identifiers).map((i) => [i.fingerprint, i]));
  const ids = new Map<string, number>();
  for (const part of chunks([...wanted.values()])) {
    await db
      .insertInto('vulnerability_identifiers')
      .values(part.map((i) => ({ project_id: projectId, fingerprint: i.fingerprint, external_type: i.externalType, external_id: i.externalId, name: i.name, url: i.url, created_at: now, updated_at: now })))
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doNothing())
      .execute();
    const rows = await db.selectFrom('vulnerability_identifiers').select(['id', 'fingerprint']).where('project_id', '=', projectId).where('fingerprint', 'in', part.map((i) => i.fingerprint)).execute();
    for (const r of rows) ids.set(r.fingerprint, r.id);
  }
  return ids;
}

/** The findings as the project's lasting findings: new ones inserted with a vulnerability each, known ones brought up to date. */
async function storeFindings(db: Kysely<DB>, at: { projectId: number; authorId: number | null; now: string }, findings: readonly ReportFinding[]): Promise<void> {
  if (findings.length === 0) return;
  const scanners = await scannerIds(db, at.projectId, findings, at.now);
  const identifiers = await identifierIds(db, at.projectId, findings, at.now);
  for (const part of chunks(findings)) {
    const known = await db.selectFrom('vulnerability_occurrences').select(['id', 'uuid', 'vulnerability_id']).where('uuid', 'in', part.map((f) => f.uuid)).execute();
    const byUuid = new Map(known.map((k) => [k.uuid, k]));
    for (const finding of part) {
      const columns = {
        scanner_id: scanners.get(finding.scanner.externalId) as number,
        primary_identifier_id: identifiers.get(finding.identifiers[0].fingerprint) as number,
        report_type: finding.reportType,
        severity: finding.severity,
        confidence: finding.confidence,
        name: finding.name,
        description: finding.description,
        project_fingerprint: finding.projectFingerprint,
        location_fingerprint: finding.locationFingerprint,
        metadata_version: finding.metadataVersion,
        raw_metadata: finding.rawMetadata,
        updated_at: at.now,
      };
      const existing = byUuid.get(finding.uuid);
      let occurrenceId: number;
      let vulnerabilityId: number | null;
      if (existing) {
        await db.updateTable('vulnerability_occurrences').set(columns).where('id', '=', existing.id).execute();
        occurrenceId = existing.id;
        vulnerabilityId = existing.vulnerability_id;
      } else {
        const inserted = await db
          .insertInto('vulnerability_occurrences')
          .values({ ...columns, project_id: at.projectId, uuid: finding.uuid, vulnerability_id: null, created_at: at.now })
          .returning('id')
          .executeTakeFirstOrThrow();
        occurrenceId = inserted.id;
        vulnerabilityId = null;
      }
      if (vulnerabilityId === null) {
        const vulnerability = await db
          .insertInto('vulnerabilities')
          .values({
            project_id: at.projectId,
            author_id: at.authorId,
            title: finding.name.slice(0, 255),
            description: finding.description,
            state: 'detected',
            severity: finding.severity,
            severity_level: SEVERITY_LEVEL[finding.severity],
            confidence: finding.confidence,
            report_type: finding.reportType,
            created_at: at.now,
            updated_at: at.now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db.updateTable('vulnerability_occurrences').set({ vulnerability_id: vulnerability.id }).where('id', '=', occurrenceId).execute();
      }
    }
  }
}

/** Vulnerabilities of the type whose finding the report no longer has are resolved on the default branch; the others are not. */
async function markResolved(db: Kysely<DB>, projectId: number, type: SecurityReportType, findings: readonly ReportFinding[]): Promise<void> {
  const ofType = (flag: boolean) =>
    db
      .updateTable('vulnerabilities')
      .set({ resolved_on_default_branch: flag })
      .where('project_id', '=', projectId)
      .where('report_type', '=', type)
      .where('id', 'in', (eb) => eb.selectFrom('vulnerability_occurrences').select('vulnerability_id').where('project_id', '=', projectId).where('report_type', '=', type).where('vulnerability_id', 'is not', null));
  await ofType(true).execute();
  for (const part of chunks(findings.map((f) => f.uuid))) {
    await db
      .updateTable('vulnerabilities')
      .set({ resolved_on_default_branch: false })
      .where('id', 'in', (eb) => eb.selectFrom('vulnerability_occurrences').select('vulnerability_id').where('uuid', 'in', part).where('vulnerability_id', 'is not', null))
      .execute();
  }
}
