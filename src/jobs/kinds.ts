// Every kind of background job, listed explicitly, one line each; the workers run these (see
// queue.ts for what a kind must guarantee).
import { deleteMergedBranchesJob } from '../modules/branches/branches.service.ts';
import { projectExportJob, projectImportJob } from '../modules/import-export/import-export.jobs.ts';
import { groupExportJob, groupImportJob } from '../modules/group-import-export/group-import-export.jobs.ts';
import { hookDeliveryJob, hookEventJob } from '../modules/hooks/hooks.jobs.ts';
import { sendInvitationJob } from '../modules/invitations/invitations.jobs.ts';
import { resetApprovalsJob } from '../modules/merge-request-approvals/merge-request-approvals.jobs.ts';
import { autoMergeJob, checkMergeStatusJob, pipelineTodosJob, rebaseJob, refreshMergeRequestJob } from '../modules/merge-requests/merge-requests.jobs.ts';
import { bulkProjectStorageMovesJob, moveRepositoryJob, projectStorageMoveJob, removeRepositoryJob } from '../modules/projects/projects.jobs.ts';
import { groupStorageMoveJob } from '../modules/repository-storage-moves/repository-storage-moves.jobs.ts';
import { removeGroupWikiJob } from '../modules/wikis/wikis.jobs.ts';
import { refsChangingJob, refsUpdatedJob } from '../modules/pushes/push.service.ts';
import { refreshStatisticsJob } from '../modules/pushes/repository-statistics.jobs.ts';
import { createDownstreamJob, processPipelineJob } from '../modules/pipelines/pipeline-processing.jobs.ts';
import { createPushPipelineJob } from '../modules/pipelines/pipelines.jobs.ts';
import { runScheduleJob } from '../modules/pipeline-schedules/pipeline-schedules.jobs.ts';
import { createEvidenceJob } from '../modules/releases/releases.jobs.ts';
import { deployPagesJob, verifyPagesDomainJob } from '../modules/pages/pages.jobs.ts';
import { ingestSecurityReportsJob } from '../modules/security/security.jobs.ts';
import { sendConfirmationJob } from '../modules/users/users.jobs.ts';
import { sendApprovalJob, sendRejectionJob } from '../modules/registrations/registrations.jobs.ts';
import { sendEmailConfirmationJob } from '../modules/emails/emails.jobs.ts';
import { recheckSignaturesJob } from '../modules/gpg-keys/gpg-keys.jobs.ts';
import { removeStoredFilesJob } from '../storage/deferred-removal.ts';
import { removeSnippetRepositoryJob } from '../domain/snippet-repositories.ts';
import { bulkSnippetStorageMovesJob, snippetStorageMoveJob } from '../modules/snippets/snippets.jobs.ts';
import type { JobKind } from './queue.ts';

export const backgroundJobKinds: readonly JobKind[] = [
  refsUpdatedJob,
  refsChangingJob,
  removeRepositoryJob,
  removeSnippetRepositoryJob,
  snippetStorageMoveJob,
  bulkSnippetStorageMovesJob,
  moveRepositoryJob,
  projectStorageMoveJob,
  bulkProjectStorageMovesJob,
  groupStorageMoveJob,
  removeGroupWikiJob,
  deleteMergedBranchesJob,
  refreshStatisticsJob,
  createPushPipelineJob,
  processPipelineJob,
  createDownstreamJob,
  runScheduleJob,
  removeStoredFilesJob,
  createEvidenceJob,
  checkMergeStatusJob,
  rebaseJob,
  refreshMergeRequestJob,
  resetApprovalsJob,
  autoMergeJob,
  sendInvitationJob,
  sendConfirmationJob,
  sendApprovalJob,
  sendRejectionJob,
  sendEmailConfirmationJob,
  recheckSignaturesJob,
  pipelineTodosJob,
  deployPagesJob,
  verifyPagesDomainJob,
  ingestSecurityReportsJob,
  projectExportJob,
  projectImportJob,
  groupExportJob,
  groupImportJob,
  hookEventJob,
  hookDeliveryJob,
];
