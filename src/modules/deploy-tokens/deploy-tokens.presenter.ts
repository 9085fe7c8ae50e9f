// Pure deploy token rows → the deploy token entity.
import type { DeployTokenRow } from '../../db/schema.ts';
import { deployTokenUsername, isExpired } from './deploy-tokens.finder.ts';
import { DEPLOY_TOKEN_SCOPES, type DeployToken } from './deploy-tokens.schemas.ts';

export function presentDeployToken(row: DeployTokenRow, now: Date): DeployToken {
  return {
    id: row.id,
    name: row.name,
    username: deployTokenUsername(row),
    expires_at: row.expires_at,
    scopes: DEPLOY_TOKEN_SCOPES.filter((scope) => row[scope]),
    revoked: row.revoked,
    expired: isExpired(row, now),
  };
}
