// What src/git reports about the processes it runs, to whoever listens (the metrics in
// core/metrics.ts register themselves here): git stays free of what is done with it.

export interface GitObserver {
  /** A git process started; `subcommand` is its first argument, from a bounded set (see subcommandOf). */
  started(subcommand: string): void;
  /**
   * A git process run to completion (not a long-lived object reader) ended after `seconds`;
   * `failure` is null when it succeeded, else the kind of its GitError (failed, timeout, output_limit).
   */
  ended(subcommand: string, seconds: number, failure: string | null): void;
  /** A reader was lost while it owed answers (it died, or a request outlasted the time limit) and its requests went to a fresh one. */
  readerRestarted(reason: 'timeout' | 'exited'): void;
}

let observer: GitObserver | null = null;

/** Sets the one observer (null: none). */
export function observeGit(next: GitObserver | null): void {
  observer = next;
}

export function gitObserver(): GitObserver | null {
  return observer;
}

/** The subcommands Quarry runs; anything else (never expected) is reported as `other`, so that labels stay few. */
const SUBCOMMANDS = new Set([
  'branch',
  'cat-file',
  'check-ref-format',
  'commit-tree',
  'config',
  'count-objects',
  'diff-tree',
  'fast-import',
  'for-each-ref',
  'fsck',
  'gc',
  'hash-object',
  'http-backend',
  'init',
  'log',
  'ls-files',
  'ls-tree',
  'merge-base',
  'merge-tree',
  'mktag',
  'mktree',
  'pack-objects',
  'pack-refs',
  'read-tree',
  'receive-pack',
  'repack',
  'rev-list',
  'rev-parse',
  'show-ref',
  'symbolic-ref',
  'tag',
  'update-index',
  'update-ref',
  'upload-archive',
  'upload-pack',
  'archive',
  'write-tree',
]);

/** The subcommand of a git command line, past its `-c name=value` options. */
export function subcommandOf(args: readonly string[]): string {
  let i = 0;
  while (args[i] === '-c') i += 2;
  const name = args[i] ?? '';
  return SUBCOMMANDS.has(name) ? name : 'other';
}
