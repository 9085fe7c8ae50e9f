// The lines of one file's diff in a commit or between two commits, as the platform's diff parser
// numbers them: a line comment on a commit or a merge request names a line of that diff (its
// positions and whether it was added or removed). A commit's diff is against its first parent (the
// empty tree for a root commit); renames are found at 30% similarity as Gitaly's diffs do.
import { requireObjectId } from './args.ts';
import type { Commit } from './objects.ts';
import { runGit } from './run.ts';

export interface DiffLine {
  /** 'new' (added), 'old' (removed), null (context); hunk headers and "\ No newline" markers are not listed. */
  type: 'new' | 'old' | null;
  oldPos: number;
  newPos: number;
}

export interface FileDiff {
  oldPath: string;
  newPath: string;
  lines: DiffLine[];
}

const RENAMES = '--find-renames=30%';

/** The two sides diff-tree compares for a commit. */
const sides = (commit: Pick<Commit, 'id' | 'parents'>) =>
  commit.parents.length > 0 ? [requireObjectId(commit.parents[0]), requireObjectId(commit.id)] : ['--root', '--no-commit-id', requireObjectId(commit.id)];

/** The diff of the file the commit leaves at `newPath` (for a deleted file, the path it had); null when the commit does not change it. */
export async function commitFileDiff(gitDir: string, commit: Pick<Commit, 'id' | 'parents'>, newPath: string): Promise<FileDiff | null> {
  return fileDiff(gitDir, sides(commit), newPath);
}

/**
 * The diff between two commits (a merge request's base and head) of the file the second one has at
 * `newPath` (for a deleted file, the path it had); null when they do not differ in it.
 */
export async function fileDiffBetween(gitDir: string, from: string, to: string, newPath: string): Promise<FileDiff | null> {
  return fileDiff(gitDir, [requireObjectId(from), requireObjectId(to)], newPath);
}

async function fileDiff(gitDir: string, compared: string[], newPath: string): Promise<FileDiff | null> {
  const { stdout } = await runGit(gitDir, ['diff-tree', '-r', '-z', '--name-status', RENAMES, ...compared]);
  // Records: status NUL path NUL, and a second path for renames and copies.
  const units = stdout.toString('utf8').split('\0');
  let entry: { oldPath: string; newPath: string } | null = null;
  for (let i = 0; i + 1 < units.length && entry === null; ) {
    const status = units[i];
    const paths = /^[RC]/.test(status) ? [units[i + 1], units[i + 2]] : [units[i + 1], units[i + 1]];
    i += /^[RC]/.test(status) ? 3 : 2;
    if (paths[1] === newPath) entry = { oldPath: paths[0], newPath: paths[1] };
  }
  if (entry === null) return null;
  const { stdout: patch } = await runGit(
    gitDir,
    ['diff-tree', '-r', '-p', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index', '-U3', RENAMES, ...compared, '--', ...new Set([entry.oldPath, entry.newPath])],
    // The paths are names, never patterns.
    { env: { GIT_LITERAL_PATHSPECS: '1' } },
  );
  const header = `diff --git ${quotePath(`a/${entry.oldPath}`)} ${quotePath(`b/${entry.newPath}`)}`;
  return { ...entry, lines: parseSection(patch.toString('utf8'), header) };
}

/** The numbered lines of the section of a patch that starts with `header`. */
function parseSection(patch: string, header: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let inSection = false;
  let inHunk = false;
  let oldPos = 1;
  let newPos = 1;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      if (inSection) break;
      inSection = line === header;
      continue;
    }
    if (!inSection) continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      inHunk = true;
      oldPos = Number(hunk[1]);
      newPos = Number(hunk[2]);
      continue;
    }
    if (!inHunk || line === '' || line.startsWith('\\')) continue;
    const type = line[0] === '+' ? 'new' : line[0] === '-' ? 'old' : null;
    lines.push({ type, oldPos, newPos });
    if (type !== 'old') newPos++;
    if (type !== 'new') oldPos++;
  }
  return lines;
}

const ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };

/** A path as git writes it in a diff header (core.quotePath): quoted C-style when it holds a control, quote, backslash or non-ASCII byte. */
function quotePath(path: string): string {
  const bytes = Buffer.from(path, 'utf8');
  if (!bytes.some((b) => b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x7f)) return path;
  let out = '"';
  for (const b of bytes) out += ESCAPES[b] ?? (b < 0x20 || b >= 0x7f ? `\\${b.toString(8).padStart(3, '0')}` : String.fromCharCode(b));
  return `${out}"`;
}
