// Notes on issues, merge requests, project snippets and commits: comments people write and the system
// notes that record changes ("closed", "assigned to @x", "added ~1 label"). A comment records a `commented`
// activity event (target Note) and the to-dos of whom it mentions; a system note records neither.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { type FieldErrors, apiError, badRequest } from '../../core/errors.ts';
import type { NoteRow } from '../../db/schema.ts';
import { newDiscussionId } from '../../domain/discussion-ids.ts';
import { BLANK, rubyInspect, tooLong } from '../../domain/validation.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../../domain/activity-events.ts';
import { noteTodos } from '../todos/todos.service.ts';
import { type DiffNotePosition, type DiffRefs, type PositionInput, checkPosition } from './diff-positions.ts';

export type { DiffNotePosition, DiffRefs, PositionInput };

/** What a note is about: an issue, a merge request, an alert or a snippet of a project. */
export interface Noteable {
  type: 'Issue' | 'MergeRequest' | 'AlertManagement::Alert' | 'Snippet';
  id: number;
  /** Null for a snippet, which has none. */
  iid: number | null;
  projectId: number;
  title: string;
  /** Whoever wrote the noteable (who may resolve its threads), when that matters. */
  authorId?: number | null;
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

/**
 * Where a new comment goes among the noteable's discussions: a discussion of its own (an
 * individual note, or the first note of a thread, on a line of the diff when it has a position),
 * or a reply in an existing thread.
 */
export type Thread =
  | { kind: 'individual' }
  | { kind: 'discussion'; position: DiffNotePosition | null }
  | { kind: 'reply'; discussionId: string; type: 'DiscussionNote' | 'DiffNote'; position: string | null };

const INDIVIDUAL: Thread = { kind: 'individual' };

/** The type, discussion and position columns of a note in this thread. */
function threadValues(thread: Thread) {
  if (thread.kind === 'individual') return { type: null, discussion_id: newDiscussionId(), position: null };
  if (thread.kind === 'reply') return { type: thread.type, discussion_id: thread.discussionId, position: thread.position };
  return { type: thread.position ? 'DiffNote' : 'DiscussionNote', discussion_id: newDiscussionId(), position: thread.position ? JSON.stringify(thread.position) : null };
}

/** Notes of threads on merge requests can be resolved (ResolvableNote: DiscussionNote and DiffNote, not system notes). */
const resolvableIn = (noteableType: string, type: string | null, system: boolean) => !system && noteableType === 'MergeRequest' && (type === 'DiscussionNote' || type === 'DiffNote');

/** The row of a new note. */
function noteValues(target: NoteTarget, authorId: number, body: string, system: boolean, createdAt: string, position: DiffPosition | null = null, thread: Thread = INDIVIDUAL) {
  const threaded = threadValues(thread);
  return {
    project_id: target.projectId,
    noteable_type: target.noteableType,
    noteable_id: target.noteableId,
    commit_id: target.commitId,
    author_id: authorId,
    body,
    system,
    confidential: false,
    resolvable: resolvableIn(target.noteableType, threaded.type, system),
    ...threaded,
    type: position ? 'LegacyDiffNote' : threaded.type,
    path: position?.path ?? null,
    line: position?.line ?? null,
    line_type: position?.lineType ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

async function insertNote(
  ctx: ServiceContext,
  target: NoteTarget,
  authorId: number,
  body: string,
  system: boolean,
  createdAt: string,
  position: DiffPosition | null = null,
  thread: Thread = INDIVIDUAL,
): Promise<NoteRow> {
  return ctx.db.insertInto('notes').values(noteValues(target, authorId, body, system, createdAt, position, thread)).returningAll().executeTakeFirstOrThrow();
}

/** A system note by the acting user (or by `authorId`, an internal user such as the alert bot), inside the caller's transaction. */
export async function addSystemNote(ctx: ServiceContext, noteable: Noteable, body: string, authorId?: number): Promise<void> {
  const author = authorId ?? requireActor(ctx).user.id;
  await insertNote(ctx, targetOf(noteable), author, body, true, ctx.now().toISOString());
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

/** The note model's errors of its text. */
function bodyErrors(body: string): FieldErrors {
  const problems = body.trim() === '' ? [BLANK] : [...body].length > NOTE_MAX_LENGTH ? [tooLong(NOTE_MAX_LENGTH)] : [];
  return problems.length > 0 ? { note: problems } : {};
}

/**
 * The note model's validation, as "<prefix> {:note=>[…], …}" in a 400: after "400 Bad request - "
 * (bad_request!) unless `bare` (render_api_error!, as the commits API answers).
 */
function checkBody(body: string, prefix: string, bare = false, more: FieldErrors = {}): void {
  const errors = { ...bodyErrors(body), ...more };
  const message = `${prefix} ${rubyInspect(errors)}`;
  if (Object.keys(errors).length > 0) throw bare ? apiError(400, message) : badRequest(message);
}

/** POST …/notes: a comment, its activity event, and the noteable's updated_at. */
export async function createComment(ctx: ServiceContext, noteable: Noteable, body: string, createdAt?: string, thread: Thread = INDIVIDUAL): Promise<NoteRow> {
  checkBody(body, 'Note');
  return insertComment(ctx, noteable, body, createdAt, thread);
}

/** A comment that passed its checks, with everything a comment brings. */
async function insertComment(ctx: ServiceContext, noteable: Noteable, body: string, createdAt: string | undefined, thread: Thread): Promise<NoteRow> {
  const author = requireActor(ctx).user;
  return withTransaction(ctx, async (tx) => {
    const at = createdAt ?? tx.now().toISOString();
    const note = await insertNote(tx, targetOf(noteable), author.id, body, false, at, null, thread);
    await touchNoteable(tx, noteable);
    // A note has no title: the event's target_title is null, as on the platform.
    await recordEvent(tx, { projectId: noteable.projectId, authorId: author.id, action: 'commented', targetType: 'Note', targetId: note.id });
    // Notes on snippets make no to-dos (Note#can_create_todo?).
    if (noteable.type !== 'Snippet') await noteTodos(tx, { type: noteable.type, id: noteable.id, projectId: noteable.projectId }, { id: note.id, body });
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

/** A note touches what it is on (the note's `belongs_to :noteable, touch: true`). */
const NOTEABLE_TABLES = { Issue: 'issues', MergeRequest: 'merge_requests', Snippet: 'snippets', 'AlertManagement::Alert': 'alert_management_alerts' } as const;

async function touchNoteable(ctx: ServiceContext, noteable: Noteable): Promise<void> {
  const table = NOTEABLE_TABLES[noteable.type];
  await ctx.db.updateTable(table).set({ updated_at: ctx.now().toISOString() }).where('id', '=', noteable.id).execute();
}

/** A merge request's diff, where a diff note is placed: its repository (null when it has none) and its diff refs. */
export interface NoteableDiff {
  gitDir: string | null;
  refs: DiffRefs;
}

/**
 * POST …/discussions: the first note of a new thread (DiscussionNote), on a line of the merge
 * request's diff (DiffNote) when `position` names one. Text and position are checked together,
 * as the model validates them.
 */
export async function createDiscussion(ctx: ServiceContext, noteable: Noteable, body: string, options: { createdAt?: string; position?: PositionInput; diff?: NoteableDiff }): Promise<NoteRow> {
  let position: DiffNotePosition | null = null;
  let positionErrors: FieldErrors = {};
  if (options.position && options.diff) ({ position, errors: positionErrors } = await checkPosition(options.diff.gitDir, options.diff.refs, options.position));
  checkBody(body, 'Note', false, positionErrors);
  return insertComment(ctx, noteable, body, options.createdAt, { kind: 'discussion', position });
}

/**
 * POST …/discussions/:discussion_id/notes: a reply in the thread that `first` starts. An individual
 * note becomes the first note of a thread (IndividualNoteDiscussion#convert_to_discussion!);
 * replies in a diff thread are diff notes on the same line.
 */
export async function replyToDiscussion(ctx: ServiceContext, noteable: Noteable, first: NoteRow, body: string, createdAt?: string): Promise<NoteRow> {
  checkBody(body, 'Note');
  return withTransaction(ctx, async (tx) => {
    if (first.type === null) {
      await tx.db.updateTable('notes').set({ type: 'DiscussionNote', resolvable: resolvableIn(first.noteable_type, 'DiscussionNote', false) }).where('id', '=', first.id).execute();
    }
    const type = first.type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote';
    return insertComment(tx, noteable, body, createdAt, { kind: 'reply', discussionId: first.discussion_id as string, type, position: type === 'DiffNote' ? first.position : null });
  });
}

/**
 * Resolves (or unresolves) the resolvable notes among these, by the acting user: a note already
 * resolved keeps who resolved it and when (ResolvableNote#resolve!, ResolvableDiscussion#resolve!).
 */
export async function setNotesResolved(ctx: ServiceContext, notes: readonly NoteRow[], resolved: boolean): Promise<void> {
  const ids = notes.filter((n) => n.resolvable && (n.resolved_at !== null) !== resolved).map((n) => n.id);
  if (ids.length === 0) return;
  const actor = requireActor(ctx).user;
  const set = resolved ? { resolved_at: ctx.now().toISOString(), resolved_by_id: actor.id } : { resolved_at: null, resolved_by_id: null };
  await ctx.db.updateTable('notes').set(set).where('id', 'in', ids).execute();
}
