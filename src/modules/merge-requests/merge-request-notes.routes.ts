// Comments on merge requests (14.x lib/api/notes.rb for the MergeRequest noteable): every call
// needs a signed-in caller and a merge request the caller may read ("404 Not found" otherwise);
// readers comment unless the discussion is locked (then Developers and up); a note is changed and
// deleted by its author, Maintainers and administrators.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { MergeRequestRow, NoteRow } from '../../db/schema.ts';
import { mayAdministerNote, noteCreatedAt } from '../issues/issue-notes.routes.ts';
import { findNote, noteAuthors, noteableNotes } from '../notes/notes.finder.ts';
import { presentNote } from '../notes/notes.presenter.ts';
import { CreateNoteBody, ListNotesQuery, NoteEntity, UpdateNoteBody } from '../notes/notes.schemas.ts';
import { type Noteable, createComment, deleteComment, updateComment } from '../notes/notes.service.ts';
import { findMergeRequestByIid } from './merge-requests.finder.ts';
import { mergeRequestAccess } from './merge-requests.routes.ts';
import { noteableOf } from './merge-requests.service.ts';

const REQUIRED = { auth: 'required' } as const;
const NotesParams = Params({ id: IdOrPath, noteable_id: Type.Integer() });
const NoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), note_id: Type.Integer() });

export type MergeRequestNoteable = Noteable & { type: 'MergeRequest'; locked: boolean; admin: boolean; authorId: number | null; row: MergeRequestRow };

/** After loadProject: the merge request the path names, if the caller may read it. */
export async function requireMergeRequestNoteable(req: FastifyRequest, iid: number): Promise<MergeRequestNoteable> {
  const access = await mergeRequestAccess(req, loadedProject(req));
  const mr = access.read ? await findMergeRequestByIid(req.server.deps.db, loadedProject(req).row.id, iid) : undefined;
  if (!mr) throw apiError(404, '404 Not found');
  return { ...noteableOf(mr), type: 'MergeRequest', locked: Boolean(mr.discussion_locked), admin: access.admin, authorId: mr.author_id, row: mr };
}

export async function requireMergeRequestNote(req: FastifyRequest, noteable: Noteable, id: number): Promise<NoteRow> {
  const note = await findNote(req.server.deps.db, noteable, id);
  if (!note) throw apiError(404, '404 Not found');
  return note;
}

/** create_note: readers, unless the project is archived or the discussion locked (then Developers and up). */
export function requireMergeRequestCommenter(req: FastifyRequest, noteable: MergeRequestNoteable): void {
  if (loadedProject(req).row.archived || (noteable.locked && !noteable.admin)) throw forbidden();
}

export const mergeRequestNoteRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: REQUIRED, preHandler: loadProject('read_project') };
  const base = '/projects/:id/merge_requests/:noteable_id/notes';

  async function present(notes: NoteRow[], noteable: Noteable) {
    const users = await noteAuthors(db, notes);
    return notes.map((note) => presentNote(note, users, noteable.iid, config.externalUrl));
  }

  api.get(base, { schema: { params: NotesParams, querystring: ListNotesQuery, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const { order_by: orderBy = 'created_at', sort = 'desc', activity_filter: activityFilter = 'all_notes' } = req.query;
    return present(await paginate(req, reply, noteableNotes(db, noteable, { orderBy, sort, activityFilter })), noteable);
  });

  api.get(`${base}/:note_id`, { schema: { params: NoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    return (await present([await requireMergeRequestNote(req, noteable, req.params.note_id)], noteable))[0];
  });

  api.post(base, { schema: { params: NotesParams, body: CreateNoteBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    requireMergeRequestCommenter(req, noteable);
    const note = await createComment(serviceContext(req), noteable, req.body.body, noteCreatedAt(req, req.body.created_at));
    reply.code(201);
    return (await present([note], noteable))[0];
  });

  api.put(`${base}/:note_id`, { schema: { params: NoteParams, body: UpdateNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const note = await requireMergeRequestNote(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    const updated = req.body.body === undefined ? note : await updateComment(serviceContext(req), note, req.body.body);
    return (await present([updated], noteable))[0];
  });

  api.delete(`${base}/:note_id`, { schema: { params: NoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const note = await requireMergeRequestNote(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    await deleteComment(serviceContext(req), note);
    return reply.code(204).send();
  });
};
