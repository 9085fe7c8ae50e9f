// The filters and orders of the merge request lists (14.x MergeRequestsFinder as the API drives
// it), as SQL on `merge_requests`: every filter is a condition, `not[…]` negates the same
// conditions, and the order ends with the id so that pages never overlap.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { fuzzyMatch } from '../../core/search.ts';
import { labelCondition, milestoneCondition } from '../../domain/issuables.ts';
import type { MergeRequestsQuery } from './merge-requests.finder.ts';
import type { ORDERS } from './merge-requests.schemas.ts';

export interface NegatableFilters {
  labels?: string[];
  milestone?: string;
  author_id?: number;
  author_username?: string;
  assignee_id?: number | string;
  reviewer_id?: number | string;
  reviewer_username?: string;
  my_reaction_emoji?: string;
}

export interface MergeRequestFilters extends NegatableFilters {
  state?: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  scope?: string;
  source_branch?: string;
  target_branch?: string;
  search?: string;
  in?: string;
  wip?: 'yes' | 'no';
  not?: NegatableFilters;
  iids?: number[];
  non_archived?: boolean;
}

const FALSE = sql<SqlBool>`1 = 0`;
const isWord = (value: unknown, word: 'none' | 'any') => typeof value === 'string' && value.toLowerCase() === word;

/** Assignees or reviewers: a user id, None or Any. */
function peopleCondition(table: 'merge_request_assignees' | 'merge_request_reviewers', id: number | string): Expression<SqlBool> {
  const rows = sql`select 1 from ${sql.table(table)} p where p.merge_request_id = merge_requests.id`;
  if (isWord(id, 'none')) return sql<SqlBool>`not exists (${rows})`;
  if (isWord(id, 'any')) return sql<SqlBool>`exists (${rows})`;
  return sql<SqlBool>`exists (${rows} and p.user_id = ${Number(id)})`;
}

function searchColumns(inParam: string | undefined): string[] {
  const wanted = (inParam ?? 'title,description').split(',').map((s) => s.trim());
  const columns = [];
  if (wanted.includes('title')) columns.push('merge_requests.title');
  if (wanted.includes('description')) columns.push('merge_requests.description');
  return columns.length > 0 ? columns : ['merge_requests.title', 'merge_requests.description'];
}

function negatableConditions(f: NegatableFilters): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (f.labels && f.labels.length > 0) out.push(labelCondition('MergeRequest', 'merge_requests.id', f.labels.flatMap((l) => l.split(','))));
  if (f.milestone !== undefined && f.milestone !== '') out.push(milestoneCondition('merge_requests.milestone_id', f.milestone));
  if (f.author_id !== undefined) out.push(sql<SqlBool>`merge_requests.author_id = ${f.author_id}`);
  if (f.author_username !== undefined) out.push(sql<SqlBool>`merge_requests.author_id in (select u.id from users u where lower(u.username) = ${f.author_username.toLowerCase()})`);
  if (f.assignee_id !== undefined) out.push(peopleCondition('merge_request_assignees', f.assignee_id));
  if (f.reviewer_id !== undefined) out.push(peopleCondition('merge_request_reviewers', f.reviewer_id));
  if (f.reviewer_username !== undefined) {
    out.push(sql<SqlBool>`exists (select 1 from merge_request_reviewers p join users u on u.id = p.user_id where p.merge_request_id = merge_requests.id and lower(u.username) = ${f.reviewer_username.toLowerCase()})`);
  }
  // Nobody can react with an emoji yet: `None` is every merge request, anything else none.
  if (f.my_reaction_emoji !== undefined && !isWord(f.my_reaction_emoji, 'none')) out.push(FALSE);
  return out;
}

const iso = (s: string) => new Date(s).toISOString();

/** Applies every filter; `defaultScope` is `created_by_me` for /merge_requests and `all` elsewhere. */
export function filterMergeRequests(q: MergeRequestsQuery, f: MergeRequestFilters, actor: Actor | null, defaultScope: 'all' | 'created_by_me'): MergeRequestsQuery {
  const conditions = negatableConditions(f);
  for (const negated of f.not ? negatableConditions(f.not) : []) conditions.push(sql<SqlBool>`not (${negated})`);
  if (f.state && f.state !== 'all') conditions.push(sql<SqlBool>`merge_requests.state = ${f.state}`);
  if (f.iids && f.iids.length > 0) conditions.push(sql<SqlBool>`merge_requests.iid in (${sql.join(f.iids)})`);
  if (f.source_branch) conditions.push(sql<SqlBool>`merge_requests.source_branch = ${f.source_branch}`);
  if (f.target_branch) conditions.push(sql<SqlBool>`merge_requests.target_branch = ${f.target_branch}`);
  if (f.wip === 'yes') conditions.push(sql<SqlBool>`merge_requests.draft = ${true}`);
  if (f.wip === 'no') conditions.push(sql<SqlBool>`merge_requests.draft = ${false}`);
  if (f.search) {
    const match = fuzzyMatch(f.search, searchColumns(f.in));
    if (match) conditions.push(match);
  }
  if (f.created_after) conditions.push(sql<SqlBool>`merge_requests.created_at >= ${iso(f.created_after)}`);
  if (f.created_before) conditions.push(sql<SqlBool>`merge_requests.created_at <= ${iso(f.created_before)}`);
  if (f.updated_after) conditions.push(sql<SqlBool>`merge_requests.updated_at >= ${iso(f.updated_after)}`);
  if (f.updated_before) conditions.push(sql<SqlBool>`merge_requests.updated_at <= ${iso(f.updated_before)}`);
  if (f.non_archived) conditions.push(sql<SqlBool>`merge_requests.project_id in (select p.id from projects p where p.archived = ${false})`);
  const scope = (f.scope ?? defaultScope).replace(/-/g, '_');
  if (scope === 'created_by_me') conditions.push(actor ? sql<SqlBool>`merge_requests.author_id = ${actor.user.id}` : FALSE);
  if (scope === 'assigned_to_me') conditions.push(actor ? peopleCondition('merge_request_assignees', actor.user.id) : FALSE);
  return conditions.length > 0 ? q.where(sql<SqlBool>`${sql.join(conditions, sql` and `)}`) : q;
}

export function orderMergeRequests(q: MergeRequestsQuery, orderBy: (typeof ORDERS)[number] = 'created_at', sort: 'asc' | 'desc' = 'desc'): MergeRequestsQuery {
  const dir = sort === 'asc' ? sql`asc` : sql`desc`;
  const column = orderBy === 'updated_at' ? sql`merge_requests.updated_at` : orderBy === 'title' ? sql`merge_requests.title` : sql`merge_requests.created_at`;
  return q.orderBy(sql`${column} ${dir}, merge_requests.id ${dir}`);
}
