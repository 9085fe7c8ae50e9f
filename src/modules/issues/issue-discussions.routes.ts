// Threads of comments on issues (14.x lib/api/discussions.rb for the Issue noteable): every call
// needs a signed-in caller and an issue the caller may read, as its notes do. A thread is listed
// with all its notes; an individual note is a discussion of its own. Notes of a thread are
// changed and deleted as notes are (by their author, Maintainers and administrators); notes of
// issues cannot be resolved.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { badRequest, forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { NoteRow } from '../../db/schema.ts';
import { discussionNotes, noteAuthors, noteableDiscussionIds } from '../notes/notes.finder.ts';
import { presentDiscussion, presentDiscussions, presentNote } from '../notes/notes.presenter.ts';
import { CreateDiscussionBody, DiscussionEntity, ListDiscussionsQuery, NoteEntity, ReplyBody, UpdateDiscussionNoteBody } from '../notes/notes.schemas.ts';
import { type Noteable, createDiscussion, deleteComment, replyToDiscussion, updateComment } from '../notes/notes.service.ts';
import { mayAdministerNote, mayResolveNotes, noteCreatedAt, requireIssueCommenter, requireIssueNote, requireIssueNoteable } from './issue-notes.routes.ts';

const REQUIRED = { auth: 'required' } as const;
const IssueParams = Params({ id: IdOrPath, noteable_id: Type.Integer() });
const DiscussionParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String() });
const DiscussionNoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String(), note_id: Type.Integer() });

export const issueDiscussionRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: REQUIRED, preHandler: loadProject('read_project') };
  const base = '/projects/:id/issues/:noteable_id/discussions';

  async function presentNotes(notes: NoteRow[], noteable: Noteable) {
    const users = await noteAuthors(db, notes);
    return notes.map((note) => presentNote(note, users, noteable.iid, config.externalUrl));
  }

  /** The notes of a discussion of the issue, oldest first; `what` names it in the 404. */
  async function requireThread(noteable: Noteable, discussionId: string, what: string): Promise<NoteRow[]> {
    const notes = await discussionNotes(db, noteable, [discussionId]);
    if (notes.length === 0) throw notFound(what);
    return notes;
  }

  async function presentThread(notes: NoteRow[], noteable: Noteable) {
    return presentDiscussion(notes, await noteAuthors(db, notes), noteable.iid, config.externalUrl);
  }

  api.get(base, { schema: { params: IssueParams, querystring: ListDiscussionsQuery, response: { 200: Type.Array(DiscussionEntity) } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const ids = (await paginate(req, reply, noteableDiscussionIds(db, noteable))).map((row) => row.discussion_id as string);
    const notes = await discussionNotes(db, noteable, ids);
    return presentDiscussions(ids, notes, await noteAuthors(db, notes), noteable.iid, config.externalUrl);
  });

  api.get(`${base}/:discussion_id`, { schema: { params: DiscussionParams, response: { 200: DiscussionEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    return presentThread(await requireThread(noteable, req.params.discussion_id, 'Discussion'), noteable);
  });

  api.post(base, { schema: { params: IssueParams, body: CreateDiscussionBody, response: { 201: DiscussionEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    await requireIssueCommenter(req, noteable);
    const note = await createDiscussion(serviceContext(req), noteable, req.body.body, { createdAt: noteCreatedAt(req, req.body.created_at) });
    reply.code(201);
    return presentThread([note], noteable);
  });

  api.get(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    return presentNotes(await requireThread(noteable, req.params.discussion_id, 'Notes'), noteable);
  });

  api.post(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, body: ReplyBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const [first] = await requireThread(noteable, req.params.discussion_id, 'Discussion');
    if (first.system) throw badRequest('Discussion can not be replied to.');
    await requireIssueCommenter(req, noteable);
    const note = await replyToDiscussion(serviceContext(req), noteable, first, req.body.body, noteCreatedAt(req, req.body.created_at));
    reply.code(201);
    return (await presentNotes([note], noteable))[0];
  });

  api.get(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    return (await presentNotes([await requireIssueNote(req, noteable, req.params.note_id)], noteable))[0];
  });

  api.put(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, body: UpdateDiscussionNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const note = await requireIssueNote(req, noteable, req.params.note_id);
    if (req.body.resolved !== undefined) {
      // resolve_note: the note's author or the issue's, Developers and up; no note of an issue is resolvable.
      if (!mayAdministerNote(req, note) && !mayResolveNotes(req, noteable)) throw forbidden();
      throw badRequest('Note is not resolvable');
    }
    if (!mayAdministerNote(req, note)) throw forbidden();
    return (await presentNotes([await updateComment(serviceContext(req), note, req.body.body as string)], noteable))[0];
  });

  api.delete(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    const noteable = await requireIssueNoteable(req, req.params.noteable_id);
    const note = await requireIssueNote(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    await deleteComment(serviceContext(req), note);
    return reply.code(204).send();
  });

};
