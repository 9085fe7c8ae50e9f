// Reads of activity events: an unexecuted, ordered builder over the events a caller may see.
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { projectCodeVisibleTo, projectVisibleTo } from '../../core/access/visibility.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { DB, EventRow, UserRow } from '../../db/schema.ts';
import { type ListEventsQuery, TARGET_TYPES } from './events.schemas.ts';

export type EventSource =
  /** Events the user authored. */
  | { authorId: number }
  /** Events of every project the user is authorized on, whoever wrote them. */
  | { authorizedUserId: number }
  | { projectId: number };

type EventsQuery = SelectQueryBuilder<DB, 'events' | 'projects', EventRow>;

/**
 * Events the actor may see: those of projects the actor can read (push events and comments on
 * commits only where the actor may also download the code, as a guest of a private project may
 * not), and events outside any project only for their author.
 */
function visibleTo(eb: ExpressionBuilder<DB, 'events' | 'projects'>, actor: Actor | null) {
  if (actor?.isAdmin) return sql<SqlBool>`true`;
  const withoutProject = actor ? eb.and([eb('events.project_id', 'is', null), eb('events.author_id', '=', actor.user.id)]) : sql<SqlBool>`false`;
  return eb.or([
    withoutProject,
    eb.and([eb('projects.id', 'is not', null), projectVisibleTo(eb, actor), eb.or([eb.not(aboutCode(eb)), projectCodeVisibleTo(eb, actor)])]),
  ]);
}

/** Pushes and comments on commits: events that show the code. */
function aboutCode(eb: ExpressionBuilder<DB, 'events' | 'projects'>) {
  const commitNote = eb.exists(
    eb.selectFrom('notes').select('notes.id').whereRef('notes.id', '=', 'events.target_id').where('notes.noteable_type', '=', 'Commit'),
  );
  return eb.or([eb('events.action', '=', 'pushed'), eb.and([eb('events.target_type', '=', 'Note'), commitNote])]);
}

const startOfDay = (date: string) => `${date}T00:00:00.000Z`;
const startOfNextDay = (date: string) => new Date(Date.parse(startOfDay(date)) + 86_400_000).toISOString();

export function findEvents(db: Kysely<DB>, source: EventSource, actor: Actor | null, f: ListEventsQuery): EventsQuery {
  let q = db
    .selectFrom('events')
    .leftJoin('projects', 'projects.id', 'events.project_id')
    .selectAll('events')
    .where((eb) => visibleTo(eb, actor));
  if ('authorId' in source) q = q.where('events.author_id', '=', source.authorId);
  else if ('projectId' in source) q = q.where('events.project_id', '=', source.projectId);
  else {
    q = q.where('events.project_id', 'in', (eb) => eb.selectFrom('project_authorizations').select('project_id').where('user_id', '=', source.authorizedUserId));
  }
  if (f.action) q = q.where('events.action', '=', f.action);
  if (f.target_type) q = q.where('events.target_type', '=', TARGET_TYPES[f.target_type]);
  // Both bounds leave out the named day itself (the platform compares with its start and its end).
  if (f.before) q = q.where('events.created_at', '<', startOfDay(f.before));
  if (f.after) q = q.where('events.created_at', '>=', startOfNextDay(f.after));
  return q.orderBy('events.id', f.sort === 'asc' ? 'asc' : 'desc');
}

/** `:id` of /users/:id/events: digits are an ID, anything else a username (any case). */
export function findUserByIdOrUsername(db: Kysely<DB>, idOrUsername: string): Promise<UserRow | undefined> {
  const q = db.selectFrom('users').selectAll();
  if (/^\d+$/.test(idOrUsername)) {
    const id = Number(idOrUsername);
    return Number.isSafeInteger(id) ? q.where('id', '=', id).executeTakeFirst() : Promise.resolve(undefined);
  }
  return q.where(sql`lower(username)`, '=', idOrUsername.toLowerCase()).executeTakeFirst();
}

/** The authors of a page of events, in one query. */
export async function loadAuthors(db: Kysely<DB>, events: EventRow[]): Promise<Map<number, UserRow>> {
  const ids = [...new Set(events.map((e) => e.author_id))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((u) => [u.id, u]));
}
