// Records every export tree writes alike, a project's or a group's: labels and milestones in the
// platform's form.
import type { MilestoneRow } from '../../db/schema.ts';
import type { JsonObject } from './ndjson.ts';

/** The platform's label form (ProjectLabel, or GroupLabel for a group's). */
export function labelJson(label: { id: number; title: string; color: string; description: string | null; group_id: number | null; created_at?: string; updated_at?: string }): JsonObject {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    description: label.description ?? '',
    ...(label.created_at ? { created_at: label.created_at, updated_at: label.updated_at } : {}),
    template: false,
    type: label.group_id !== null ? 'GroupLabel' : 'ProjectLabel',
    priorities: [],
  };
}

export function milestoneJson(m: MilestoneRow): JsonObject {
  return {
    id: m.id,
    iid: m.iid,
    title: m.title,
    description: m.description,
    state: m.state,
    due_date: m.due_date,
    start_date: m.start_date,
    created_at: m.created_at,
    updated_at: m.updated_at,
    group_id: m.group_id,
    events: [],
  };
}
