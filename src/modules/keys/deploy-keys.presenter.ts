// Pure row → entity functions for deploy keys, which show the key as it was given (comment
// included), unlike a user's keys.
import type { KeyRow } from '../../db/schema.ts';
import type { DeployKey, DeployKeysProject } from './deploy-keys.schemas.ts';

export function presentDeployKey(row: KeyRow): DeployKey {
  return { id: row.id, title: row.title, created_at: row.created_at, expires_at: row.expires_at, key: row.key };
}

export function presentDeployKeysProject(row: KeyRow, join: { can_push: boolean }): DeployKeysProject {
  return { ...presentDeployKey(row), can_push: join.can_push };
}
