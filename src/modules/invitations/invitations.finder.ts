// Reads of invitations: member rows that name an address and no user yet. Lists return unexecuted
// builders that pagination cuts in the database, in the order they were made.
import type { Kysely, NotNull } from 'kysely';
import { digest } from '../../core/auth/secrets.ts';
import type { DB } from '../../db/schema.ts';

export interface InvitationView {
  id: number;
  source_type: string;
  source_id: number;
  invite_email: string;
  access_level: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  created_by_id: number | null;
  created_by_name: string | null;
}

function pendingInvitations(db: Kysely<DB>) {
  return db
    .selectFrom('members as m')
    .leftJoin('users as c', 'c.id', 'm.created_by_id')
    .select(['m.id', 'm.source_type', 'm.source_id', 'm.invite_email', 'm.access_level', 'm.expires_at', 'm.created_at', 'm.updated_at', 'm.created_by_id', 'c.name as created_by_name'])
    .where('m.user_id', 'is', null)
    .where('m.invite_email', 'is not', null)
    .$narrowType<{ invite_email: NotNull }>();
}

/** A project's or group's (source_type 'Project' or 'Namespace') invitations. */
interface InvitationSource {
  type: string;
  id: number;
}

/** A source's pending invitations; `query`, when given, is the exact address (as the platform compares it). */
export function findInvitations(db: Kysely<DB>, source: InvitationSource, query?: string) {
  let qb = pendingInvitations(db).where('m.source_type', '=', source.type).where('m.source_id', '=', source.id);
  if (query) qb = qb.where('m.invite_email', '=', query);
  return qb.orderBy('m.id');
}

export async function findInvitation(db: Kysely<DB>, source: InvitationSource, email: string): Promise<InvitationView | undefined> {
  return findInvitations(db, source, email).executeTakeFirst();
}

/** The pending invitation an accept link's token names. */
export async function findInvitationByToken(db: Kysely<DB>, token: string): Promise<InvitationView | undefined> {
  return pendingInvitations(db).where('m.invite_token', '=', digest(token)).executeTakeFirst();
}
