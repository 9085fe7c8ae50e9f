// Reading notes: a noteable's or a commit's, paged and ordered in the database, and their authors in one query.
import type { Kysely } from 'kysely';
import type { DB, NoteRow, UserRow } from '../../db/schema.ts';
import type { Noteable } from './notes.service.ts';

export interface NoteListOptions {
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
  activityFilter: 'all_notes' | 'only_comments' | 'only_activity';
}

export function noteableNotes(db: Kysely<DB>, noteable: Noteable, options: NoteListOptions) {
  let q = db.selectFrom('notes').selectAll().where('noteable_type', '=', noteable.type).where('noteable_id', '=', noteable.id);
  if (options.activityFilter === 'only_comments') q = q.where('system', '=', false);
  if (options.activityFilter === 'only_activity') q = q.where('system', '=', true);
  return q.orderBy(options.orderBy, options.sort).orderBy('id', options.sort);
}

/** A commit's comments, oldest first (the platform's `commit.notes.order(:created_at)`). */
export function commitNotes(db: Kysely<DB>, projectId: number, sha: string) {
  return db
    .selectFrom('notes')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('commit_id', '=', sha)
    .where('noteable_type', '=', 'Commit')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc');
}

/** Notes by id (an activity page's targets), each with the iid of the issue it is on, if any. */
export async function notesByIds(db: Kysely<DB>, ids: readonly number[]): Promise<Map<number, { note: NoteRow; noteableIid: number | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('notes')
    .leftJoin('issues', (join) => join.onRef('issues.id', '=', 'notes.noteable_id').on('notes.noteable_type', '=', 'Issue'))
    .selectAll('notes')
    .select('issues.iid as noteable_iid')
    .where('notes.id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map(({ noteable_iid: iid, ...note }) => [note.id, { note, noteableIid: iid ?? null }]));
}

export async function findNote(db: Kysely<DB>, noteable: Noteable, id: number): Promise<NoteRow | undefined> {
  return db.selectFrom('notes').selectAll().where('id', '=', id).where('noteable_type', '=', noteable.type).where('noteable_id', '=', noteable.id).executeTakeFirst();
}

/** The users these notes name, in one query: their authors and whoever resolved them. */
export async function noteAuthors(db: Kysely<DB>, notes: readonly NoteRow[]): Promise<Map<number, UserRow>> {
  const ids = [...new Set(notes.flatMap((n) => [n.author_id, n.resolved_by_id]).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((u) => [u.id, u]));
}

/**
 * The noteable's discussions, one row each, in the order they started (Noteable#discussion_ids_relation:
 * by their first note's creation, then its id).
 */
export function noteableDiscussionIds(db: Kysely<DB>, noteable: Noteable) {
  return db
    .selectFrom('notes')
    .select((eb) => ['discussion_id', eb.fn.min('created_at').as('first_created_at'), eb.fn.min('id').as('first_id')])
    .where('noteable_type', '=', noteable.type)
    .where('noteable_id', '=', noteable.id)
    .groupBy('discussion_id')
    .orderBy('first_created_at')
    .orderBy('first_id');
}

/** The notes of these discussions of the noteable, oldest first (Note.fresh). */
export async function discussionNotes(db: Kysely<DB>, noteable: Noteable, discussionIds: readonly string[]): Promise<NoteRow[]> {
  if (discussionIds.length === 0) return [];
  return db
    .selectFrom('notes')
    .selectAll()
    .where('noteable_type', '=', noteable.type)
    .where('noteable_id', '=', noteable.id)
    .where('discussion_id', 'in', [...new Set(discussionIds)])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
