// What the approvals module offers other modules: a project's approval settings, read.
export { type ApprovalSettings, readApprovalSettings } from './merge-request-approvals.finder.ts';
