// The milestone entity from its row (`ownerWebUrl` is the web address of its project or group), and
// a burndown chart's events from the milestone's issues and their closings and reopenings.
import type { MilestoneRow } from '../../db/schema.ts';
import type { BurndownIssue, BurndownIssueEvent } from './milestones.finder.ts';

export function presentMilestone(m: MilestoneRow, ownerWebUrl: string, today: string) {
  return {
    id: m.id,
    iid: m.iid,
    ...(m.project_id !== null ? { project_id: Number(m.project_id) } : { group_id: Number(m.group_id) }),
    title: m.title,
    description: m.description,
    state: m.state as 'active' | 'closed',
    created_at: m.created_at,
    updated_at: m.updated_at,
    due_date: m.due_date,
    start_date: m.start_date,
    expired: m.due_date === null ? null : m.due_date < today,
    web_url: `${ownerWebUrl}/-/milestones/${m.iid}`,
  };
}

type BurndownAction = 'created' | 'closed' | 'reopened';

/**
 * The platform's Burndown: per issue (newest first) its creation, its closings and reopenings (a
 * repeat of the previous action dropped, as when a commit and a merge request both close it), and
 * for a closed issue without a closing on record, a closing at the start of the milestone. Every
 * event carries the issue's weight.
 */
export function presentBurndown(issues: readonly BurndownIssue[], events: readonly BurndownIssueEvent[], startDate: string) {
  const byIssue = Map.groupBy(events, (e) => e.target_id);
  return issues.flatMap((issue) => {
    const event = (created_at: string, action: BurndownAction) => ({ created_at, weight: issue.weight, action });
    const recorded = byIssue.get(issue.id) ?? [];
    const actions = recorded.filter((e, i) => i === 0 || e.action !== recorded[i - 1].action).map((e) => event(e.created_at, e.action as BurndownAction));
    const legacyClosing = issue.state === 'closed' && !recorded.some((e) => e.action === 'closed') ? [event(`${startDate}T00:00:00.000Z`, 'closed')] : [];
    return [event(issue.created_at, 'created'), ...actions, ...legacyClosing];
  });
}
