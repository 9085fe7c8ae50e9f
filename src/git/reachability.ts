// Which branches a commit reaches, and which branches reach a commit: one for-each-ref each,
// however many branches there are.
import { requireObjectId } from './args.ts';
import { runGit } from './run.ts';

/** Branches passing a for-each-ref filter: full name → head commit. */
async function branchHeads(gitDir: string, filter: string): Promise<Map<string, string>> {
  const { stdout } = await runGit(gitDir, ['for-each-ref', '--format=%(refname)%00%(objectname)', filter, '--', 'refs/heads/']);
  const heads = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [ref, id] = line.split('\0');
    if (id !== undefined) heads.set(ref, id);
  }
  return heads;
}

/** The branches whose head `commit` reaches (what is merged into it, itself included): full name → head. */
export async function branchesMergedInto(gitDir: string, commit: string): Promise<Map<string, string>> {
  return branchHeads(gitDir, `--merged=${requireObjectId(commit)}`);
}

/** The branches from which `commit` is reachable: full name → head. */
export async function branchesContaining(gitDir: string, commit: string): Promise<Map<string, string>> {
  return branchHeads(gitDir, `--contains=${requireObjectId(commit)}`);
}
