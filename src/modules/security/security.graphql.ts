// A pipeline's security reports through GraphQL, where the platform (14.x) shows them to its
// clients: `project { pipeline(iid:) { securityReportSummary { sast { vulnerabilitiesCount
// scans { nodes { name status errors warnings } } } dependencyScanning { … } } } }`. A section is
// null when the pipeline has no scan of its type; a scan's errors say why its report could not be
// read (it then gave nothing), its warnings what was wrong with one that was read. The summary is
// the security dashboard's (Developers and up, null for anyone else); the pipeline is seen by
// whoever may read the project's pipelines.
import { GraphQLEnumType, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { CiPipelineRow } from '../../db/schema.ts';
import { loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { type ConnectionArgs, connectionArgs, connectionType, keysetConnection } from '../../graphql/connection.ts';
import type { GraphqlContext } from '../../graphql/context.ts';
import type { GraphqlContribution, GraphqlProject } from '../../graphql/contribution.ts';
import { globalId } from '../../graphql/ids.ts';
import { ciAbilities } from '../pipelines/index.ts';
import { type ScanWithName, countPipelineScans, findPipelineByIid, pipelineFindingCounts, pipelineScanTypes, pipelineScans } from './security-scans.finder.ts';
import { presentScanMessages } from './security-scans.presenter.ts';
import { REPORT_TYPES } from './vulnerabilities.schemas.ts';

interface PipelineNode {
  row: CiPipelineRow;
  project: GraphqlProject;
}

interface SummaryNode {
  pipelineId: number;
  scanTypes: Set<string>;
  findingCounts: Map<string, number>;
}

interface SectionNode {
  pipelineId: number;
  reportType: string;
  vulnerabilitiesCount: number;
}

const upper = (value: string) => value.toUpperCase();
const camel = (value: string) => value.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const PIPELINE_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'failed', 'success', 'canceled', 'skipped', 'manual', 'scheduled'];
const PipelineStatusType = new GraphQLEnumType({
  name: 'PipelineStatusEnum',
  values: Object.fromEntries(PIPELINE_STATUSES.map((s) => [upper(s), { value: s }])),
});

const SCAN_STATUSES = ['created', 'succeeded', 'job_failed', 'report_error', 'preparing', 'preparation_failed', 'purged'];
const ScanStatusType = new GraphQLEnumType({
  name: 'ScanStatusEnum',
  description: 'The status of the security scan.',
  values: Object.fromEntries(SCAN_STATUSES.map((s) => [upper(s), { value: s }])),
});

const ScanType = new GraphQLObjectType<ScanWithName, GraphqlContext>({
  name: 'Scan',
  description: 'Represents the security scan information',
  fields: {
    errors: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'List of errors.', resolve: (scan) => presentScanMessages(scan.errors) },
    name: { type: new GraphQLNonNull(GraphQLString), description: 'Name of the scan.', resolve: (scan) => scan.build_name },
    status: { type: new GraphQLNonNull(ScanStatusType), description: 'Indicates the status of the scan.', resolve: (scan) => scan.status },
    warnings: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'List of warnings.', resolve: (scan) => presentScanMessages(scan.warnings) },
  },
});

const SectionType = new GraphQLObjectType<SectionNode, GraphqlContext>({
  name: 'SecurityReportSummarySection',
  description: 'Represents a section of a summary of a security report',
  fields: () => ({
    vulnerabilitiesCount: { type: GraphQLInt, description: 'Total number of vulnerabilities.', resolve: (s) => s.vulnerabilitiesCount },
    scans: {
      type: new GraphQLNonNull(connectionType(ScanType)),
      description: 'List of security scans ran for the type.',
      args: connectionArgs,
      resolve: (s, args: ConnectionArgs, ctx) =>
        keysetConnection<ScanWithName>(
          {
            query: pipelineScans(ctx.deps.db, s.pipelineId, s.reportType),
            keys: [{ column: 'security_scans.id', direction: 'asc', value: (scan) => scan.id }],
            count: () => countPipelineScans(ctx.deps.db, s.pipelineId, s.reportType),
          },
          args,
        ),
    },
  }),
});

const SummaryType = new GraphQLObjectType<SummaryNode, GraphqlContext>({
  name: 'SecurityReportSummary',
  description: 'Represents summary of a security report',
  fields: Object.fromEntries(
    REPORT_TYPES.map((reportType) => [
      camel(reportType),
      {
        type: SectionType,
        description: `Aggregated counts for the \`${reportType}\` scan`,
        resolve: (summary: SummaryNode): SectionNode | null =>
          summary.scanTypes.has(reportType) ? { pipelineId: summary.pipelineId, reportType, vulnerabilitiesCount: summary.findingCounts.get(reportType) ?? 0 } : null,
      },
    ]),
  ),
});

const PipelineType = new GraphQLObjectType<PipelineNode, GraphqlContext>({
  name: 'Pipeline',
  fields: () => ({
    id: { type: new GraphQLNonNull(GraphQLID), description: 'ID of the pipeline.', resolve: (p) => globalId('Ci::Pipeline', p.row.id) },
    iid: { type: new GraphQLNonNull(GraphQLString), description: 'Internal ID of the pipeline.', resolve: (p) => String(p.row.iid) },
    sha: { type: new GraphQLNonNull(GraphQLString), description: 'SHA of the pipeline\'s commit.', resolve: (p) => p.row.sha },
    ref: { type: GraphQLString, description: 'Reference to the branch from which the pipeline was triggered.', resolve: (p) => p.row.ref },
    status: { type: new GraphQLNonNull(PipelineStatusType), description: 'Status of the pipeline.', resolve: (p) => p.row.status },
    securityReportSummary: {
      type: SummaryType,
      description: 'Vulnerability and scanned resource counts for each security scanner of the pipeline.',
      resolve: async (p, _args, ctx): Promise<SummaryNode | null> => {
        if (!p.project.can.has('read_security_resource')) return null;
        const [scanTypes, findingCounts] = await Promise.all([pipelineScanTypes(ctx.deps.db, p.row.id), pipelineFindingCounts(ctx.deps.db, p.row.id)]);
        return { pipelineId: p.row.id, scanTypes, findingCounts };
      },
    },
  }),
});

/** The project's pipeline with this iid, when the caller may read the project's pipelines; null otherwise. */
async function readablePipeline(project: GraphqlProject, iid: string, ctx: GraphqlContext): Promise<PipelineNode | null> {
  if (!/^\d{1,15}$/.test(iid)) return null;
  const [settings] = (await loadProjectSettings(ctx.deps.db, [project.row])).values();
  if (!ciAbilities(ctx.actor, project, settings).has('read_pipeline')) return null;
  const row = await findPipelineByIid(ctx.deps.db, project.row.id, Number(iid));
  return row ? { row, project } : null;
}

export const securityGraphql: GraphqlContribution = {
  projectFields: () => ({
    pipeline: {
      type: PipelineType,
      description: 'Build pipeline of the project.',
      args: { iid: { type: new GraphQLNonNull(GraphQLID), description: 'IID of the Pipeline. For example, "1".' } },
      resolve: (project, args: { iid: string }, ctx) => readablePipeline(project, args.iid, ctx),
    },
  }),
};
