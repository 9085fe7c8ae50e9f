// Reads of personal and impersonation tokens. Lists return an unexecuted, unordered builder.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { containsText } from '../../core/search.ts';
import type { DB, PersonalAccessTokenRow } from '../../db/schema.ts';
import type { ListTokensQuery } from './access-tokens.schemas.ts';

type TokenQuery = SelectQueryBuilder<DB, 'personal_access_tokens', PersonalAccessTokenRow>;

export interface TokenFilters extends Omit<ListTokensQuery, 'page' | 'per_page' | 'user_id' | 'state'> {
  userId?: number;
  impersonation?: boolean;
  state?: 'all' | 'active' | 'inactive';
}

/** A token is active until revoked or until its expiry date begins. */
function byState(qb: TokenQuery, state: TokenFilters['state'], today: string): TokenQuery {
  if (state === 'active') {
    return qb.where('revoked', '=', false).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]));
  }
  if (state === 'inactive') return qb.where((eb) => eb.or([eb('revoked', '=', true), eb('expires_at', '<=', today)]));
  return qb;
}

/** Names containing every word of three characters or more, or equal to a shorter term (any case). */
function bySearch(qb: TokenQuery, search: string | undefined): TokenQuery {
  const term = search?.trim().replace(/\s+/g, ' ').toLowerCase();
  if (!term) return qb;
  const words = term.split(' ').filter((w) => w.length >= 3);
  const name = sql`lower(name)`;
  return qb.where((eb) => eb.and(words.length > 0 ? words.map((w) => containsText(name, w)) : [eb(name, '=', term)]));
}

export function findTokens(db: Kysely<DB>, f: TokenFilters, today: string): TokenQuery {
  let qb: TokenQuery = db.selectFrom('personal_access_tokens').selectAll();
  if (f.userId !== undefined) qb = qb.where('user_id', '=', f.userId);
  if (f.impersonation !== undefined) qb = qb.where('impersonation', '=', f.impersonation);
  qb = byState(qb, f.state, today);
  if (f.revoked !== undefined) qb = qb.where('revoked', '=', f.revoked);
  qb = bySearch(qb, f.search);
  if (f.created_before) qb = qb.where('created_at', '<=', new Date(f.created_before).toISOString());
  if (f.created_after) qb = qb.where('created_at', '>=', new Date(f.created_after).toISOString());
  if (f.last_used_before) qb = qb.where('last_used_at', '<=', new Date(f.last_used_before).toISOString());
  if (f.last_used_after) qb = qb.where('last_used_at', '>=', new Date(f.last_used_after).toISOString());
  if (f.expires_before) qb = qb.where('expires_at', '<', f.expires_before);
  if (f.expires_after) qb = qb.where('expires_at', '>=', f.expires_after);
  return qb;
}

export async function findTokenById(db: Kysely<DB>, id: number): Promise<PersonalAccessTokenRow | undefined> {
  return db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findImpersonationToken(db: Kysely<DB>, userId: number, id: number): Promise<PersonalAccessTokenRow | undefined> {
  return db
    .selectFrom('personal_access_tokens')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('impersonation', '=', true)
    .executeTakeFirst();
}
