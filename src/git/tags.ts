// Creating a tag: lightweight (the ref names the commit) or annotated (a tag object with a tagger
// and a message), the ref written only if it does not exist yet, so that of two creations of one
// tag exactly one wins.
import { requireObjectId, validTagName } from './args.ts';
import { updateRef } from './refs.ts';
import { GitError, runGit } from './run.ts';
import type { Identity } from './signature.ts';

export interface TagRequest {
  /** Short name (v1.0). */
  name: string;
  /** The commit tagged. */
  commit: string;
  /** Present: an annotated tag with this message, stored as given. */
  message?: string;
  tagger: Identity;
  /** The tagger's time (default: now). */
  date?: Date;
}

/** What git itself leaves out of an identity: the characters that would end its name or email early. */
const identityText = (text: string) => text.replace(/[<>\n]/g, '').trim();

/**
 * Creates a tag; returns what its ref points at (the tag object, or the commit). A tag that exists
 * already rejects with a GitError 'conflict'.
 */
export async function createTag(gitDir: string, request: TagRequest): Promise<string> {
  if (!validTagName(request.name)) throw new GitError('invalid', `invalid tag name: ${JSON.stringify(request.name)}`);
  const ref = `refs/tags/${request.name}`;
  let target = requireObjectId(request.commit);
  if (request.message !== undefined) {
    const seconds = Math.floor((request.date ?? new Date()).getTime() / 1000);
    const tagger = `${identityText(request.tagger.name)} <${identityText(request.tagger.email)}> ${seconds} +0000`;
    const object = `object ${target}\ntype commit\ntag ${request.name}\ntagger ${tagger}\n\n${request.message}`;
    // mktag checks the object as fsck would before writing it.
    target = (await runGit(gitDir, ['mktag'], { input: object })).stdout.toString('utf8').trim();
  }
  await updateRef(gitDir, ref, target, null);
  return target;
}
