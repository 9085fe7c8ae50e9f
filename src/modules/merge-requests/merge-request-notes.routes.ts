// Comments on merge requests (14.x lib/api/notes.rb for the MergeRequest noteable), through the
// notes module's routes: the merge request must be readable ("404 Not found" otherwise); readers
// comment unless the discussion is locked (then Developers and up). Its threads, which can be
// resolved and placed on the diff, have routes of their own.
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { noteableRoutes } from '../notes/notes.routes.ts';
import type { Noteable } from '../notes/notes.service.ts';
import { findMergeRequestByIid } from './merge-requests.finder.ts';
import { mergeRequestAccess } from './merge-requests.routes.ts';
import { noteableOf } from './merge-requests.service.ts';

export type MergeRequestNoteable = Noteable & { type: 'MergeRequest'; locked: boolean; admin: boolean; authorId: number | null; row: MergeRequestRow };

/** After loadProject: the merge request the path names, if the caller may read it. */
export async function requireMergeRequestNoteable(req: FastifyRequest, iid: number): Promise<MergeRequestNoteable> {
  const access = await mergeRequestAccess(req, loadedProject(req));
  const mr = access.read ? await findMergeRequestByIid(req.server.deps.db, loadedProject(req).row.id, iid) : undefined;
  if (!mr) throw apiError(404, '404 Not found');
  return { ...noteableOf(mr), type: 'MergeRequest', locked: Boolean(mr.discussion_locked), admin: access.admin, authorId: mr.author_id, row: mr };
}

/** create_note: readers, unless the project is archived or the discussion locked (then Developers and up). */
export function requireMergeRequestCommenter(req: FastifyRequest, noteable: MergeRequestNoteable): void {
  if (loadedProject(req).row.archived || (noteable.locked && !noteable.admin)) throw forbidden();
}

export const mergeRequestNoteRoutes = noteableRoutes({ collection: 'merge_requests', load: requireMergeRequestNoteable, requireCommenter: requireMergeRequestCommenter, discussions: false });
