// Pure row → project access token entity.
import { type TokenSummary, presentToken } from '../access-tokens/access-tokens.presenter.ts';
import type { ProjectAccessToken } from './project-access-tokens.schemas.ts';

export function presentProjectToken(row: TokenSummary & { access_level: number }, today: string): ProjectAccessToken {
  return { ...presentToken(row, today), access_level: row.access_level };
}
