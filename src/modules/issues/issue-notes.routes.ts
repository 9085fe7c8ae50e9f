// Comments on issues (14.x lib/api/notes.rb for the Issue noteable): every call needs a signed-in
// caller; the issue must be readable ("404 Issue Not Found" otherwise); anyone who may read it
// comments unless its discussion is locked (then Reporters and up); a note is changed and deleted
// by its author, Maintainers and administrators. The loaders and checks are shared with the
// issue's discussions and resource events, and with merge requests' notes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ACCESS } from '../../core/access/levels.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { Params, IdOrPath } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { NoteRow } from '../../db/schema.ts';
import { findNote, noteAuthors, noteableNotes } from '../notes/notes.finder.ts';
import { presentNote } from '../notes/notes.presenter.ts';
import { CreateNoteBody, ListNotesQuery, NoteEntity, UpdateNoteBody } from '../notes/notes.schemas.ts';
import { type Noteable, createComment, deleteComment, updateComment } from '../notes/notes.service.ts';
import { canReadIssue, findIssueByIid } from './issues.finder.ts';
import { issueAccess } from './issues.routes.ts';
import { noteableOf } from './issues.service.ts';

const REQUIRED = { auth: 'required' } as const;
const IssueNotesParams = Params({ id: IdOrPath, noteable_id: Type.Integer() });
const IssueNoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), note_id: Type.Integer() });

export type IssueNoteable = Noteable & { type: 'Issue'; locked: boolean; authorId: number | null };

/** After loadProject: the issue the path names, if the caller may read it. */
export async function requireIssueNoteable(req: FastifyRequest, iid: number): Promise<IssueNoteable> {
  const { db } = req.server.deps;
  const issue = await findIssueByIid(db, loadedProject(req).row.id, iid);
  if (!issue) throw apiError(404, '404 Not found');
  if (!(await canReadIssue(db, req.actor, issue))) throw notFound('Issue');
  return { ...noteableOf(issue), type: 'Issue', locked: Boolean(issue.discussion_locked), authorId: issue.author_id };
}

export async function requireIssueNote(req: FastifyRequest, noteable: Noteable, id: number): Promise<NoteRow> {
  const note = await findNote(req.server.deps.db, noteable, id);
  if (!note) throw apiError(404, '404 Not found');
  return note;
}

/** create_note: whoever may create issues, unless the discussion is locked (then those who may administer them). */
export async function requireIssueCommenter(req: FastifyRequest, noteable: IssueNoteable): Promise<void> {
  const access = await issueAccess(req, loadedProject(req));
  if (!access.create || (noteable.locked && !access.admin)) throw forbidden();
}

/** admin_note: the note's author, Maintainers and administrators. */
export function mayAdministerNote(req: FastifyRequest, note: NoteRow): boolean {
  return req.actor!.isAdmin || note.author_id === req.actor!.user.id || loadedProject(req).access >= ACCESS.MAINTAINER;
}

/** resolve_note beyond the note's own author: the noteable's author, Developers and up, administrators. */
export function mayResolveNotes(req: FastifyRequest, noteable: { authorId: number | null }): boolean {
  return req.actor!.isAdmin || noteable.authorId === req.actor!.user.id || loadedProject(req).access >= ACCESS.DEVELOPER;
}

/** A creation time of its own is for administrators and owners (set_note_created_at). */
export function noteCreatedAt(req: FastifyRequest, createdAt: string | undefined): string | undefined {
  const backdated = createdAt && (req.actor!.isAdmin || loadedProject(req).access >= ACCESS.OWNER) && !Number.isNaN(Date.parse(createdAt));
  return backdated ? new Date(createdAt).toISOString() : undefined;
}

export const issueNoteRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: REQUIRED, preHandler: loadProject('read_project') };

  async function present(notes: NoteRow[], noteable: Noteable) {
    const users = await noteAuthors(db, notes);
    return notes.map((note) => presentNote(note, users, noteable.iid, config.externalUrl));
  }

  api.get('/projects/:id/issues/:noteable_id/notes', { schema: { params: IssueNotesParams, querystring: ListNotesQuery, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const { order_by: orderBy = 'created_at', sort = 'desc', activity_filter: activityFilter = 'all_notes' } = req.query;
    const rows = await paginate(req, reply, noteableNotes(db, noteable, { orderBy, sort, activityFilter }));
    return present(rows, noteable);
  });

  api.get('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    return (await present([await requireIssueNote(req, noteable, req.params.note_id)], noteable))[0];
  });

  api.post('/projects/:id/issues/:noteable_id/notes', { schema: { params: IssueNotesParams, body: CreateNoteBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    await requireIssueCommenter(req, noteable);
    const note = await createComment(serviceContext(req), noteable, req.body.body, noteCreatedAt(req, req.body.created_at));
    reply.code(201);
    return (await present([note], noteable))[0];
  });

  api.put('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, body: UpdateNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const note = await requireIssueNote(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    const updated = req.body.body === undefined ? note : await updateComment(serviceContext(req), note, req.body.body);
    return (await present([updated], noteable))[0];
  });

  api.delete('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const note = await requireIssueNote(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    await deleteComment(serviceContext(req), note);
    return reply.code(204).send();
  });
};
