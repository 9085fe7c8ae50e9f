// The PipelineSchedule and PipelineScheduleDetails entities, keys in the 14.x order.
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiPipelineRow, CiPipelineScheduleRow, CiPipelineScheduleVariableRow, UserRow } from '../../db/schema.ts';
import { type PipelineView, presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';
import { userBasicFields } from '../users/users.presenter.ts';

export function presentSchedule(row: CiPipelineScheduleRow, owner: UserRow | null, baseUrl: string) {
  return {
    id: row.id,
    description: row.description,
    ref: row.ref,
    cron: row.cron,
    cron_timezone: row.cron_timezone,
    next_run_at: row.next_run_at,
    active: row.active,
    created_at: row.created_at,
    updated_at: row.updated_at,
    owner: owner ? userBasicFields(owner, baseUrl) : null,
  };
}

export function presentScheduleVariable(row: CiPipelineScheduleVariableRow, box: SecretBox) {
  return { variable_type: row.variable_type, key: row.key, value: box.open(row.value_encrypted) };
}

export interface ScheduleDetailParts {
  owner: UserRow | null;
  lastPipeline: CiPipelineRow | null;
  variables: CiPipelineScheduleVariableRow[];
}

export function presentScheduleDetails(row: CiPipelineScheduleRow, parts: ScheduleDetailParts, view: PipelineView, box: SecretBox) {
  return {
    ...presentSchedule(row, parts.owner, view.baseUrl),
    last_pipeline: parts.lastPipeline ? presentPipelineBasic(parts.lastPipeline, view) : null,
    variables: parts.variables.map((v) => presentScheduleVariable(v, box)),
  };
}
