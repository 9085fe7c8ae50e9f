// The filters and orders of the issue lists (14.x IssuesFinder as the API drives it), as SQL on
// `issues`: every filter is a condition, `not[…]` negates the same conditions, and the order ends
// with the id so that pages never overlap.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { fuzzyMatch } from '../../core/search.ts';
import { highestLabelPriority, labelCondition, milestoneCondition } from '../../domain/issuables.ts';
import type { IssuesQuery } from './issues.finder.ts';
import type { ISSUE_ORDERS } from './issues.schemas.ts';

export interface NegatableFilters {
  labels?: string[];
  milestone?: string;
  iids?: number[];
  search?: string;
  in?: string;
  author_id?: number;
  author_username?: string;
  assignee_id?: number | string;
  assignee_username?: string[];
  weight?: number | string;
}

export interface IssueFilters extends NegatableFilters {
  state?: 'opened' | 'closed' | 'all';
  due_date?: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  not?: NegatableFilters;
  scope?: string;
  my_reaction_emoji?: string;
  confidential?: boolean;
  issue_type?: string;
  non_archived?: boolean;
  order_by?: (typeof ISSUE_ORDERS)[number];
  sort?: 'asc' | 'desc';
}

const FALSE = sql<SqlBool>`1 = 0`;
const isWord = (value: unknown, word: 'none' | 'any') => typeof value === 'string' && value.toLowerCase() === word;
const assignedTo = (condition: Expression<SqlBool>) => sql<SqlBool>`exists (select 1 from issue_assignees ia join users u on u.id = ia.user_id where ia.issue_id = issues.id and ${condition})`;

function assigneeCondition(id: number | string): Expression<SqlBool> {
  if (isWord(id, 'none')) return sql<SqlBool>`not exists (select 1 from issue_assignees ia where ia.issue_id = issues.id)`;
  if (isWord(id, 'any')) return sql<SqlBool>`exists (select 1 from issue_assignees ia where ia.issue_id = issues.id)`;
  return assignedTo(sql<SqlBool>`ia.user_id = ${Number(id)}`);
}

function weightCondition(weight: number | string): Expression<SqlBool> {
  if (isWord(weight, 'none')) return sql<SqlBool>`issues.weight is null`;
  if (isWord(weight, 'any')) return sql<SqlBool>`issues.weight is not null`;
  return sql<SqlBool>`issues.weight = ${Number(weight)}`;
}

/** `in`: title, description, or both joined by a comma (the default). */
function searchColumns(inParam: string | undefined): string[] {
  const wanted = (inParam ?? 'title,description').split(',').map((s) => s.trim());
  const columns = [];
  if (wanted.includes('title')) columns.push('issues.title');
  if (wanted.includes('description')) columns.push('issues.description');
  return columns.length > 0 ? columns : ['issues.title', 'issues.description'];
}

/** The conditions of the negatable filters that were given. */
function negatableConditions(f: NegatableFilters): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (f.labels && f.labels.length > 0) out.push(labelCondition('Issue', 'issues.id', f.labels));
  if (f.milestone !== undefined && f.milestone !== '') out.push(milestoneCondition('issues.milestone_id', f.milestone));
  if (f.iids && f.iids.length > 0) out.push(sql<SqlBool>`issues.iid in (${sql.join(f.iids)})`);
  if (f.search) {
    const match = fuzzyMatch(f.search, searchColumns(f.in));
    if (match) out.push(match);
  }
  if (f.author_id !== undefined) out.push(sql<SqlBool>`issues.author_id = ${f.author_id}`);
  if (f.author_username !== undefined) out.push(sql<SqlBool>`issues.author_id in (select u.id from users u where lower(u.username) = ${f.author_username.toLowerCase()})`);
  if (f.assignee_id !== undefined) out.push(assigneeCondition(f.assignee_id));
  for (const username of f.assignee_username ?? []) out.push(assignedTo(sql<SqlBool>`lower(u.username) = ${username.toLowerCase()}`));
  if (f.weight !== undefined) out.push(weightCondition(f.weight));
  return out;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** `due_date`: none (0), overdue, this week (Monday to Sunday), this month, or two weeks ago to the end of next month. */
function dueCondition(value: string, now: Date): Expression<SqlBool> | null {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const plusDays = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);
  const between = (from: Date, to: Date) => sql<SqlBool>`(issues.due_date >= ${day(from)} and issues.due_date <= ${day(to)})`;
  switch (value) {
    case '0':
      return sql<SqlBool>`issues.due_date is null`;
    case 'overdue':
      return sql<SqlBool>`issues.due_date < ${day(today)}`;
    case 'week': {
      const monday = plusDays(today, -((today.getUTCDay() + 6) % 7));
      return between(monday, plusDays(monday, 6));
    }
    case 'month':
      return between(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)), new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)));
    case 'next_month_and_previous_two_weeks':
      return between(plusDays(today, -14), new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 0)));
    default:
      return null;
  }
}

const iso = (s: string) => new Date(s).toISOString();

/** Applies every filter; `defaultScope` is `created_by_me` for /issues and `all` elsewhere. */
export function filterIssues(q: IssuesQuery, f: IssueFilters, actor: Actor | null, now: Date, defaultScope: 'all' | 'created_by_me'): IssuesQuery {
  const conditions = negatableConditions(f);
  for (const negated of f.not ? negatableConditions(f.not) : []) conditions.push(sql<SqlBool>`not (${negated})`);
  if (f.state === 'opened' || f.state === 'closed') conditions.push(sql<SqlBool>`issues.state = ${f.state}`);
  if (f.due_date) {
    const due = dueCondition(f.due_date, now);
    if (due) conditions.push(due);
  }
  if (f.created_after) conditions.push(sql<SqlBool>`issues.created_at >= ${iso(f.created_after)}`);
  if (f.created_before) conditions.push(sql<SqlBool>`issues.created_at <= ${iso(f.created_before)}`);
  if (f.updated_after) conditions.push(sql<SqlBool>`issues.updated_at >= ${iso(f.updated_after)}`);
  if (f.updated_before) conditions.push(sql<SqlBool>`issues.updated_at <= ${iso(f.updated_before)}`);
  if (f.confidential !== undefined) conditions.push(sql<SqlBool>`issues.confidential = ${f.confidential}`);
  if (f.issue_type) conditions.push(sql<SqlBool>`issues.issue_type = ${f.issue_type}`);
  // Nobody can react with an emoji yet: `None` is every issue, anything else none.
  if (f.my_reaction_emoji !== undefined && !isWord(f.my_reaction_emoji, 'none')) conditions.push(FALSE);
  if (f.non_archived) conditions.push(sql<SqlBool>`issues.project_id in (select p.id from projects p where p.archived = ${false})`);
  const scope = (f.scope ?? defaultScope).replace(/-/g, '_');
  if (scope === 'created_by_me') conditions.push(actor ? sql<SqlBool>`issues.author_id = ${actor.user.id}` : FALSE);
  if (scope === 'assigned_to_me') conditions.push(actor ? assigneeCondition(actor.user.id) : FALSE);
  return conditions.length > 0 ? q.where(sql<SqlBool>`${sql.join(conditions, sql` and `)}`) : q;
}

/** The list's order, then the id in the same direction. */
export function orderIssues(q: IssuesQuery, orderBy: IssueFilters['order_by'] = 'created_at', sort: 'asc' | 'desc' = 'desc'): IssuesQuery {
  const dir = sort === 'asc' ? sql`asc` : sql`desc`;
  const nullsLast = (expr: ReturnType<typeof sql>) => sql`(${expr} is null), ${expr} ${dir}`;
  switch (orderBy) {
    case 'updated_at':
      return q.orderBy(sql`issues.updated_at ${dir}, issues.id ${dir}`);
    case 'due_date':
      return q.orderBy(sql`${nullsLast(sql`issues.due_date`)}, issues.id ${dir}`);
    case 'weight':
      return q.orderBy(sql`${nullsLast(sql`issues.weight`)}, issues.id ${dir}`);
    case 'title':
      return q.orderBy(sql`issues.title ${dir}, issues.id ${dir}`);
    case 'milestone_due':
      return q.orderBy(sql`${nullsLast(sql`(select m.due_date from milestones m where m.id = issues.milestone_id)`)}, issues.id ${dir}`);
    case 'priority':
    case 'label_priority':
      return q.orderBy(sql`${nullsLast(highestLabelPriority('Issue', 'issues'))}, issues.id ${dir}`);
    default:
      // created_at; relative_position and popularity (no positions or reactions are kept) read as creation.
      return q.orderBy(sql`issues.created_at ${dir}, issues.id ${dir}`);
  }
}
