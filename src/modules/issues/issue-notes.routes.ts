// Comments and threads on issues (14.x lib/api/notes.rb and discussions.rb for the Issue
// noteable), through the notes module's routes: the issue must be readable ("404 Issue Not Found"
// otherwise); anyone who may read it comments unless its discussion is locked (then Reporters and
// up). The issue loader is shared with the issue's resource events.
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { apiError, forbidden, notFound } from '../../core/errors.ts';
import { noteableRoutes } from '../notes/notes.routes.ts';
import type { Noteable } from '../notes/notes.service.ts';
import { canReadIssue, findIssueByIid } from './issues.finder.ts';
import { issueAccess } from './issues.routes.ts';
import { noteableOf } from './issues.service.ts';

export type IssueNoteable = Noteable & { type: 'Issue'; locked: boolean; authorId: number | null };

/** After loadProject: the issue the path names, if the caller may read it. */
export async function requireIssueNoteable(req: FastifyRequest, iid: number): Promise<IssueNoteable> {
  const { db } = req.server.deps;
  const issue = await findIssueByIid(db, loadedProject(req).row.id, iid);
  if (!issue) throw apiError(404, '404 Not found');
  if (!(await canReadIssue(db, req.actor, issue))) throw notFound('Issue');
  return { ...noteableOf(issue), type: 'Issue', locked: Boolean(issue.discussion_locked), authorId: issue.author_id };
}

/** create_note: whoever may create issues, unless the discussion is locked (then those who may administer them). */
export async function requireIssueCommenter(req: FastifyRequest, noteable: IssueNoteable): Promise<void> {
  const access = await issueAccess(req, loadedProject(req));
  if (!access.create || (noteable.locked && !access.admin)) throw forbidden();
}

export const issueNoteRoutes = noteableRoutes({ collection: 'issues', load: requireIssueNoteable, requireCommenter: requireIssueCommenter, discussions: true });
