// Reads of project access tokens: the personal tokens of the project's bot members, with the
// bot's access level, in one query.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export function findProjectTokens(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .innerJoin('members as m', (join) => join.onRef('m.user_id', '=', 't.user_id').on('m.source_type', '=', 'Project').on('m.source_id', '=', projectId))
    .select([
      't.id',
      't.name',
      't.revoked',
      't.created_at',
      't.scopes',
      't.user_id',
      't.last_used_at',
      't.expires_at',
      't.impersonation',
      'm.access_level',
      'u.name as bot_name',
    ])
    .where('u.user_type', '=', 'project_bot')
    .where('t.impersonation', '=', false)
    .orderBy('t.id');
}

export type ProjectTokenRow = Awaited<ReturnType<ReturnType<typeof findProjectTokens>['executeTakeFirstOrThrow']>>;

/** A token of this project's bots by its id as given in the path. */
export async function findProjectToken(db: Kysely<DB>, projectId: number, rawId: string): Promise<ProjectTokenRow | undefined> {
  const id = /^\d+$/.test(rawId) ? Number(rawId) : Number.NaN;
  if (!Number.isSafeInteger(id)) return undefined;
  return findProjectTokens(db, projectId).where('t.id', '=', id).executeTakeFirst();
}
