// Pure row → entity for namespaces. What depends on the caller (who administers which namespace)
// and the member counts arrive preloaded.
import type { NamespaceRow } from '../../db/schema.ts';
import { groupWebUrl, userWebUrl } from '../../domain/urls.ts';
import type { NamespaceCounts } from './member-counts.ts';
import type { Namespace, NamespaceBasic } from './namespaces.schemas.ts';

/** Every namespace is on the instance's one plan, and none is on trial. */
const PLAN = 'default';

export interface NamespaceView {
  baseUrl: string;
  counts: NamespaceCounts;
  /** Whether the caller administers the namespace (its owner, a group owner, an administrator). */
  administers: (row: NamespaceRow) => boolean;
}

export function namespaceWebUrl(baseUrl: string, namespace: Pick<NamespaceRow, 'type' | 'full_path'>): string {
  return namespace.type === 'Group' ? groupWebUrl(baseUrl, namespace.full_path) : userWebUrl(baseUrl, namespace.full_path);
}

/** The columns a namespace's basic entity is made of. */
export const NAMESPACE_BASIC_COLUMNS = ['id', 'name', 'path', 'type', 'full_path', 'parent_id'] as const;
export type NamespaceBasicRow = Pick<NamespaceRow, (typeof NAMESPACE_BASIC_COLUMNS)[number]>;

export function presentNamespaceBasic(namespace: NamespaceBasicRow, baseUrl: string): NamespaceBasic {
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.type === 'Group' ? 'group' : 'user',
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
    avatar_url: null,
    web_url: namespaceWebUrl(baseUrl, namespace),
  };
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
