// Pure membership row → member entity.
import { userWebUrl } from '../../core/urls.ts';
import type { MemberView } from './members.finder.ts';
import type { Member } from './members.schemas.ts';

export function presentMember(row: MemberView, baseUrl: string): Member {
  return {
    id: row.user_id,
    username: row.username,
    name: row.name,
    state: row.state,
    avatar_url: null,
    web_url: userWebUrl(baseUrl, row.username),
    access_level: row.access_level,
    created_at: row.created_at,
    expires_at: row.expires_at,
    membership_state: 'active',
  };
}
