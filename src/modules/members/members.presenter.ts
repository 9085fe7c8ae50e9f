// Pure membership row → member entity.
import { userBasicFields } from '../users/users.presenter.ts';
import type { MemberView } from './members.finder.ts';
import type { Member } from './members.schemas.ts';

export function presentMember(row: MemberView, baseUrl: string): Member {
  return {
    ...userBasicFields({ id: row.user_id, username: row.username, name: row.name, state: row.state }, baseUrl),
    access_level: row.access_level,
    created_at: row.created_at,
    expires_at: row.expires_at,
    membership_state: 'active',
  };
}
