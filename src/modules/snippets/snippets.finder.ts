// Reads of snippets: one by id (with its project's path and state), the lists of the API (the
// caller's own, the public personal ones, all the caller may read, a project's), newest first by
// id as the platform's SnippetsFinder orders them, each cut in the database; the authors of a
// page in one query; and the files of a snippet's repository.
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { projectVisibleTo } from '../../core/access/visibility.ts';
import { ACCESS, VISIBILITY } from '../../core/access/levels.ts';
import type { DB, SnippetRow, UserRow } from '../../db/schema.ts';
import { readTree } from '../../git/commits.ts';
import { readDefaultBranch } from '../../git/repository.ts';

/** Snippets with what their entity needs of their project (its path; null for a personal one). */
function snippets(db: Kysely<DB>) {
  return db.selectFrom('snippets as s').leftJoin('projects as p', 'p.id', 's.project_id').selectAll('s').select('p.full_path as project_full_path');
}

type Query = ReturnType<typeof snippets>;

/** A snippet with its project's path (null for a personal one). */
export type SnippetRecord = Awaited<ReturnType<Query['executeTakeFirstOrThrow']>>;

export function findSnippet(db: Kysely<DB>, id: number): Promise<SnippetRecord | undefined> {
  return snippets(db).where('s.id', '=', id).executeTakeFirst();
}

/** A project's snippet by id; undefined when it is another project's or a personal one. */
export function findProjectSnippet(db: Kysely<DB>, projectId: number, id: number): Promise<SnippetRecord | undefined> {
  return snippets(db).where('s.id', '=', id).where('s.project_id', '=', projectId).executeTakeFirst();
}

export interface SnippetFilters {
  created_after?: string;
  created_before?: string;
}

function filtered(q: Query, filters: SnippetFilters): Query {
  if (filters.created_after) q = q.where('s.created_at', '>=', new Date(filters.created_after).toISOString());
  if (filters.created_before) q = q.where('s.created_at', '<=', new Date(filters.created_before).toISOString());
  return q.orderBy('s.id', 'desc');
}

/** GET /snippets: what the caller wrote, personal and project snippets alike. */
export function authoredSnippets(db: Kysely<DB>, authorId: number, filters: SnippetFilters): Query {
  return filtered(snippets(db).where('s.author_id', '=', authorId), filters);
}

/** GET /snippets/public: every public personal snippet. */
export function publicPersonalSnippets(db: Kysely<DB>, filters: SnippetFilters): Query {
  return filtered(snippets(db).where('s.project_id', 'is', null).where('s.visibility_level', '=', VISIBILITY.public), filters);
}

/** The caller is a member (Guest or above) of the snippet's project. */
const memberOfProject = (eb: ExpressionBuilder<any, any>, actor: Actor) =>
  eb.exists(
    eb
      .selectFrom('project_authorizations as a')
      .select(sql.lit(1).as('one'))
      .whereRef('a.project_id', '=', 's.project_id')
      .where('a.user_id', '=', actor.user.id)
      .where('a.access_level', '>=', ACCESS.GUEST),
  );

/**
 * GET /snippets/all: administrators read every snippet; others the personal snippets they may
 * read, and the snippets they may read of the projects they see (as canReadSnippet decides one).
 */
export function allReadableSnippets(db: Kysely<DB>, actor: Actor, filters: SnippetFilters): Query {
  if (actor.isAdmin) return filtered(snippets(db), filters);
  const visibleLevels = actor.user.external ? [VISIBILITY.public] : [VISIBILITY.public, VISIBILITY.internal];
  return filtered(
    snippets(db).where((eb) =>
      eb.or([
        eb('s.author_id', '=', actor.user.id),
        eb.and([eb('s.project_id', 'is', null), eb('s.visibility_level', 'in', visibleLevels)]),
        eb.and([
          eb('s.project_id', 'is not', null),
          projectVisibleTo(eb, actor, 'p'),
          eb.or([eb('s.visibility_level', 'in', visibleLevels), memberOfProject(eb, actor)]),
        ]),
      ]),
    ),
    filters,
  );
}

/** A project's snippets the caller may read, given the caller's level on the project. */
export function projectSnippets(db: Kysely<DB>, projectId: number, actor: Actor | null, access: number): Query {
  let q = snippets(db).where('s.project_id', '=', projectId);
  if (!actor?.isAdmin && access < ACCESS.GUEST) {
    const levels = actor === null ? [VISIBILITY.public] : actor.user.external ? [VISIBILITY.public] : [VISIBILITY.public, VISIBILITY.internal];
    q = q.where((eb) => eb.or([eb('s.visibility_level', 'in', levels), ...(actor ? [eb('s.author_id', '=', actor.user.id)] : [])]));
  }
  return q.orderBy('s.id', 'desc');
}

/** The authors of these snippets, by id: one query. */
export async function snippetAuthors(db: Kysely<DB>, rows: readonly Pick<SnippetRow, 'author_id'>[]): Promise<Map<number, UserRow>> {
  const ids = [...new Set(rows.map((r) => r.author_id))];
  if (ids.length === 0) return new Map();
  const users = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return new Map(users.map((u) => [u.id, u]));
}

/** What a snippet's repository holds: the branch HEAD names and the paths of its files there (git's order). */
export interface SnippetFiles {
  ref: string;
  paths: string[];
}

/** The files of a snippet's repository (none for a missing or empty one), read through the object readers. */
export async function readSnippetFiles(gitDir: string | null, fallbackRef: string): Promise<SnippetFiles> {
  if (gitDir === null) return { ref: fallbackRef, paths: [] };
  const ref = (await readDefaultBranch(gitDir)) ?? fallbackRef;
  const entries = await readTree(gitDir, `refs/heads/${ref}`, '', { recursive: true });
  return { ref, paths: (entries ?? []).filter((e) => e.type === 'blob').map((e) => e.path) };
}
