// Pipeline rows → the API's entities (notes gitlab-ci.md §2.5, §4.2).
import type { CiPipelineRow, UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { Pipeline, PipelineBasic } from './pipelines.schemas.ts';

export interface PipelineView {
  baseUrl: string;
  projectWebUrl: string;
  /** The project's full path, for the details path of the detailed status. */
  projectFullPath: string;
}

export const pipelineWebUrl = (projectWebUrl: string, id: number) => `${projectWebUrl}/-/pipelines/${id}`;

export function presentPipelineBasic(row: CiPipelineRow, view: PipelineView): PipelineBasic {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    sha: row.sha,
    ref: row.ref,
    status: row.status,
    source: row.source,
    created_at: row.created_at,
    updated_at: row.updated_at,
    web_url: pipelineWebUrl(view.projectWebUrl, row.id),
  };
}

/** The words and icon the platform shows for each status (Gitlab::Ci::Status::*). */
const STATUS_FACES: Record<string, { text: string; label: string; icon: string }> = {
  created: { text: 'created', label: 'created', icon: 'status_created' },
  waiting_for_resource: { text: 'waiting', label: 'waiting for resource', icon: 'status_pending' },
  preparing: { text: 'preparing', label: 'preparing', icon: 'status_preparing' },
  pending: { text: 'pending', label: 'pending', icon: 'status_pending' },
  running: { text: 'running', label: 'running', icon: 'status_running' },
  success: { text: 'passed', label: 'passed', icon: 'status_success' },
  failed: { text: 'failed', label: 'failed', icon: 'status_failed' },
  canceled: { text: 'canceled', label: 'canceled', icon: 'status_canceled' },
  skipped: { text: 'skipped', label: 'skipped', icon: 'status_skipped' },
  manual: { text: 'blocked', label: 'waiting for manual action', icon: 'status_manual' },
  scheduled: { text: 'delayed', label: 'waiting for delayed job', icon: 'status_scheduled' },
};

export function detailedStatus(status: string, detailsPath: string, withWarnings = false) {
  const face = withWarnings && status === 'success' ? { text: 'passed', label: 'passed with warnings', icon: 'status_warning' } : (STATUS_FACES[status] ?? STATUS_FACES.created);
  return {
    icon: face.icon,
    text: face.text,
    label: face.label,
    group: withWarnings && status === 'success' ? 'success-with-warnings' : status === 'waiting_for_resource' ? 'waiting-for-resource' : status,
    tooltip: face.label,
    has_details: true,
    details_path: detailsPath,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_${face.icon}.png`,
  };
}

/** Whole seconds from creation to start; null before the start and when under a second, as the platform counts it. */
export function queuedDuration(row: Pick<CiPipelineRow, 'created_at' | 'started_at'>): number | null {
  if (!row.started_at) return null;
  const seconds = Math.trunc((Date.parse(row.started_at) - Date.parse(row.created_at)) / 1000);
  return seconds === 0 ? null : seconds;
}

export interface PipelineDetailParts {
  user: UserRow | null;
  /** The average of the latest jobs' coverage, formatted; null when none has one. */
  coverage: string | null;
  withWarnings: boolean;
}

export function presentPipeline(row: CiPipelineRow, view: PipelineView, parts: PipelineDetailParts): Pipeline {
  return {
    ...presentPipelineBasic(row, view),
    before_sha: row.before_sha,
    tag: row.tag,
    yaml_errors: row.yaml_errors,
    user: parts.user ? userBasicFields(parts.user, view.baseUrl) : null,
    started_at: row.started_at,
    finished_at: row.finished_at,
    committed_at: row.committed_at,
    duration: row.duration,
    queued_duration: queuedDuration(row),
    coverage: parts.coverage,
    detailed_status: detailedStatus(row.status, `/${view.projectFullPath}/-/pipelines/${row.id}`, parts.withWarnings),
  };
}
