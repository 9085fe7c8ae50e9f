// Who may do what with a snippet (the platform's PersonalSnippetPolicy and ProjectSnippetPolicy,
// 14.x). A project snippet is read under both the project's rules (read_project and its snippets
// feature, checked first) and its own visibility, the stricter winning: public for every reader
// of the project, internal for signed-in users who are not external (and members), private for
// members and the author. Guests read; Reporters and up create; the author or a Maintainer edits
// and removes, never in an archived project. A personal snippet is its author's alone to change.
import type { Actor } from '../../core/auth/actor.ts';
import { ACCESS, VISIBILITY } from '../../core/access/levels.ts';
import type { SnippetRow } from '../../db/schema.ts';

/** What the caller holds on a project snippet's project. */
export interface ProjectSnippetScope {
  /** The caller's effective level on the project (0 for none). */
  access: number;
  archived: boolean;
}

type Subject = Pick<SnippetRow, 'author_id' | 'visibility_level'>;

const isAuthor = (actor: Actor | null, snippet: Subject) => actor !== null && actor.user.id === snippet.author_id;

/** read_snippet; for a project snippet, the caller reads the project and reaches its snippets feature. */
export function canReadSnippet(actor: Actor | null, snippet: Subject, project: ProjectSnippetScope | null): boolean {
  if (actor?.isAdmin || isAuthor(actor, snippet)) return true;
  const member = project !== null && project.access >= ACCESS.GUEST;
  if (snippet.visibility_level >= VISIBILITY.public) return true;
  if (snippet.visibility_level >= VISIBILITY.internal) return actor !== null && (!actor.user.external || member);
  return member;
}

/** update_snippet and admin_snippet (the same people on the platform): the author, a Maintainer, an administrator. */
export function canChangeSnippet(actor: Actor | null, snippet: Subject, project: ProjectSnippetScope | null): boolean {
  if (actor === null || !canReadSnippet(actor, snippet, project)) return false;
  if (project?.archived) return false;
  return actor.isAdmin || isAuthor(actor, snippet) || (project !== null && project.access >= ACCESS.MAINTAINER);
}

/** create_snippet on a project: Reporters and up, not in an archived project. */
export function canCreateProjectSnippet(actor: Actor | null, project: ProjectSnippetScope): boolean {
  return actor !== null && !project.archived && (actor.isAdmin || project.access >= ACCESS.REPORTER);
}

/** create_snippet of the instance (personal snippets): any signed-in user but an external one. */
export function canCreatePersonalSnippet(actor: Actor | null): boolean {
  return actor !== null && (actor.isAdmin || !actor.user.external);
}
