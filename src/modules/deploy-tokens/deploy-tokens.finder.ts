// Reads of deploy tokens: the lists of a project, a group or the instance (by id, the platform's
// order), one token of its owner, and the token a git client's credentials name.
import type { Kysely } from 'kysely';
import type { DB, DeployTokenRow } from '../../db/schema.ts';
import { digest } from '../../core/auth/secrets.ts';

/** Whose tokens: a project's, a group's (its own, not its projects'), or every one. */
export type DeployTokenOwner = { projectId: number } | { groupId: number } | 'instance';

export function findDeployTokens(db: Kysely<DB>, owner: DeployTokenOwner, filters: { active?: boolean } = {}, now = new Date()) {
  let qb = db.selectFrom('deploy_tokens').selectAll();
  if (owner !== 'instance') qb = 'projectId' in owner ? qb.where('project_id', '=', owner.projectId) : qb.where('group_id', '=', owner.groupId);
  if (filters.active) {
    qb = qb.where('revoked', '=', false).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>=', now.toISOString())]));
  }
  return qb.orderBy('id');
}

export async function findDeployToken(db: Kysely<DB>, owner: DeployTokenOwner, id: number): Promise<DeployTokenRow | undefined> {
  return findDeployTokens(db, owner).where('id', '=', id).executeTakeFirst();
}

/** The name git clients sign in with. */
export const deployTokenUsername = (row: Pick<DeployTokenRow, 'id' | 'username'>) => row.username ?? `gitlab+deploy-token-${row.id}`;

/** Expired once its expiry date is before today, as the platform counts it. */
export function isExpired(row: Pick<DeployTokenRow, 'expires_at'>, now: Date): boolean {
  return row.expires_at !== null && row.expires_at < `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
}

/** The active token these credentials name (its secret, under its own username); undefined otherwise. */
export async function findDeployTokenByCredentials(db: Kysely<DB>, login: string, secret: string, now: Date): Promise<DeployTokenRow | undefined> {
  if (secret === '') return undefined;
  const row = await db.selectFrom('deploy_tokens').selectAll().where('token_digest', '=', digest(secret)).executeTakeFirst();
  if (!row || row.revoked || isExpired(row, now) || deployTokenUsername(row) !== login) return undefined;
  return row;
}

/**
 * Whether a token reaches a project: a project token its own project; a group token the projects of
 * its group and of the group's subgroups (the project's namespace path passes through the group).
 */
export async function deployTokenReaches(db: Kysely<DB>, token: DeployTokenRow, project: { id: number; namespace_id: number }): Promise<boolean> {
  if (token.project_id !== null) return token.project_id === project.id;
  if (token.group_id === null) return false;
  const namespace = await db.selectFrom('namespaces').select(['type', 'traversal_path']).where('id', '=', project.namespace_id).executeTakeFirst();
  return namespace?.type === 'Group' && namespace.traversal_path.split('/').includes(String(token.group_id));
}
