// What the branch and tag lists share: the platform's ref search (GitRefsFinder, 14.x) and offset
// pages cut from a list held in memory (a repository's refs are no table).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageOf, setOffsetHeaders } from '../core/pagination.ts';

/**
 * Case-insensitive search on names: `^term` a prefix, else `term$` a suffix, else anything
 * containing the term, with exact matches moved first. One operator only: `^a$` looks for names
 * starting with "a$". Order is otherwise kept.
 */
export function searchRefs<T extends { name: string }>(refs: readonly T[], search: string | undefined): readonly T[] {
  if (search === undefined) return refs;
  const lower = (ref: T) => ref.name.toLowerCase();
  if (search.startsWith('^')) {
    const prefix = search.slice(1).toLowerCase();
    return refs.filter((ref) => lower(ref).startsWith(prefix));
  }
  if (search.endsWith('$')) {
    const suffix = search.slice(0, -1).toLowerCase();
    return refs.filter((ref) => lower(ref).endsWith(suffix));
  }
  const term = search.toLowerCase();
  const matches = refs.filter((ref) => lower(ref).includes(term));
  return [...matches.filter((ref) => lower(ref) === term), ...matches.filter((ref) => lower(ref) !== term)];
}

/**
 * One offset page of the list, with the pagination headers. Keyset requests get offset pages too
 * (their Link still leads on), since the list is cut in memory either way.
 */
export function paginateList<T>(req: FastifyRequest, reply: FastifyReply, items: readonly T[]): T[] {
  const page = pageOf(req.query);
  const start = (page.page - 1) * page.perPage;
  const rows = items.slice(start, start + page.perPage);
  setOffsetHeaders(req, reply, page, items.length, rows.length);
  return rows;
}

