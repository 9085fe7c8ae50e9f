// The commit entity every repository route shares (the platform's Entities::Commit, 14.x: files,
// commits, branches, tags), and its presenter.
import { type Static, Type } from '@sinclair/typebox';
import { Entity } from '../core/schema.ts';
import type { Commit } from '../git/commits.ts';
import { commitWebUrl } from './urls.ts';

/** A git time in its signer's own offset, with milliseconds: 2024-01-02T03:04:05.000+01:00. */
export const GitTimestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{2}:\\d{2}$' });

export const commitFields = {
  id: Type.String(),
  /** The first 11 characters of the id. */
  short_id: Type.String(),
  /** The committed date. */
  created_at: GitTimestamp,
  parent_ids: Type.Array(Type.String()),
  /** The message's first line. */
  title: Type.String(),
  message: Type.String(),
  author_name: Type.String(),
  author_email: Type.String(),
  authored_date: GitTimestamp,
  committer_name: Type.String(),
  committer_email: Type.String(),
  committed_date: GitTimestamp,
  /** Trailer key → value; empty unless the route parses them. */
  trailers: Type.Record(Type.String(), Type.String()),
  web_url: Type.String(),
};

export const CommitEntity = Entity(commitFields);
export type CommitJson = Static<typeof CommitEntity>;

/** Commit#full_title: the first line, or the platform's placeholder for an empty message. */
function fullTitle(message: string): string {
  if (message.trim() === '') return 'No commit message';
  return message.split(/[\r\n]/, 1)[0];
}

/** `projectWebUrl` is the project's web_url; `trailers` those parsed for it, when the route asks. */
export function presentCommit(commit: Commit, projectWebUrl: string, trailers: Record<string, string> = {}): CommitJson {
  return {
    id: commit.id,
    short_id: commit.id.slice(0, 11),
    created_at: commit.committer.date,
    parent_ids: commit.parents,
    title: fullTitle(commit.message),
    message: commit.message,
    author_name: commit.author.name,
    author_email: commit.author.email,
    authored_date: commit.author.date,
    committer_name: commit.committer.name,
    committer_email: commit.committer.email,
    committed_date: commit.committer.date,
    trailers,
    web_url: commitWebUrl(projectWebUrl, commit.id),
  };
}
