// The note entity from a note row, the users it names and the iid of what it is about; the
// discussion entity from the notes of a discussion.
import type { NoteRow, UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { DiffNotePosition } from './diff-positions.ts';

/**
 * `users` holds the note's author and, for a resolvable note, whoever resolved it; `resolved` and
 * `resolved_by` are shown for resolvable notes only, `position` for diff notes only.
 */
export function presentNote(note: NoteRow, users: ReadonlyMap<number, UserRow>, noteableIid: number | null, baseUrl: string) {
  const user = (id: number | null) => {
    const row = id === null ? undefined : users.get(id);
    return row ? userBasicFields(row, baseUrl) : null;
  };
  const resolvable = Boolean(note.resolvable);
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: user(note.author_id),
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: Boolean(note.system),
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    ...(note.type === 'DiffNote' && note.position !== null ? { position: JSON.parse(note.position) as DiffNotePosition } : {}),
    resolvable,
    ...(resolvable ? { resolved: note.resolved_at !== null, resolved_by: user(note.resolved_by_id) } : {}),
    resolved_at: note.resolved_at,
    confidential: Boolean(note.confidential),
    noteable_iid: noteableIid,
    commands_changes: {},
  };
}

/** A comment on a commit (14.x Entities::CommitNote): its place in the diff only for a line comment. */
export function presentCommitNote(note: NoteRow, author: UserRow | undefined, baseUrl: string) {
  const onLine = note.type === 'LegacyDiffNote';
  return {
    note: note.body,
    path: onLine ? note.path : null,
    line: onLine ? note.line : null,
    line_type: onLine ? note.line_type : null,
    // Null once its author's account was deleted for good.
    author: author ? userBasicFields(author, baseUrl) : null,
    created_at: note.created_at,
  };
}

/**
 * A discussion (14.x Entities::Discussion) from its notes, oldest first: an individual note's
 * discussion is the note alone (IndividualNoteDiscussion); a thread starts with a DiscussionNote or
 * a DiffNote.
 */
export function presentDiscussion(notes: readonly NoteRow[], users: ReadonlyMap<number, UserRow>, noteableIid: number | null, baseUrl: string) {
  return {
    id: notes[0].discussion_id as string,
    individual_note: notes[0].type === null,
    notes: notes.map((note) => presentNote(note, users, noteableIid, baseUrl)),
  };
}

/** Notes of several discussions, oldest first, as discussions in the order of `ids`. */
export function presentDiscussions(ids: readonly string[], notes: readonly NoteRow[], users: ReadonlyMap<number, UserRow>, noteableIid: number | null, baseUrl: string) {
  const byDiscussion = Map.groupBy(notes, (note) => note.discussion_id as string);
  return ids.flatMap((id) => {
    const thread = byDiscussion.get(id);
    return thread ? [presentDiscussion(thread, users, noteableIid, baseUrl)] : [];
  });
}
