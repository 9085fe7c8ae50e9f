// Declarations of background work the vulnerabilities module runs, so that pipeline processing
// enqueues it without depending on that module: ingesting a completed pipeline's security reports
// (its findings, its dependency list, and on the default branch the project's vulnerabilities).
import { Type } from '@sinclair/typebox';
import type { JobDeclaration } from './queue.ts';

const IngestPayload = Type.Object({ pipelineId: Type.Integer() }, { additionalProperties: false });

export const INGEST_SECURITY_REPORTS: JobDeclaration<typeof IngestPayload> = { name: 'security.ingest_reports', payload: IngestPayload, maxAttempts: 5 };

/** The report artifacts ingested when a pipeline completes. */
export const INGESTED_REPORT_TYPES = ['sast', 'dependency_scanning'] as const;
