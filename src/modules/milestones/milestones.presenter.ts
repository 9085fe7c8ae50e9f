// The milestone entity from its row; `ownerWebUrl` is the web address of its project or group.
import type { MilestoneRow } from '../../db/schema.ts';

export function presentMilestone(m: MilestoneRow, ownerWebUrl: string, today: string) {
  return {
    id: m.id,
    iid: m.iid,
    ...(m.project_id !== null ? { project_id: Number(m.project_id) } : { group_id: Number(m.group_id) }),
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    due_date: m.due_date,
    start_date: m.start_date,
    expired: m.due_date === null ? null : m.due_date < today,
    web_url: `${ownerWebUrl}/-/milestones/${m.iid}`,
  };
}
