// Notes on issues, commits (and, later, merge requests): comments people write and the system
// notes that record changes ("closed", "assigned to @x", "added ~1 label"). A comment records a `commented`
// activity event (target Note) and the to-dos of whom it mentions; a system note records neither.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { apiError, badRequest } from '../../core/errors.ts';
import type { NoteRow } from '../../db/schema.ts';
import { newDiscussionId } from '../../domain/discussion-ids.ts';
import { BLANK, rubyInspect, tooLong } from '../../domain/validation.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../../domain/activity-events.ts';
import { noteTodos } from '../todos/todos.service.ts';

/** What a note is about: an issue or a merge request of a project. */
export interface Noteable {
  type: 'Issue' | 'MergeRequest';
  id: number;
  iid: number;
  projectId: number;
  title: string;
}

/** The platform's limit on a note's text. */
export const NOTE_MAX_LENGTH = 1_000_000;

/** Where a note goes: a noteable's id, or a commit's sha. */
interface NoteTarget {
  projectId: number;
  noteableType: string;
  noteableId: number | null;
  commitId: string | null;
}

/** A line comment's place in a commit's diff (the platform's legacy diff note). */
export interface DiffPosition {
  path: string;
  line: number;
  lineType: 'new' | 'old';
}

const targetOf = (noteable: Noteable): NoteTarget => ({ projectId: noteable.projectId, noteableType: noteable.type, noteableId: noteable.id, commitId: null });

/** The row of a new note. */
function noteValues(target: NoteTarget, authorId: number, body: string, system: boolean, createdAt: string, position: DiffPosition | null = null) {
  return {
    project_id: target.projectId,
    noteable_type: target.noteableType,
    noteable_id: target.noteableId,
    commit_id: target.commitId,
    author_id: authorId,
    body,
    system,
    confidential: false,
    resolvable: false,
    type: position ? 'LegacyDiffNote' : null,
    discussion_id: newDiscussionId(),
    path: position?.path ?? null,
    line: position?.line ?? null,
    line_type: position?.lineType ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

async function insertNote(ctx: ServiceContext, target: NoteTarget, authorId: number, body: string, system: boolean, createdAt: string, position: DiffPosition | null = null): Promise<NoteRow> {
  return ctx.db.insertInto('notes').values(noteValues(target, authorId, body, system, createdAt, position)).returningAll().executeTakeFirstOrThrow();
}

/** A system note by the acting user, inside the caller's transaction. */
export async function addSystemNote(ctx: ServiceContext, noteable: Noteable, body: string): Promise<void> {
  const author = requireActor(ctx).user;
  await insertNote(ctx, targetOf(noteable), author.id, body, true, ctx.now().toISOString());
}

/** Rows per insert of addSystemNotes, well under either database's limit on bound values. */
const NOTES_PER_INSERT = 500;

/** The same system note by the acting user on each of these noteables, a batch per insert. */
export async function addSystemNotes(ctx: ServiceContext, noteables: readonly Noteable[], body: string): Promise<void> {
  const author = requireActor(ctx).user;
  const at = ctx.now().toISOString();
  for (let i = 0; i < noteables.length; i += NOTES_PER_INSERT) {
    const batch = noteables.slice(i, i + NOTES_PER_INSERT);
    await ctx.db
      .insertInto('notes')
      .values(batch.map((noteable) => noteValues(targetOf(noteable), author.id, body, true, at)))
      .execute();
  }
}

/**
 * The note model's validation, as "<prefix> {:note=>[…]}" in a 400: after "400 Bad request - "
 * (bad_request!) unless `bare` (render_api_error!, as the commits API answers).
 */
function checkBody(body: string, prefix: string, bare = false): void {
  const problems = body.trim() === '' ? [BLANK] : [...body].length > NOTE_MAX_LENGTH ? [tooLong(NOTE_MAX_LENGTH)] : [];
  const message = `${prefix} ${rubyInspect({ note: problems })}`;
  if (problems.length > 0) throw bare ? apiError(400, message) : badRequest(message);
}

/** POST …/notes: a comment, its activity event, and the noteable's updated_at. */
export async function createComment(ctx: ServiceContext, noteable: Noteable, body: string, createdAt?: string): Promise<NoteRow> {
  checkBody(body, 'Note');
  const author = requireActor(ctx).user;
  return withTransaction(ctx, async (tx) => {
    const at = createdAt ?? tx.now().toISOString();
    const note = await insertNote(tx, targetOf(noteable), author.id, body, false, at);
    await touchNoteable(tx, noteable);
    // A note has no title: the event's target_title is null, as on the platform.
    await recordEvent(tx, { projectId: noteable.projectId, authorId: author.id, action: 'commented', targetType: 'Note', targetId: note.id });
    await noteTodos(tx, { type: noteable.type, id: noteable.id, projectId: noteable.projectId }, { id: note.id, body });
    await enqueueHookEvent(tx.db, { projectId: noteable.projectId }, { kind: 'note', noteId: note.id, userId: author.id });
    return note;
  });
}

/** A commit of a project, as its comments name it. */
export interface CommentedCommit {
  projectId: number;
  sha: string;
}

/**
 * POST …/repository/commits/:sha/comments: a comment on the commit, on a line of its diff when
 * `position` names one, and its activity event.
 */
export async function createCommitComment(ctx: ServiceContext, commit: CommentedCommit, body: string, position: DiffPosition | null): Promise<NoteRow> {
  checkBody(body, 'Failed to save note', true);
  const author = requireActor(ctx).user;
  return withTransaction(ctx, async (tx) => {
    const target = { projectId: commit.projectId, noteableType: 'Commit', noteableId: null, commitId: commit.sha };
    const note = await insertNote(tx, target, author.id, body, false, tx.now().toISOString(), position);
    // A note has no title: the event's target_title is null, as on the platform.
    await recordEvent(tx, { projectId: commit.projectId, authorId: author.id, action: 'commented', targetType: 'Note', targetId: note.id });
    await enqueueHookEvent(tx.db, { projectId: commit.projectId }, { kind: 'note', noteId: note.id, userId: author.id });
    return note;
  });
}

/** PUT …/notes/:note_id: a new text; whoever it mentions anew gets a to-do. */
export async function updateComment(ctx: ServiceContext, note: NoteRow, body: string): Promise<NoteRow> {
  checkBody(body, 'Failed to save note');
  const actor = requireActor(ctx).user;
  return withTransaction(ctx, async (tx) => {
    const updated = await tx.db
      .updateTable('notes')
      .set({ body, updated_at: tx.now().toISOString(), updated_by_id: actor.id })
      .where('id', '=', note.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const type = note.noteable_type;
    if ((type === 'Issue' || type === 'MergeRequest') && note.noteable_id !== null && body !== note.body) {
      await noteTodos(tx, { type, id: note.noteable_id, projectId: note.project_id }, { id: note.id, body }, note.body);
    }
    return updated;
  });
}

export async function deleteComment(ctx: ServiceContext, note: NoteRow): Promise<void> {
  await ctx.db.deleteFrom('notes').where('id', '=', note.id).execute();
}

async function touchNoteable(ctx: ServiceContext, noteable: Noteable): Promise<void> {
  const table = noteable.type === 'Issue' ? 'issues' : 'merge_requests';
  await ctx.db.updateTable(table).set({ updated_at: ctx.now().toISOString() }).where('id', '=', noteable.id).execute();
}
