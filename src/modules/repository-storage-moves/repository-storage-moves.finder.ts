// Reads of repository storage moves: newest first (the platform orders them by created_at, then
// id), with the columns of the container each one shows, joined in the same query.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

const MOVE_COLUMNS = ['id', 'state', 'source_storage_name', 'destination_storage_name', 'error_message', 'created_at'] as const;

/** Project moves with their project's identity columns; of one project when projectId is given. */
export function projectMoves(db: Kysely<DB>, projectId: number | null = null) {
  return db
    .selectFrom('project_repository_storage_moves as m')
    .innerJoin('projects as p', 'p.id', 'm.project_id')
    .select(MOVE_COLUMNS.map((c) => `m.${c}` as const))
    .select(['p.id as project_id', 'p.description', 'p.name', 'p.name_with_namespace', 'p.path', 'p.full_path', 'p.created_at as project_created_at'])
    .$if(projectId !== null, (q) => q.where('m.project_id', '=', projectId as number))
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc');
}

export type ProjectMoveRecord = Awaited<ReturnType<ReturnType<typeof projectMoves>['executeTakeFirstOrThrow']>>;

export function findProjectMove(db: Kysely<DB>, moveId: number, projectId: number | null = null): Promise<ProjectMoveRecord | undefined> {
  return projectMoves(db, projectId).where('m.id', '=', moveId).executeTakeFirst();
}

/** Group moves with their group's name and path; of one group when groupId is given. */
export function groupMoves(db: Kysely<DB>, groupId: number | null = null) {
  return db
    .selectFrom('group_repository_storage_moves as m')
    .innerJoin('namespaces as g', 'g.id', 'm.group_id')
    .select(MOVE_COLUMNS.map((c) => `m.${c}` as const))
    .select(['g.id as group_id', 'g.name as group_name', 'g.full_path as group_full_path'])
    .$if(groupId !== null, (q) => q.where('m.group_id', '=', groupId as number))
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc');
}

export type GroupMoveRecord = Awaited<ReturnType<ReturnType<typeof groupMoves>['executeTakeFirstOrThrow']>>;

export function findGroupMove(db: Kysely<DB>, moveId: number, groupId: number | null = null): Promise<GroupMoveRecord | undefined> {
  return groupMoves(db, groupId).where('m.id', '=', moveId).executeTakeFirst();
}

/** Snippet moves with their snippet's BasicSnippet columns (and its project's path); of one snippet when snippetId is given. */
export function snippetMoves(db: Kysely<DB>, snippetId: number | null = null) {
  return db
    .selectFrom('snippet_repository_storage_moves as m')
    .innerJoin('snippets as s', 's.id', 'm.snippet_id')
    .leftJoin('projects as p', 'p.id', 's.project_id')
    .select(MOVE_COLUMNS.map((c) => `m.${c}` as const))
    .select(['s.id as snippet_id', 's.title', 's.description', 's.visibility_level', 's.updated_at as snippet_updated_at', 's.created_at as snippet_created_at', 's.project_id'])
    .select('p.full_path as project_full_path')
    .$if(snippetId !== null, (q) => q.where('m.snippet_id', '=', snippetId as number))
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc');
}

export type SnippetMoveRecord = Awaited<ReturnType<ReturnType<typeof snippetMoves>['executeTakeFirstOrThrow']>>;

export function findSnippetMove(db: Kysely<DB>, moveId: number, snippetId: number | null = null): Promise<SnippetMoveRecord | undefined> {
  return snippetMoves(db, snippetId).where('m.id', '=', moveId).executeTakeFirst();
}
