// Comments and threads on a project's snippets (14.x lib/api/notes.rb and discussions.rb for the
// Snippet noteable), through the notes module's routes. The snippet is found as the platform's
// NotesFinder finds it, among the project's snippets the caller may read (its snippets feature
// open to the caller, the snippet's visibility allowing): anything else is ActiveRecord's "404 Not
// found". Whoever reads the snippet comments on it (ProjectSnippetPolicy's create_note), never in
// an archived project. Personal snippets have no notes API.
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import { noteableRoutes } from '../notes/notes.routes.ts';
import type { Noteable } from '../notes/notes.service.ts';
import { canReadSnippet } from './snippets.access.ts';
import { findProjectSnippet } from './snippets.finder.ts';
import { loadedScope, snippetsFeatureOpen } from './snippets.routes.ts';

type SnippetNoteable = Noteable & { type: 'Snippet' };

async function requireSnippetNoteable(req: FastifyRequest, id: number): Promise<SnippetNoteable> {
  const project = loadedProject(req);
  const snippet = (await snippetsFeatureOpen(req)) ? await findProjectSnippet(req.server.deps.db, project.row.id, id) : undefined;
  if (!snippet || !canReadSnippet(req.actor, snippet, loadedScope(req))) throw apiError(404, '404 Not found');
  return { type: 'Snippet', id: snippet.id, iid: null, projectId: project.row.id, title: snippet.title, authorId: snippet.author_id };
}

/** create_note: readers of the snippet, unless the project is archived. */
function requireSnippetCommenter(req: FastifyRequest): void {
  if (loadedProject(req).row.archived) throw forbidden();
}

export const snippetNoteRoutes = noteableRoutes({ collection: 'snippets', load: requireSnippetNoteable, requireCommenter: requireSnippetCommenter, discussions: true });
