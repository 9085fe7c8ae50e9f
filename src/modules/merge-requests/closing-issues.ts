// The issues a merge request closes (14.x MergeRequest#closes_issues and
// cache_merge_request_closes_issues!): the issues of its project that its title, description and
// commit messages name with a closing pattern, when it targets the default branch, among those its
// editor may read. Rewritten on each create and edit of an open merge request and after pushes to
// its source (a closed or merged one keeps what it had); the rows go with the merge request.
import { type ServiceContext, requireActor } from '../../core/context.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { logCommitIds, readCommits } from '../../git/history.ts';
import { readableIssues } from '../issues/issues.finder.ts';

/** The platform reads the commits of a merge request's diff, which keeps this many. */
const MAX_COMMITS = 1000;

/** Issue iids of this project that a text closes ("Closes #1", "fixes #2 and #3", "Resolves issue #4"), as the default issue_closing_pattern reads it. */
export function closingIssueIids(text: string | null): number[] {
  const out = new Set<number>();
  const pattern = /\b(?:[Cc]los(?:e[sd]?|ing)|[Ff]ix(?:e[sd]|ing)?|[Rr]esolv(?:e[sd]?|ing)|[Ii]mplement(?:s|ed|ing)?):? +((?:(?:issues? +)?#\d+\b(?: *,? +and +| *,? *)?)+)/g;
  for (const match of (text ?? '').matchAll(pattern)) for (const ref of match[1].matchAll(/#(\d+)/g)) out.add(Number(ref[1]));
  return [...out];
}

/** What a merge request closes issues by: its title, its description and the messages of its commits (from `base_sha` to `head_sha`). */
export async function closingText(gitDir: string | null, mr: Pick<MergeRequestRow, 'title' | 'description' | 'base_sha' | 'head_sha'>): Promise<string> {
  const range = mr.head_sha === null ? [] : mr.base_sha === null ? [mr.head_sha] : [mr.head_sha, `^${mr.base_sha}`];
  const ids = gitDir === null || range.length === 0 ? [] : await logCommitIds(gitDir, { revisions: range }, { skip: 0, limit: MAX_COMMITS });
  const messages = ids.length === 0 ? [] : (await readCommits(gitDir as string, ids)).map((c) => c.message);
  return [mr.title, mr.description ?? '', ...messages].join('\n');
}

/** Rewrites the merge request's closing issues from its closingText, in the caller's transaction. */
export async function cacheClosingIssues(ctx: ServiceContext, mr: MergeRequestRow, text: string): Promise<void> {
  if (mr.state !== 'opened') return;
  const project = await ctx.db.selectFrom('projects').select('default_branch').where('id', '=', mr.project_id).executeTakeFirstOrThrow();
  const iids = mr.target_branch === project.default_branch ? closingIssueIids(text) : [];
  const issues = iids.length === 0 ? [] : await readableIssues(ctx.db, requireActor(ctx)).clearSelect().select('issues.id').where('issues.project_id', '=', mr.project_id).where('issues.iid', 'in', iids).execute();
  await ctx.db.deleteFrom('merge_requests_closing_issues').where('merge_request_id', '=', mr.id).execute();
  if (issues.length > 0) await ctx.db.insertInto('merge_requests_closing_issues').values(issues.map((i) => ({ merge_request_id: mr.id, issue_id: i.id }))).execute();
}
