// Pure row → entity for personal and impersonation tokens.
import type { PersonalAccessTokenRow } from '../../db/schema.ts';
import type { PersonalAccessToken } from './access-tokens.schemas.ts';

export type TokenSummary = Pick<PersonalAccessTokenRow, 'id' | 'name' | 'revoked' | 'created_at' | 'scopes' | 'user_id' | 'last_used_at' | 'expires_at' | 'impersonation'>;

export function isActive(row: Pick<TokenSummary, 'revoked' | 'expires_at'>, today: string): boolean {
  return !row.revoked && (row.expires_at === null || row.expires_at > today);
}

export function presentToken(row: TokenSummary, today: string): PersonalAccessToken {
  return {
    id: row.id,
    name: row.name,
    revoked: row.revoked,
    created_at: row.created_at,
    scopes: JSON.parse(row.scopes) as string[],
    user_id: row.user_id,
    last_used_at: row.last_used_at,
    active: isActive(row, today),
    expires_at: row.expires_at,
  };
}

export function presentImpersonationToken(row: TokenSummary, today: string) {
  return { ...presentToken(row, today), impersonation: row.impersonation };
}
