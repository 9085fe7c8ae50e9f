// Reading resource events: an issue's or a merge request's, oldest first (by id, as the platform's
// pagination orders them), and what a page of them names, each kind in one query.
import type { Kysely } from 'kysely';
import type { DB, ResourceLabelEventRow, ResourceMilestoneEventRow } from '../../db/schema.ts';
import { type IssuableMilestone, type IssuableUser, issuableUsers, milestonesById } from '../../domain/issuables.ts';
import type { EventIssuable } from '../../domain/resource-events.ts';

const byIssuable = (issuable: EventIssuable) => (issuable.type === 'Issue' ? { column: 'issue_id' as const } : { column: 'merge_request_id' as const });

export function labelEvents(db: Kysely<DB>, issuable: EventIssuable) {
  return db.selectFrom('resource_label_events').selectAll().where(byIssuable(issuable).column, '=', issuable.id).orderBy('id');
}

export function stateEvents(db: Kysely<DB>, issuable: EventIssuable) {
  return db.selectFrom('resource_state_events').selectAll().where(byIssuable(issuable).column, '=', issuable.id).orderBy('id');
}

export function milestoneEvents(db: Kysely<DB>, issuable: EventIssuable) {
  return db.selectFrom('resource_milestone_events').selectAll().where(byIssuable(issuable).column, '=', issuable.id).orderBy('id');
}

export interface EventRelations {
  users: Map<number, IssuableUser>;
  labels: Map<number, { id: number; title: string; color: string; description: string | null }>;
  milestones: Map<number, IssuableMilestone>;
}

/** The users, labels and milestones a page of events names. */
export async function eventRelations(db: Kysely<DB>, rows: readonly { user_id: number | null }[]): Promise<EventRelations> {
  const labelIds = [...new Set(rows.flatMap((r) => ((r as Partial<ResourceLabelEventRow>).label_id ?? null) ?? []))];
  const labels = labelIds.length === 0 ? [] : await db.selectFrom('labels').select(['id', 'title', 'color', 'description']).where('id', 'in', labelIds).execute();
  return {
    users: await issuableUsers(db, rows.flatMap((r) => r.user_id ?? [])),
    labels: new Map(labels.map((l) => [l.id, l])),
    milestones: await milestonesById(db, rows.map((r) => (r as Partial<ResourceMilestoneEventRow>).milestone_id ?? null)),
  };
}
