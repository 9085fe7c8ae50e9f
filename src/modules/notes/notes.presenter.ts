// The note entity from a note row, its author and the iid of what it is about.
import type { NoteRow, UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';

export function presentNote(note: NoteRow, author: UserRow | undefined, noteableIid: number | null, baseUrl: string) {
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: author ? userBasicFields(author, baseUrl) : null,
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: Boolean(note.system),
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    resolvable: Boolean(note.resolvable),
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
