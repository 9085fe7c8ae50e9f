// Pure row → entity functions for webhooks and their deliveries. The token is never shown.
import type { WebHookLogRow, WebHookRow } from '../../db/schema.ts';
import type { GroupHook, HookEvent, ProjectHook, SystemHook } from './hooks.schemas.ts';

export function presentSystemHook(row: WebHookRow): SystemHook {
  return {
    id: row.id,
    url: row.url,
    created_at: row.created_at,
    push_events: row.push_events,
    tag_push_events: row.tag_push_events,
    merge_requests_events: row.merge_requests_events,
    repository_update_events: row.repository_update_events,
    enable_ssl_verification: row.enable_ssl_verification,
  };
}

function scoped(row: WebHookRow) {
  return {
    issues_events: row.issues_events,
    confidential_issues_events: row.confidential_issues_events,
    note_events: row.note_events,
    confidential_note_events: row.confidential_note_events,
    pipeline_events: row.pipeline_events,
    wiki_page_events: row.wiki_page_events,
    deployment_events: row.deployment_events,
    job_events: row.job_events,
    releases_events: row.releases_events,
    push_events_branch_filter: row.push_events_branch_filter,
  };
}

export function presentProjectHook(row: WebHookRow): ProjectHook {
  return { ...presentSystemHook(row), project_id: row.project_id as number, ...scoped(row) };
}

export function presentGroupHook(row: WebHookRow): GroupHook {
  return { ...presentSystemHook(row), group_id: row.group_id as number, ...scoped(row), subgroup_events: row.subgroup_events, member_events: row.member_events };
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export function presentHookEvent(row: WebHookLogRow): HookEvent {
  return {
    id: row.id,
    url: row.url,
    trigger: row.trigger,
    request_headers: parse(row.request_headers) as Record<string, string>,
    request_data: parse(row.request_data),
    response_headers: parse(row.response_headers) as Record<string, string>,
    response_body: row.response_body,
    execution_duration: row.execution_duration,
    response_status: row.response_status,
    internal_error_message: row.internal_error_message,
    created_at: row.created_at,
  };
}
