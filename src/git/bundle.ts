// Git bundles, the repository's form in export archives: made from every ref of a repository
// (`git bundle create --all`, as the platform's RepoSaver), checked before anything is taken from
// one (`git bundle verify`), and fetched into a new repository with its refs. The bundle files are
// the caller's scratch paths, never user text.
import path from 'node:path';
import { isObjectId, validRefName } from './args.ts';
import { GitError, runGit } from './run.ts';

/** Bundles are made and read at most this long (a large repository takes a while). */
const BUNDLE_TIMEOUT_MS = 30 * 60 * 1000;

const absolute = (file: string) => {
  if (!path.isAbsolute(file)) throw new GitError('invalid', 'a bundle path must be absolute');
  return file;
};

/** Whether the repository has any ref to bundle. */
async function hasRefs(gitDir: string): Promise<boolean> {
  const { stdout } = await runGit(gitDir, ['for-each-ref', '--count=1', '--format=%(refname)']);
  return stdout.toString('utf8').trim() !== '';
}

/** Writes every ref of the repository (and HEAD) to a bundle at `file`; false (and no file) when it has none. */
export async function createBundle(gitDir: string, file: string): Promise<boolean> {
  if (!(await hasRefs(gitDir))) return false;
  await runGit(gitDir, ['bundle', 'create', '--quiet', absolute(file), '--all'], { timeoutMs: BUNDLE_TIMEOUT_MS });
  return true;
}

/** The refs a bundle carries (name → object id), HEAD included when it has it. */
export async function bundleHeads(gitDir: string, file: string): Promise<Map<string, string>> {
  const { stdout } = await runGit(gitDir, ['bundle', 'list-heads', absolute(file)], { timeoutMs: BUNDLE_TIMEOUT_MS });
  const heads = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [id, ref] = line.split(' ');
    if (id && ref && isObjectId(id) && (ref === 'HEAD' || validRefName(ref))) heads.set(ref, id);
  }
  return heads;
}

/**
 * Checks a bundle against a repository (an empty one for a whole bundle): its header, and that
 * everything it needs is there. Throws a GitError with git's reason when it does not verify.
 */
export async function verifyBundle(gitDir: string, file: string): Promise<void> {
  await runGit(gitDir, ['bundle', 'verify', '--quiet', absolute(file)], { timeoutMs: BUNDLE_TIMEOUT_MS });
}

/** Fetches every ref of a verified bundle into the repository. */
export async function fetchBundle(gitDir: string, file: string): Promise<void> {
  await runGit(gitDir, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', absolute(file), '+refs/*:refs/*'], {
    timeoutMs: BUNDLE_TIMEOUT_MS,
  });
}
