// The `artifacts` of a job payload (notes gitlab-ci.md §1.4.2): one archive entry for paths or
// untracked files, one entry per report type; `null` when the job declares none (§8.1).
const REPORT_FORMATS: Record<string, { format: string; name: string | null }> = {
  junit: { format: 'gzip', name: 'junit.xml' },
  dotenv: { format: 'gzip', name: '.env' },
  cobertura: { format: 'gzip', name: 'cobertura-coverage.xml' },
  sast: { format: 'raw', name: 'gl-sast-report.json' },
  dependency_scanning: { format: 'raw', name: 'gl-dependency-scanning-report.json' },
  license_scanning: { format: 'raw', name: 'gl-license-scanning-report.json' },
  container_scanning: { format: 'raw', name: 'gl-container-scanning-report.json' },
  dast: { format: 'raw', name: 'gl-dast-report.json' },
  secret_detection: { format: 'raw', name: 'gl-secret-detection-report.json' },
  codequality: { format: 'raw', name: 'gl-code-quality-report.json' },
  accessibility: { format: 'raw', name: 'gl-accessibility.json' },
  terraform: { format: 'raw', name: 'tfplan.json' },
};

export const reportFormat = (type: string) => REPORT_FORMATS[type]?.format ?? 'raw';

interface ArtifactsOptions {
  name?: string;
  untracked?: boolean;
  paths?: string[];
  exclude?: string[];
  when?: string;
  expire_in?: string | null;
  reports?: Record<string, string | string[]>;
}

export function artifactsFor(artifacts: ArtifactsOptions | null): Record<string, unknown>[] | null {
  if (!artifacts) return null;
  const list: Record<string, unknown>[] = [];
  if ((artifacts.paths && artifacts.paths.length > 0) || artifacts.untracked) {
    const archive: Record<string, unknown> = {
      name: artifacts.name ?? 'artifacts',
      untracked: artifacts.untracked ?? false,
      paths: artifacts.paths ?? [],
      when: artifacts.when ?? 'on_success',
      expire_in: artifacts.expire_in ?? null,
      artifact_type: 'archive',
      artifact_format: 'zip',
    };
    if (artifacts.exclude && artifacts.exclude.length > 0) archive.exclude = artifacts.exclude;
    list.push(archive);
  }
  for (const [type, paths] of Object.entries(artifacts.reports ?? {})) {
    const spec = REPORT_FORMATS[type] ?? { format: 'raw', name: null };
    list.push({
      name: spec.name ?? type,
      untracked: false,
      paths: Array.isArray(paths) ? paths : [paths],
      when: 'always',
      expire_in: artifacts.expire_in ?? null,
      artifact_type: type,
      artifact_format: spec.format,
    });
  }
  return list.length > 0 ? list : null;
}
