// A pipeline's licenses under the project's policy: its license scanning reports read from the
// artifacts storage (as the platform parses them when asked), merged, and classified.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { type ReportLicense, parseLicenseReport } from '../../ci/reports/license-scanning.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { licenseReportArtifacts, policiesNamed } from './managed-licenses.finder.ts';
import { presentReportedLicenses } from './managed-licenses.presenter.ts';
import type { ReportedLicense } from './managed-licenses.schemas.ts';

const MAX_REPORT_BYTES = 16 * 1024 * 1024;

export interface PipelineLicenses {
  /** Whether the pipeline has a license scanning report at all. */
  found: boolean;
  licenses: ReportedLicense[];
  errors: string[];
}

export async function pipelineLicenses(db: Kysely<DB>, config: Pick<Config, 'dataDir'>, projectId: number, pipelineId: number): Promise<PipelineLicenses> {
  const artifacts = await licenseReportArtifacts(db, pipelineId);
  const storage = artifactsStorage(config);
  const merged = new Map<string, ReportLicense>();
  const errors: string[] = [];
  for (const artifact of artifacts) {
    if (artifact.size > MAX_REPORT_BYTES) {
      errors.push(`Report is too large (${artifact.size} bytes)`);
      continue;
    }
    let content: Buffer;
    try {
      content = await storage.readAll(artifact.file_path);
    } catch {
      // A stored report gone missing is the report's error, not the request's (the storage's words name paths: not shown).
      errors.push('Report could not be read');
      continue;
    }
    const parsed = parseLicenseReport(content);
    errors.push(...parsed.errors);
    for (const license of parsed.licenses) {
      const key = (license.spdxIdentifier ?? license.name).toLowerCase();
      const known = merged.get(key);
      if (known) known.dependencies.push(...license.dependencies);
      else merged.set(key, { ...license, dependencies: [...license.dependencies] });
    }
  }
  const licenses = [...merged.values()];
  const policies = await policiesNamed(db, projectId, licenses.flatMap((l) => (l.spdxIdentifier ? [l.name, l.spdxIdentifier] : [l.name])));
  return { found: artifacts.length > 0, licenses: presentReportedLicenses(licenses, policies), errors };
}
