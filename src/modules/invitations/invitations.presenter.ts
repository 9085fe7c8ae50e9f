// Pure invitation row → invitation entity.
import type { InvitationView } from './invitations.finder.ts';
import type { Invitation } from './invitations.schemas.ts';

export function presentInvitation(row: InvitationView): Invitation {
  return {
    id: row.id,
    invite_email: row.invite_email,
    created_at: row.created_at,
    access_level: row.access_level,
    expires_at: row.expires_at,
    user_name: null,
    created_by_name: row.created_by_name,
  };
}
