// Reads of a pipeline's security scans for its report summary: the pipeline by its iid, its scans
// of a report type (with the job's name, which names the scan), and the count of its distinct
// findings per report type, each in one query.
import type { Kysely } from 'kysely';
import type { CiPipelineRow, DB, SecurityScanRow } from '../../db/schema.ts';

export type ScanWithName = SecurityScanRow & { build_name: string };

export function findPipelineByIid(db: Kysely<DB>, projectId: number, iid: number): Promise<CiPipelineRow | undefined> {
  return db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
}

/** The report types the pipeline has scans of. */
export async function pipelineScanTypes(db: Kysely<DB>, pipelineId: number): Promise<Set<string>> {
  const rows = await db.selectFrom('security_scans').select('scan_type').distinct().where('pipeline_id', '=', pipelineId).execute();
  return new Set(rows.map((r) => r.scan_type));
}

/** The pipeline's scans of a report type with their job's name, unordered (the connection orders them). */
export function pipelineScans(db: Kysely<DB>, pipelineId: number, scanType: string) {
  return db
    .selectFrom('security_scans')
    .innerJoin('ci_builds', 'ci_builds.id', 'security_scans.build_id')
    .selectAll('security_scans')
    .select('ci_builds.name as build_name')
    .where('security_scans.pipeline_id', '=', pipelineId)
    .where('security_scans.scan_type', '=', scanType);
}

export async function countPipelineScans(db: Kysely<DB>, pipelineId: number, scanType: string): Promise<number> {
  const row = await db.selectFrom('security_scans').select((eb) => eb.fn.countAll<number | string>().as('n')).where('pipeline_id', '=', pipelineId).where('scan_type', '=', scanType).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The pipeline's findings per report type, a finding reported by two jobs counted once. */
export async function pipelineFindingCounts(db: Kysely<DB>, pipelineId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('security_findings')
    .select(['report_type', (eb) => eb.fn.count<number | string>('uuid').distinct().as('n')])
    .where('pipeline_id', '=', pipelineId)
    .groupBy('report_type')
    .execute();
  return new Map(rows.map((r) => [r.report_type, Number(r.n)]));
}
