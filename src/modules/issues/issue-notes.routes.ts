// Comments on issues (14.x lib/api/notes.rb for the Issue noteable): every call needs a signed-in
// caller; the issue must be readable ("404 Issue Not Found" otherwise); anyone who may read it
// comments unless its discussion is locked (then Reporters and up); a note is changed and deleted
// by its author, Maintainers and administrators.
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

export const issueNoteRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: REQUIRED, preHandler: loadProject('read_project') };

  async function requireIssue(req: FastifyRequest, iid: number): Promise<Noteable & { locked: boolean }> {
    const issue = await findIssueByIid(db, loadedProject(req).row.id, iid);
    if (!issue) throw apiError(404, '404 Not found');
    if (!(await canReadIssue(db, req.actor, issue))) throw notFound('Issue');
    return { ...noteableOf(issue), locked: Boolean(issue.discussion_locked) };
  }

  async function requireNote(noteable: Noteable, id: number): Promise<NoteRow> {
    const note = await findNote(db, noteable, id);
    if (!note) throw apiError(404, '404 Not found');
    return note;
  }

  function mayAdminister(req: FastifyRequest, note: NoteRow): boolean {
    return req.actor!.isAdmin || note.author_id === req.actor!.user.id || loadedProject(req).access >= ACCESS.MAINTAINER;
  }

  async function present(notes: NoteRow[], noteable: Noteable) {
    const authors = await noteAuthors(db, notes);
    return notes.map((note) => presentNote(note, note.author_id !== null ? authors.get(note.author_id) : undefined, noteable.iid, config.externalUrl));
  }

  api.get('/projects/:id/issues/:noteable_id/notes', { schema: { params: IssueNotesParams, querystring: ListNotesQuery, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssue(req, req.params.noteable_id);
    const { order_by: orderBy = 'created_at', sort = 'desc', activity_filter: activityFilter = 'all_notes' } = req.query;
    const rows = await paginate(req, reply, noteableNotes(db, noteable, { orderBy, sort, activityFilter }));
    return present(rows, noteable);
  });

  api.get('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssue(req, req.params.noteable_id);
    return (await present([await requireNote(noteable, req.params.note_id)], noteable))[0];
  });

  api.post('/projects/:id/issues/:noteable_id/notes', { schema: { params: IssueNotesParams, body: CreateNoteBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssue(req, req.params.noteable_id);
    const access = await issueAccess(req, loadedProject(req));
    if (!access.create || (noteable.locked && !access.admin)) throw forbidden();
    // A creation time of its own is for administrators and owners, as for issues.
    const backdated = req.body.created_at && (req.actor!.isAdmin || loadedProject(req).access >= ACCESS.OWNER) && !Number.isNaN(Date.parse(req.body.created_at));
    const note = await createComment(serviceContext(req), noteable, req.body.body, backdated ? new Date(req.body.created_at!).toISOString() : undefined);
    reply.code(201);
    return (await present([note], noteable))[0];
  });

  api.put('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, body: UpdateNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssue(req, req.params.noteable_id);
    const note = await requireNote(noteable, req.params.note_id);
    if (!mayAdminister(req, note)) throw forbidden();
    const updated = req.body.body === undefined ? note : await updateComment(serviceContext(req), note, req.body.body);
    return (await present([updated], noteable))[0];
  });

  api.delete('/projects/:id/issues/:noteable_id/notes/:note_id', { schema: { params: IssueNoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssue(req, req.params.noteable_id);
    const note = await requireNote(noteable, req.params.note_id);
    if (!mayAdminister(req, note)) throw forbidden();
    await deleteComment(serviceContext(req), note);
    return reply.code(204).send();
  });
};
