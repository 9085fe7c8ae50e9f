// The issues a merge request closes (14.x MergeRequest#cache_merge_request_closes_issues!): the
// issues of its project that its title and description name with a closing pattern, when it targets
// the default branch, among those its editor may read. Rewritten on each create and edit of an open
// merge request (a closed or merged one keeps what it had); the rows go with the merge request.
import { type ServiceContext, requireActor } from '../../core/context.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { readableIssues } from '../issues/issues.finder.ts';

/** Issue iids of this project that a text closes ("Closes #1", "fixes #2 and #3", "Resolves issue #4"), as the default issue_closing_pattern reads it. */
export function closingIssueIids(text: string | null): number[] {
  const out = new Set<number>();
  const pattern = /\b(?:[Cc]los(?:e[sd]?|ing)|[Ff]ix(?:e[sd]|ing)?|[Rr]esolv(?:e[sd]?|ing)|[Ii]mplement(?:s|ed|ing)?):? +((?:(?:issues? +)?#\d+\b(?: *,? +and +| *,? *)?)+)/g;
  for (const match of (text ?? '').matchAll(pattern)) for (const ref of match[1].matchAll(/#(\d+)/g)) out.add(Number(ref[1]));
  return [...out];
}

/** Rewrites the merge request's closing issues, in the caller's transaction. Commit messages are not read (the platform reads them too). */
export async function cacheClosingIssues(ctx: ServiceContext, mr: MergeRequestRow): Promise<void> {
  if (mr.state !== 'opened') return;
  const project = await ctx.db.selectFrom('projects').select('default_branch').where('id', '=', mr.project_id).executeTakeFirstOrThrow();
  const iids = mr.target_branch === project.default_branch ? closingIssueIids(`${mr.title}\n${mr.description ?? ''}`) : [];
  const issues = iids.length === 0 ? [] : await readableIssues(ctx.db, requireActor(ctx)).clearSelect().select('issues.id').where('issues.project_id', '=', mr.project_id).where('issues.iid', 'in', iids).execute();
  await ctx.db.deleteFrom('merge_requests_closing_issues').where('merge_request_id', '=', mr.id).execute();
  if (issues.length > 0) await ctx.db.insertInto('merge_requests_closing_issues').values(issues.map((i) => ({ merge_request_id: mr.id, issue_id: i.id }))).execute();
}
