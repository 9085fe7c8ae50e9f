// History walks made for reads (rev-list for a page, a count or a path; log for trailers;
// diff-tree for stats) take one git process each the first time they are asked. At most WALKS of
// them run at once, the rest waiting their turn (first come, first served), so that a burst of
// requests never starts more processes than the machine has use for.
import { type GitOptions, type GitResult, runGit } from './run.ts';

const WALKS = 4;

let running = 0;
const waiting: Array<() => void> = [];

/** runGit, in turn with the other walks. */
export async function runWalk(gitDir: string, args: readonly string[], options?: GitOptions): Promise<GitResult> {
  if (running >= WALKS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await runGit(gitDir, args, options);
  } finally {
    // The turn passes straight to the next in line, or frees the place.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}
