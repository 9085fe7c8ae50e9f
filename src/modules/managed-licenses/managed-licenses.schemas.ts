// Managed licenses (spec Part 1 §2.13, §4.8): a project's policy for a license, approved or
// blacklisted; and what a pipeline's license scanning report gives under that policy (the
// platform's pipeline licenses.json, and Quarry's REST summary of it).
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable } from '../../core/schema.ts';

export const APPROVAL_STATUSES = ['approved', 'blacklisted'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const ManagedLicenseEntity = Entity({ id: Type.Integer(), name: Type.String(), approval_status: Literals(APPROVAL_STATUSES) });
export type ManagedLicense = Static<typeof ManagedLicenseEntity>;

/** A license a pipeline's report found, with the project's policy for it (`unclassified` without one). */
const reportedLicenseFields = {
  name: Type.String(),
  url: Nullable(Type.String()),
  classification: Entity({ id: Nullable(Type.Integer()), name: Type.String(), approval_status: Literals([...APPROVAL_STATUSES, 'unclassified'] as const) }),
  dependencies: Type.Array(Entity({ name: Type.String() })),
  count: Type.Integer(),
};
/** A license of a pipeline's report as the platform's licenses.json lists it. */
export const PipelineLicenseEntity = Entity(reportedLicenseFields);
/** The same in Quarry's REST summary, which also names the SPDX identifier. */
export const ReportedLicenseEntity = Entity({ ...reportedLicenseFields, spdx_identifier: Nullable(Type.String()) });
export type ReportedLicense = Static<typeof ReportedLicenseEntity>;

/** Quarry's summary of a pipeline's licenses: `failed` when a blacklisted license is used or a report could not be read (`errors` says why). */
export const LicenseComplianceEntity = Entity({
  pipeline_id: Type.Integer(),
  status: Literals(['passed', 'failed', 'no_report'] as const),
  approved: Type.Integer(),
  blacklisted: Type.Integer(),
  unclassified: Type.Integer(),
  licenses: Type.Array(ReportedLicenseEntity),
  errors: Type.Array(Type.String()),
});
export type LicenseCompliance = Static<typeof LicenseComplianceEntity>;

export const ProjectParams = Params({ id: IdOrPath });
export const ManagedLicenseParams = Params({ id: IdOrPath, managed_license_id: Type.String({ minLength: 1 }) });
export const PipelineParams = Params({ id: IdOrPath, pipeline_id: Type.Integer() });
export const ListManagedLicensesQuery = Params({ ...PageParams });
export const CreateManagedLicenseBody = Params({ name: Type.String({ 'x-blank': false, maxLength: 255 }), approval_status: OneOf(APPROVAL_STATUSES) });
export type CreateManagedLicenseBody = Static<typeof CreateManagedLicenseBody>;
export const UpdateManagedLicenseBody = Params({ approval_status: OneOf(APPROVAL_STATUSES) });
