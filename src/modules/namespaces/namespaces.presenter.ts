// Pure row → entity for namespaces. What depends on the caller (who administers which namespace)
// and the member counts arrive preloaded.
import type { NamespaceRow } from '../../db/schema.ts';
import { presentNamespaceBasic } from '../projects/projects.presenter.ts';
import type { NamespaceCounts } from './namespaces.finder.ts';
import type { Namespace } from './namespaces.schemas.ts';

/** Every namespace is on the instance's one plan, and none is on trial. */
const PLAN = 'default';

export interface NamespaceView {
  baseUrl: string;
  counts: NamespaceCounts;
  /** Whether the caller administers the namespace (its owner, a group owner, an administrator). */
  administers: (row: NamespaceRow) => boolean;
}

export function presentNamespace(row: NamespaceRow, view: NamespaceView): Namespace {
  const group = row.type === 'Group';
  const admin = view.administers(row);
  // A personal namespace bills its owner alone.
  const entity: Namespace = { ...presentNamespaceBasic(row, view.baseUrl), billable_members_count: group ? (view.counts.billable.get(row.id) ?? 0) : 1 };
  if (group && admin) entity.members_count_with_descendants = view.counts.membersWithDescendants.get(row.id) ?? 0;
  if (admin) Object.assign(entity, { plan: PLAN, trial_ends_on: null, trial: false });
  return entity;
}
