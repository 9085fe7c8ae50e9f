// Reads of users. findUsers returns an unexecuted, unordered builder; the route adds the order
// through pagination (offset or keyset) so that every page is cut in the database.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { fuzzyMatch, searchTerm } from '../../core/search.ts';
import type { DB, UserRow } from '../../db/schema.ts';
import { hasCustomAttribute } from '../../domain/custom-attribute-tables.ts';
import { INTERNAL_USER_TYPES } from './users.presenter.ts';
import type { ListUsersQuery } from './users.schemas.ts';

type UsersQuery = SelectQueryBuilder<DB, 'users', UserRow>;

/** Filters of GET /users; `admin` says whether the administrator-only ones apply. */
export function findUsers(db: Kysely<DB>, q: ListUsersQuery, admin: boolean): UsersQuery {
  let qb = db.selectFrom('users').selectAll('users');
  qb = bySearch(qb, q.search);
  if (q.username !== undefined) qb = qb.where(sql`lower(users.username)`, '=', q.username.toLowerCase());
  if (q.active) qb = qb.where('users.state', '=', 'active').where('users.user_type', 'not in', INTERNAL_USER_TYPES);
  if (q.blocked) qb = qb.where('users.state', 'in', ['blocked', 'ldap_blocked']);
  if (q.exclude_internal) qb = qb.where('users.user_type', 'not in', INTERNAL_USER_TYPES);
  // Others never see external users in lists; administrators may filter on them.
  if (!admin || q.exclude_external) qb = qb.where('users.external', '=', false);
  if (admin && q.external) qb = qb.where('users.external', '=', true);
  if (q.extern_uid !== undefined && q.provider !== undefined) qb = byIdentity(qb, q.extern_uid, q.provider);
  if (!admin) return qb;
  if (q.admins) qb = qb.where('users.admin', '=', true);
  // Users who reach no project at all, through any membership.
  if (q.without_projects) {
    qb = qb.where((eb) => eb.not(eb.exists(eb.selectFrom('project_authorizations as pa').select(sql`1`.as('one')).whereRef('pa.user_id', '=', 'users.id'))));
  }
  if (q.two_factor) qb = qb.where('users.two_factor_enabled', '=', q.two_factor === 'enabled');
  if (q.created_after) qb = qb.where('users.created_at', '>=', new Date(q.created_after).toISOString());
  if (q.created_before) qb = qb.where('users.created_at', '<=', new Date(q.created_before).toISOString());
  for (const [key, value] of Object.entries(q.custom_attributes ?? {})) qb = qb.where(hasCustomAttribute('user', 'users.id', key, value));
  return qb;
}

/** The search term as the platform reads it: a leading `@` dropped, spaces squeezed, lower case. */
const userSearchTerm = (search: string) => searchTerm(search.replace(/^@/, ''));

/**
 * Name or username containing every word of three characters or more (the whole term, exactly,
 * when there is none), or the exact email. An empty term (`@` alone) matches nobody.
 */
function bySearch(qb: UsersQuery, search: string | undefined): UsersQuery {
  if (search === undefined || search.trim() === '') return qb;
  const term = userSearchTerm(search);
  const match = fuzzyMatch(term, ['users.name', 'users.username']);
  if (match === null) return qb.where(sql<boolean>`1 = 0`);
  return qb.where((eb) => eb.or([match, eb(sql`lower(users.email)`, '=', term)]));
}

/** With a search and no explicit order: exact name, then exact username, then exact email, then by name. */
export function searchRank(search: string) {
  const term = userSearchTerm(search);
  return sql`case when lower(users.name) = ${term} then 0 when lower(users.username) = ${term} then 1 when lower(users.email) = ${term} then 2 else 3 end`;
}

function byIdentity(qb: UsersQuery, externUid: string, provider: string): UsersQuery {
  return qb.where((eb) =>
    eb.exists(
      eb
        .selectFrom('identities')
        .select(sql`1`.as('one'))
        .whereRef('identities.user_id', '=', 'users.id')
        .where('identities.provider', '=', provider)
        .where('identities.extern_uid', '=', externUid),
    ),
  );
}

export function findUserById(db: Kysely<DB>, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user whose email this is, in any case. */
export function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

/** Identities of many users in one query. */
export async function loadIdentities(db: Kysely<DB>, userIds: number[]): Promise<Map<number, { provider: string; extern_uid: string }[]>> {
  const map = new Map<number, { provider: string; extern_uid: string }[]>();
  if (userIds.length === 0) return map;
  const rows = await db
    .selectFrom('identities')
    .select(['user_id', 'provider', 'extern_uid'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const list = map.get(r.user_id) ?? [];
    list.push({ provider: r.provider, extern_uid: r.extern_uid });
    map.set(r.user_id, list);
  }
  return map;
}
