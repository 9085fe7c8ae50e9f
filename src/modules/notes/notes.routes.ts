// The notes and discussions endpoints of a project's noteable (14.x lib/api/notes.rb and
// discussions.rb), registered once for each kind that has them: `/projects/:id/<kind>/:noteable_id/
// notes` and `…/discussions`. Every call needs a signed-in caller and the project (read_project);
// the kind says how the noteable is found (its 404s) and who may comment on it. A note is changed
// and deleted by its author, Maintainers and administrators (admin_note); a creation time of its
// own is for administrators and owners. Notes here are never resolvable (those of merge requests'
// threads are, and have routes of their own).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ACCESS } from '../../core/access/levels.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, badRequest, forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { NoteRow } from '../../db/schema.ts';
import { discussionNotes, findNote, noteAuthors, noteableDiscussionIds, noteableNotes } from './notes.finder.ts';
import { presentDiscussion, presentDiscussions, presentNote } from './notes.presenter.ts';
import { CreateDiscussionBody, CreateNoteBody, DiscussionEntity, ListDiscussionsQuery, ListNotesQuery, NoteEntity, ReplyBody, UpdateDiscussionNoteBody, UpdateNoteBody } from './notes.schemas.ts';
import { type Noteable, createComment, createDiscussion, deleteComment, replyToDiscussion, updateComment } from './notes.service.ts';

const REQUIRED = { auth: 'required' } as const;
const NoteableParams = Params({ id: IdOrPath, noteable_id: Type.Integer() });
const NoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), note_id: Type.Integer() });
const DiscussionParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String() });
const DiscussionNoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String(), note_id: Type.Integer() });

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

/** A note of the noteable by id; ActiveRecord's "404 Not found" when it has none such. */
export async function requireNoteOf(req: FastifyRequest, noteable: Noteable, id: number): Promise<NoteRow> {
  const note = await findNote(req.server.deps.db, noteable, id);
  if (!note) throw apiError(404, '404 Not found');
  return note;
}

/** Notes as the notes and discussions routes answer them, with their authors. */
export async function presentNotes(req: FastifyRequest, notes: NoteRow[], noteable: Noteable) {
  const { db, config } = req.server.deps;
  const users = await noteAuthors(db, notes);
  return notes.map((note) => presentNote(note, users, noteable.iid, config.externalUrl));
}

/** The notes of a discussion of the noteable, oldest first; `what` names it in the 404. */
export async function requireThread(req: FastifyRequest, noteable: Noteable, discussionId: string, what: string): Promise<NoteRow[]> {
  const notes = await discussionNotes(req.server.deps.db, noteable, [discussionId]);
  if (notes.length === 0) throw notFound(what);
  return notes;
}

/** A discussion as the discussions routes answer it. */
export async function presentThread(req: FastifyRequest, notes: NoteRow[], noteable: Noteable) {
  return presentDiscussion(notes, await noteAuthors(req.server.deps.db, notes), noteable.iid, req.server.deps.config.externalUrl);
}

/** How one kind of noteable is reached from its routes. */
export interface NoteableKind<N extends Noteable> {
  /** The path segment after the project: `issues`, `snippets`. */
  collection: string;
  /** After loadProject: the noteable the path names, if the caller may read its notes; throws the kind's 404 otherwise. */
  load(req: FastifyRequest, id: number): Promise<N>;
  /** create_note on the noteable; throws 403 when the caller may not comment. */
  requireCommenter(req: FastifyRequest, noteable: N): Promise<void> | void;
  /** Also register `…/discussions` (threads of notes). */
  discussions: boolean;
}

/** The notes (and, when the kind has them, discussions) routes of one kind of noteable. */
export function noteableRoutes<N extends Noteable>(kind: NoteableKind<N>): FastifyPluginAsyncTypebox {
  return async (api) => {
    const { db, config } = api.deps;
    const readable = { config: REQUIRED, preHandler: loadProject('read_project') };
    const notesBase = `/projects/:id/${kind.collection}/:noteable_id/notes`;

    const presentOne = async (req: FastifyRequest, note: NoteRow, noteable: Noteable) => (await presentNotes(req, [note], noteable))[0];

    /** A note the caller may change or remove (admin_note), else 403. */
    async function administeredNote(req: FastifyRequest, noteable: N, id: number): Promise<NoteRow> {
      const note = await requireNoteOf(req, noteable, id);
      if (!mayAdministerNote(req, note)) throw forbidden();
      return note;
    }

    api.get(notesBase, { schema: { params: NoteableParams, querystring: ListNotesQuery, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      const { order_by: orderBy = 'created_at', sort = 'desc', activity_filter: activityFilter = 'all_notes' } = req.query;
      return presentNotes(req, await paginate(req, reply, noteableNotes(db, noteable, { orderBy, sort, activityFilter })), noteable);
    });

    api.get(`${notesBase}/:note_id`, { schema: { params: NoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      return presentOne(req, await requireNoteOf(req, noteable, req.params.note_id), noteable);
    });

    api.post(notesBase, { schema: { params: NoteableParams, body: CreateNoteBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      await kind.requireCommenter(req, noteable);
      const note = await createComment(serviceContext(req), noteable, req.body.body, noteCreatedAt(req, req.body.created_at));
      reply.code(201);
      return presentOne(req, note, noteable);
    });

    api.put(`${notesBase}/:note_id`, { schema: { params: NoteParams, body: UpdateNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      const note = await administeredNote(req, noteable, req.params.note_id);
      return presentOne(req, req.body.body === undefined ? note : await updateComment(serviceContext(req), note, req.body.body), noteable);
    });

    api.delete(`${notesBase}/:note_id`, { schema: { params: NoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      await deleteComment(serviceContext(req), await administeredNote(req, noteable, req.params.note_id));
      return reply.code(204).send();
    });

    if (!kind.discussions) return;
    const base = `/projects/:id/${kind.collection}/:noteable_id/discussions`;

    api.get(base, { schema: { params: NoteableParams, querystring: ListDiscussionsQuery, response: { 200: Type.Array(DiscussionEntity) } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      const ids = (await paginate(req, reply, noteableDiscussionIds(db, noteable))).map((row) => row.discussion_id as string);
      const notes = await discussionNotes(db, noteable, ids);
      return presentDiscussions(ids, notes, await noteAuthors(db, notes), noteable.iid, config.externalUrl);
    });

    api.get(`${base}/:discussion_id`, { schema: { params: DiscussionParams, response: { 200: DiscussionEntity } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      return presentThread(req, await requireThread(req, noteable, req.params.discussion_id, 'Discussion'), noteable);
    });

    api.post(base, { schema: { params: NoteableParams, body: CreateDiscussionBody, response: { 201: DiscussionEntity } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      await kind.requireCommenter(req, noteable);
      const note = await createDiscussion(serviceContext(req), noteable, req.body.body, { createdAt: noteCreatedAt(req, req.body.created_at) });
      reply.code(201);
      return presentThread(req, [note], noteable);
    });

    api.get(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      return presentNotes(req, await requireThread(req, noteable, req.params.discussion_id, 'Notes'), noteable);
    });

    api.post(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, body: ReplyBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      const [first] = await requireThread(req, noteable, req.params.discussion_id, 'Discussion');
      if (first.system) throw badRequest('Discussion can not be replied to.');
      await kind.requireCommenter(req, noteable);
      const note = await replyToDiscussion(serviceContext(req), noteable, first, req.body.body, noteCreatedAt(req, req.body.created_at));
      reply.code(201);
      return presentOne(req, note, noteable);
    });

    api.get(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      return presentOne(req, await requireNoteOf(req, noteable, req.params.note_id), noteable);
    });

    api.put(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, body: UpdateDiscussionNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      const note = await requireNoteOf(req, noteable, req.params.note_id);
      if (req.body.resolved !== undefined) {
        // resolve_note: the note's author or the noteable's, Developers and up; none of these notes is resolvable.
        if (!mayAdministerNote(req, note) && !mayResolveNotes(req, { authorId: noteable.authorId ?? null })) throw forbidden();
        throw badRequest('Note is not resolvable');
      }
      if (!mayAdministerNote(req, note)) throw forbidden();
      return presentOne(req, await updateComment(serviceContext(req), note, req.body.body as string), noteable);
    });

    api.delete(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
      const noteable = await kind.load(req, req.params.noteable_id);
      await deleteComment(serviceContext(req), await administeredNote(req, noteable, req.params.note_id));
      return reply.code(204).send();
    });
  };
}
