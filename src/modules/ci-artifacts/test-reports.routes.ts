// A pipeline's test report and its summary (spec part 1 §2.6–2.7, notes gitlab-ci.md §4.5): the
// report parses the JUnit artifacts of the pipeline's latest jobs; the summary adds up the results
// each job's report left when it was uploaded.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { notFound } from '../../core/errors.ts';
import { type BuildReportResult, testReportJson, testReportSummaryJson } from '../../ci/reports/junit.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { loadCi } from '../pipelines/index.ts';
import { junitArtifacts, reportResults } from './artifacts.finder.ts';
import { PipelineReportParams, TestReportEntity, TestReportSummaryEntity } from './artifacts.schemas.ts';
import { pipelineTestReports } from './junit-results.ts';

const OPTIONAL = { auth: 'optional' } as const;

export const testReportRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const storage = artifactsStorage(config);

  async function requirePipeline(req: FastifyRequest, id: number): Promise<number> {
    const row = await db.selectFrom('ci_pipelines').select('id').where('id', '=', id).where('project_id', '=', loadedProject(req).row.id).executeTakeFirst();
    if (!row) throw notFound();
    return row.id;
  }

  api.get(
    '/projects/:id/pipelines/:pipeline_id/test_report',
    { schema: { params: PipelineReportParams, response: { 200: TestReportEntity } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req) => {
      const pipelineId = await requirePipeline(req, req.params.pipeline_id);
      const reports = await pipelineTestReports(storage, await junitArtifacts(db, pipelineId));
      return testReportJson(reports, { details: true });
    },
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id/test_report_summary',
    { schema: { params: PipelineReportParams, response: { 200: TestReportSummaryEntity } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req) => {
      const pipelineId = await requirePipeline(req, req.params.pipeline_id);
      const rows = await reportResults(db, pipelineId);
      return testReportSummaryJson(rows.map((r) => ({ buildId: r.build_id, data: JSON.parse(r.data) as BuildReportResult })));
    },
  );
};
