// Comments on commits (14.x lib/api/commits.rb, `…/repository/commits/:sha/comments`): reading
// needs download_code (anonymous callers read public repositories); commenting needs a signed-in
// caller with create_note. `:sha` is any revision; one that names no commit is "404 Commit Not
// Found". A comment with `path` and `line` lands on that line when the commit's diff of the file
// has a line of that type ('new' added, 'old' removed) at that new position — the platform's own
// test, which compares the new position for both types — and is a plain comment otherwise.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound, paramError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import type { NoteRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import type { Commit } from '../../git/commits.ts';
import { commitFileDiff } from '../../git/diffs.ts';
import { findCommit } from '../commits/commits.finder.ts';
import { commitNotes, noteAuthors } from '../notes/notes.finder.ts';
import { presentCommitNote } from '../notes/notes.presenter.ts';
import { CommitNoteEntity, CommitNotesParams, CreateCommitNoteBody, ListCommitNotesQuery } from '../notes/notes.schemas.ts';
import { type DiffPosition, createCommitComment } from '../notes/notes.service.ts';
import { loadRepository } from '../repository/index.ts';

export const commitCommentRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const read = loadRepository('download_code');

  async function requireCommit(req: FastifyRequest, revision: string): Promise<{ dir: string; commit: Commit }> {
    const dir = repositoryDir(config, loadedProject(req).row);
    const commit = await findCommit(dir, revision);
    if (dir === null || commit === null) throw notFound('Commit');
    return { dir, commit };
  }

  async function present(notes: NoteRow[]) {
    const authors = await noteAuthors(db, notes);
    return notes.map((note) => presentCommitNote(note, note.author_id !== null ? authors.get(note.author_id) : undefined, config.externalUrl));
  }

  api.get(
    '/projects/:id/repository/commits/:sha/comments',
    { schema: { params: CommitNotesParams, querystring: ListCommitNotesQuery, response: { 200: Type.Array(CommitNoteEntity) } }, config: { auth: 'optional' }, preHandler: read },
    async (req, reply) => {
      const { commit } = await requireCommit(req, req.params.sha);
      return present(await paginate(req, reply, commitNotes(db, loadedProject(req).row.id, commit.id)));
    },
  );

  api.post(
    '/projects/:id/repository/commits/:sha/comments',
    { schema: { params: CommitNotesParams, body: CreateCommitNoteBody, response: { 201: CommitNoteEntity } }, config: { auth: 'required' }, preHandler: read },
    async (req, reply) => {
      const { note, path, line, line_type: lineType = 'new' } = req.body;
      const onPath = path !== undefined && path !== '';
      if (onPath && line === undefined) throw paramError('line is missing');
      const project = loadedProject(req);
      if (!project.can.has('create_note')) throw forbidden();
      const { dir, commit } = await requireCommit(req, req.params.sha);
      let position: DiffPosition | null = null;
      if (onPath) {
        const diff = await commitFileDiff(dir, commit, path);
        const found = diff?.lines.find((l) => l.newPos === line && l.type === lineType);
        if (diff && found) position = { path: diff.newPath, line: lineType === 'new' ? found.newPos : found.oldPos, lineType };
      }
      const row = await createCommitComment(serviceContext(req), { projectId: project.row.id, sha: commit.id }, note, position);
      reply.code(201);
      return (await present([row]))[0];
    },
  );
};
