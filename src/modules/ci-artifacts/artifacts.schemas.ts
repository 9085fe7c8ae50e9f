// Job artifacts and test reports (notes gitlab-ci.md §1.7, §4.5; spec part 1 §2.6–2.7).
import { Type } from '@sinclair/typebox';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

/** The platform's Ci::JobArtifact file types (14.x), the values `artifact_type` may take. */
export const ARTIFACT_TYPES = [
  'archive', 'metadata', 'trace', 'junit', 'sast', 'dependency_scanning', 'container_scanning', 'dast', 'codequality', 'license_management',
  'license_scanning', 'performance', 'metrics', 'metrics_referee', 'network_referee', 'lsif', 'dotenv', 'cobertura', 'terraform', 'accessibility',
  'cluster_applications', 'secret_detection', 'requirements', 'coverage_fuzzing', 'browser_performance', 'load_performance', 'api_fuzzing',
  'cluster_image_scanning',
] as const;
export const ARTIFACT_FORMATS = ['raw', 'zip', 'gzip'] as const;

export const RunnerJobParams = Params({ id: Type.Integer() });

/** Query of a runner's upload; older runners send the same as multipart fields. */
export const UploadQuery = Params({
  token: Type.Optional(Type.String()),
  artifact_type: Type.Optional(Type.String()),
  artifact_format: Type.Optional(Type.String()),
  expire_in: Type.Optional(Type.String()),
});

export const RunnerDownloadQuery = Params({ token: Type.Optional(Type.String()), direct_download: Type.Optional(Type.String()) });

export const JobArtifactsParams = Params({ id: IdOrPath, job_id: Type.Integer() });
export const ArtifactPathParams = Params({ id: IdOrPath, job_id: Type.Integer(), '*': Type.String() });
export const RefParams = Params({ id: IdOrPath, ref_name: Type.String({ minLength: 1 }) });
export const RefPathParams = Params({ id: IdOrPath, ref_name: Type.String({ minLength: 1 }), '*': Type.String() });
export const JobNameQuery = Params({ job: Type.String() });

export const PipelineReportParams = Params({ id: IdOrPath, pipeline_id: Type.Integer() });

const TestCaseEntity = Entity({
  status: Type.String(),
  name: Type.Unknown(),
  classname: Type.Unknown(),
  execution_time: Type.Number(),
  system_output: Type.Unknown(),
  stack_trace: Nullable(Type.String()),
});

/** The totals a report, a suite and a suite's summary each carry. */
const totals = {
  total_time: Type.Number(),
  total_count: Type.Integer(),
  success_count: Type.Integer(),
  failed_count: Type.Integer(),
  skipped_count: Type.Integer(),
  error_count: Type.Integer(),
};

const TestSuiteEntity = Entity({
  name: Type.String(),
  ...totals,
  // Always present in the API's report (its details mode).
  suite_error: Type.Optional(Nullable(Type.String())),
  test_cases: Type.Optional(Type.Array(TestCaseEntity)),
});

export const TestReportEntity = Entity({
  ...totals,
  test_suites: Type.Array(TestSuiteEntity),
});

export const TestReportSummaryEntity = Entity({
  total: Entity({
    time: Type.Number(),
    count: Type.Integer(),
    success: Type.Integer(),
    failed: Type.Integer(),
    skipped: Type.Integer(),
    error: Type.Integer(),
    suite_error: Nullable(Type.String()),
  }),
  test_suites: Type.Array(
    Entity({
      name: Type.String(),
      ...totals,
      build_ids: Type.Array(Type.Integer()),
      suite_error: Nullable(Type.String()),
    }),
  ),
});
