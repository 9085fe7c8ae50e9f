// The Trigger entity: its token in clear for the trigger's owner (and for anyone when it has none,
// as the platform's legacy triggers), otherwise its first four characters (14.x TriggerPresenter).
import type { CiTriggerRow, UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';

export const tokenShownTo = (row: CiTriggerRow, viewerId: number | null) => row.owner_id === null || row.owner_id === viewerId;

export function presentTrigger(row: CiTriggerRow, token: string, owner: UserRow | null, viewerId: number | null, baseUrl: string) {
  return {
    id: row.id,
    token: tokenShownTo(row, viewerId) ? token : token.slice(0, 4),
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_used: row.last_used,
    owner: owner ? userBasicFields(owner, baseUrl) : null,
  };
}
