// Pure row → entity functions for SSH keys.
import type { DeployKeysProjectRow, KeyRow } from '../../db/schema.ts';
import type { UserSelf } from '../users/users.schemas.ts';
import type { DeployKeyWithUser, SshKey, SshKeyWithUser } from './keys.schemas.ts';

/**
 * A key as the platform publishes it: type and body, then `<owner's name> (<host>)` in place of
 * the comment, which may hold an e-mail address.
 */
export function publishableKey(key: string, ownerName: string | null, host: string): string {
  const [type, body] = key.split(/\s+/);
  return ownerName === null ? `${type} ${body}` : `${type} ${body} ${ownerName} (${host})`;
}

export function presentSshKey(row: KeyRow, ownerName: string | null, host: string): SshKey {
  return { id: row.id, title: row.title, created_at: row.created_at, expires_at: row.expires_at, key: publishableKey(row.key, ownerName, host) };
}

export function presentSshKeyWithUser(row: KeyRow, owner: UserSelf | null, host: string): SshKeyWithUser {
  return { ...presentSshKey(row, owner?.name ?? null, host), user: owner };
}

export function presentDeployKeyWithUser(row: KeyRow, owner: UserSelf | null, host: string, projects: DeployKeysProjectRow[]): DeployKeyWithUser {
  return {
    ...presentSshKeyWithUser(row, owner, host),
    deploy_keys_projects: projects.map((p) => ({
      id: p.id,
      deploy_key_id: p.deploy_key_id,
      project_id: p.project_id,
      created_at: p.created_at,
      updated_at: p.updated_at,
      can_push: p.can_push,
    })),
  };
}
