// QUARRY_RUNNER_SANDBOX=bwrap: a job's shell runs under bubblewrap, which sees the whole system
// read-only but for the job's own directories, a private /tmp, its own process tree (everything
// in it ends with the job) and no terminal to reach back into.

/** The command and arguments that run `argv`, sandboxed or not, with `writable` the only paths it may write. */
export function sandboxed(kind: 'none' | 'bwrap', argv: readonly string[], writable: readonly string[]): [string, string[]] {
  const [command, ...args] = argv as [string, ...string[]];
  if (kind === 'none') return [command, args];
  const binds = writable.flatMap((dir) => ['--bind', dir, dir]);
  return ['bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...binds, '--unshare-pid', '--die-with-parent', '--new-session', '--', command, ...args]];
}
