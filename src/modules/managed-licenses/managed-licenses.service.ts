// Writes of license policies (spec §4.8; the platform's SoftwareLicensePolicies services): one per
// license name in a project, a second one for the same name refused with the model's message.
import { type ServiceContext } from '../../core/context.ts';
import { messageList } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { ProjectRow, SoftwareLicensePolicyRow } from '../../db/schema.ts';
import { CLASSIFICATION_OF } from './managed-licenses.presenter.ts';
import type { ApprovalStatus, CreateManagedLicenseBody } from './managed-licenses.schemas.ts';

const TAKEN = 'Software license has already been taken';

export async function createPolicy(ctx: ServiceContext, project: ProjectRow, body: CreateManagedLicenseBody): Promise<SoftwareLicensePolicyRow> {
  const now = ctx.now().toISOString();
  const name = body.name.trim();
  const taken = await ctx.db.selectFrom('software_license_policies').select('id').where('project_id', '=', project.id).where('name', '=', name).executeTakeFirst();
  if (taken) throw messageList([TAKEN], 400);
  try {
    return await ctx.db
      .insertInto('software_license_policies')
      .values({ project_id: project.id, name, classification: CLASSIFICATION_OF[body.approval_status], created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw messageList([TAKEN], 400);
    throw error;
  }
}

export async function updatePolicy(ctx: ServiceContext, policy: SoftwareLicensePolicyRow, approvalStatus: ApprovalStatus): Promise<SoftwareLicensePolicyRow> {
  return ctx.db
    .updateTable('software_license_policies')
    .set({ classification: CLASSIFICATION_OF[approvalStatus], updated_at: ctx.now().toISOString() })
    .where('id', '=', policy.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deletePolicy(ctx: ServiceContext, policy: SoftwareLicensePolicyRow): Promise<void> {
  await ctx.db.deleteFrom('software_license_policies').where('id', '=', policy.id).execute();
}
