// Reads of badges: a group's own, or a project's own with those of its group and the group's
// ancestors (the platform lists them together, oldest first); and what a project's placeholders
// stand for.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { BadgeRow, DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { repositoryDir, resolveRevision } from '../../domain/project-repository.ts';
import { type PlaceholderValues, usesPlaceholder } from './badges.placeholders.ts';

/** Whose badges: a project's (with its groups'), or a group's own. */
export type BadgeSource = { project: ProjectRow; namespace: NamespaceRow } | { group: NamespaceRow };

/** The group ids above a project: its namespace and that namespace's ancestors, when it is a group. */
function projectGroupIds(namespace: NamespaceRow): number[] {
  return namespace.type === 'Group' ? namespace.traversal_path.split('/').map(Number) : [];
}

export function findBadges(db: Kysely<DB>, source: BadgeSource, filters: { name?: string } = {}) {
  let qb = db.selectFrom('badges').selectAll();
  if ('group' in source) qb = qb.where('group_id', '=', source.group.id);
  else {
    const groupIds = projectGroupIds(source.namespace);
    qb = qb.where((eb) => eb.or([eb('project_id', '=', source.project.id), ...(groupIds.length > 0 ? [eb('group_id', 'in', groupIds)] : [])]));
  }
  if (filters.name !== undefined) qb = qb.where('name', '=', filters.name);
  return qb.orderBy('created_at').orderBy('id');
}

export function findBadge(db: Kysely<DB>, source: BadgeSource, id: number): Promise<BadgeRow | undefined> {
  return findBadges(db, source).where('id', '=', id).executeTakeFirst();
}

/**
 * What the placeholders of these URLs stand for in a project (null for a group's, which render as
 * given). The latest commit is read only when some URL asks for it.
 */
export async function placeholderValues(config: Config, source: BadgeSource, urls: readonly string[]): Promise<PlaceholderValues | null> {
  if ('group' in source) return null;
  const { project } = source;
  const branch = project.default_branch;
  const commitSha = branch !== null && urls.some((url) => usesPlaceholder(url, 'commit_sha')) ? await resolveRevision(repositoryDir(config, project), branch) : null;
  return { project_path: project.full_path, project_id: String(project.id), default_branch: branch, commit_sha: commitSha };
}
