// The security reports' background work: a completed pipeline's reports ingested (enqueued by
// pipeline processing with the pipeline's completion).
import { INGEST_SECURITY_REPORTS } from '../../jobs/security-work.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import { ingestPipelineReports } from './report-ingestion.service.ts';

export const ingestSecurityReportsJob = defineJobKind({ ...INGEST_SECURITY_REPORTS, run: (ctx, { pipelineId }, job) => ingestPipelineReports(ctx, pipelineId, job) });
