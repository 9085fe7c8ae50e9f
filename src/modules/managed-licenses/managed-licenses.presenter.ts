// Pure functions: a policy row as the entity (allowed reads `approved`, denied `blacklisted`), and
// the licenses a report found classified by the project's policies.
import type { SoftwareLicensePolicyRow } from '../../db/schema.ts';
import type { ReportLicense } from '../../ci/reports/license-scanning.ts';
import type { ApprovalStatus, LicenseCompliance, ManagedLicense, ReportedLicense } from './managed-licenses.schemas.ts';

export const CLASSIFICATION_OF: Record<ApprovalStatus, string> = { approved: 'allowed', blacklisted: 'denied' };
const STATUS_OF: Record<string, ApprovalStatus> = { allowed: 'approved', denied: 'blacklisted' };

export function presentManagedLicense(row: SoftwareLicensePolicyRow): ManagedLicense {
  return { id: row.id, name: row.name, approval_status: STATUS_OF[row.classification] ?? 'blacklisted' };
}

/** Each license with the policy named like it (or like its SPDX identifier), any case. */
export function presentReportedLicenses(licenses: readonly ReportLicense[], policies: readonly SoftwareLicensePolicyRow[]): ReportedLicense[] {
  const byName = new Map(policies.map((p) => [p.name.toLowerCase(), p]));
  return licenses.map((license) => {
    const policy = byName.get(license.name.toLowerCase()) ?? (license.spdxIdentifier ? byName.get(license.spdxIdentifier.toLowerCase()) : undefined);
    return {
      name: license.name,
      url: license.url,
      spdx_identifier: license.spdxIdentifier,
      classification: policy ? { id: policy.id, name: policy.name, approval_status: STATUS_OF[policy.classification] ?? 'blacklisted' } : { id: null, name: license.name, approval_status: 'unclassified' },
      dependencies: license.dependencies.map((d) => ({ name: d.name })),
      count: license.dependencies.length,
    };
  });
}

export function presentLicenseCompliance(pipelineId: number, found: boolean, licenses: readonly ReportedLicense[], errors: readonly string[]): LicenseCompliance {
  const count = (status: string) => licenses.filter((l) => l.classification.approval_status === status).length;
  const blacklisted = count('blacklisted');
  return {
    pipeline_id: pipelineId,
    // A report that could not be read may hide a denied license: the policy is not known to pass.
    status: !found ? 'no_report' : blacklisted > 0 || errors.length > 0 ? 'failed' : 'passed',
    approved: count('approved'),
    blacklisted,
    unclassified: count('unclassified'),
    licenses: [...licenses],
    errors: [...errors],
  };
}
