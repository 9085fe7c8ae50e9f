// Threads of comments on merge requests (14.x lib/api/discussions.rb for the MergeRequest
// noteable): every call needs a signed-in caller and a merge request the caller may read, as its
// notes do. A thread may sit on a line of the diff (`position`, checked against the merge
// request's diff refs); its notes can be resolved one by one or all at once, by the merge
// request's author, the note's author (one note) and Developers and up.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { badRequest, forbidden } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { discussionNotes, noteAuthors, noteableDiscussionIds } from '../notes/notes.finder.ts';
import { presentDiscussions } from '../notes/notes.presenter.ts';
import {
  CreateDiffDiscussionBody,
  DiscussionEntity,
  ListDiscussionsQuery,
  NoteEntity,
  ReplyBody,
  ResolveDiscussionBody,
  UpdateDiscussionNoteBody,
} from '../notes/notes.schemas.ts';
import { createDiscussion, deleteComment, replyToDiscussion, setNotesResolved, updateComment } from '../notes/notes.service.ts';
import { mayAdministerNote, mayResolveNotes, noteCreatedAt, presentNotes, presentThread, requireNoteOf, requireThread } from '../notes/notes.routes.ts';
import { requireMergeRequestCommenter, requireMergeRequestNoteable } from './merge-request-notes.routes.ts';

const REQUIRED = { auth: 'required' } as const;
const MergeRequestParams = Params({ id: IdOrPath, noteable_id: Type.Integer() });
const DiscussionParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String() });
const DiscussionNoteParams = Params({ id: IdOrPath, noteable_id: Type.Integer(), discussion_id: Type.String(), note_id: Type.Integer() });

export const mergeRequestDiscussionRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readable = { config: REQUIRED, preHandler: loadProject('read_project') };
  const base = '/projects/:id/merge_requests/:noteable_id/discussions';

  api.get(base, { schema: { params: MergeRequestParams, querystring: ListDiscussionsQuery, response: { 200: Type.Array(DiscussionEntity) } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const ids = (await paginate(req, reply, noteableDiscussionIds(db, noteable))).map((row) => row.discussion_id as string);
    const notes = await discussionNotes(db, noteable, ids);
    return presentDiscussions(ids, notes, await noteAuthors(db, notes), noteable.iid, config.externalUrl);
  });

  api.get(`${base}/:discussion_id`, { schema: { params: DiscussionParams, response: { 200: DiscussionEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    return presentThread(req, await requireThread(req, noteable, req.params.discussion_id, 'Discussion'), noteable);
  });

  api.post(base, { schema: { params: MergeRequestParams, body: CreateDiffDiscussionBody, response: { 201: DiscussionEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    requireMergeRequestCommenter(req, noteable);
    const { row } = noteable;
    const diff = { gitDir: repositoryDir(config, loadedProject(req).row), refs: { base_sha: row.base_sha, start_sha: row.start_sha, head_sha: row.head_sha } };
    const note = await createDiscussion(serviceContext(req), noteable, req.body.body, { createdAt: noteCreatedAt(req, req.body.created_at), position: req.body.position, diff });
    reply.code(201);
    return presentThread(req, [note], noteable);
  });

  // resolve: the merge request's author, Developers and up (ResolvableDiscussion#can_resolve?).
  api.put(`${base}/:discussion_id`, { schema: { params: DiscussionParams, body: ResolveDiscussionBody, response: { 200: DiscussionEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const notes = await requireThread(req, noteable, req.params.discussion_id, 'Discussion');
    if (!notes.some((n) => n.resolvable) || !mayResolveNotes(req, noteable)) throw forbidden();
    await setNotesResolved(serviceContext(req), notes, req.body.resolved);
    return presentThread(req, await requireThread(req, noteable, req.params.discussion_id, 'Discussion'), noteable);
  });

  api.get(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, response: { 200: Type.Array(NoteEntity) } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    return presentNotes(req, await requireThread(req, noteable, req.params.discussion_id, 'Notes'), noteable);
  });

  api.post(`${base}/:discussion_id/notes`, { schema: { params: DiscussionParams, body: ReplyBody, response: { 201: NoteEntity } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const [first] = await requireThread(req, noteable, req.params.discussion_id, 'Discussion');
    if (first.system) throw badRequest('Discussion can not be replied to.');
    requireMergeRequestCommenter(req, noteable);
    const note = await replyToDiscussion(serviceContext(req), noteable, first, req.body.body, noteCreatedAt(req, req.body.created_at));
    reply.code(201);
    return (await presentNotes(req, [note], noteable))[0];
  });

  api.get(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    return (await presentNotes(req, [await requireNoteOf(req, noteable, req.params.note_id)], noteable))[0];
  });

  api.put(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, body: UpdateDiscussionNoteBody, response: { 200: NoteEntity } }, ...readable }, async (req) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const note = await requireNoteOf(req, noteable, req.params.note_id);
    if (req.body.resolved !== undefined) {
      // resolve_note: the note's author, the merge request's author, Developers and up.
      if (note.author_id !== req.actor!.user.id && !mayResolveNotes(req, noteable)) throw forbidden();
      if (!note.resolvable) throw badRequest('Note is not resolvable');
      await setNotesResolved(serviceContext(req), [note], req.body.resolved);
      return (await presentNotes(req, [await requireNoteOf(req, noteable, note.id)], noteable))[0];
    }
    if (!mayAdministerNote(req, note)) throw forbidden();
    return (await presentNotes(req, [await updateComment(serviceContext(req), note, req.body.body as string)], noteable))[0];
  });

  api.delete(`${base}/:discussion_id/notes/:note_id`, { schema: { params: DiscussionNoteParams, response: { 204: NoContent } }, ...readable }, async (req, reply) => {
    const noteable = await requireMergeRequestNoteable(req, req.params.noteable_id);
    const note = await requireNoteOf(req, noteable, req.params.note_id);
    if (!mayAdministerNote(req, note)) throw forbidden();
    await deleteComment(serviceContext(req), note);
    return reply.code(204).send();
  });
};
