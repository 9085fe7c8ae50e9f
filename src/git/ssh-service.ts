// Git's own protocol over an SSH channel: `git upload-pack`, `git receive-pack` or
// `git upload-archive` on a repository, its standard input, output and error joined to the
// channel's, as smart-http.ts does for HTTP. Who may run it is decided before; the command's
// argument never reaches git, which runs on the repository the server chose.
import type { Readable, Writable } from 'node:stream';
import { type GitExit, spawnGit } from './run.ts';
import { RPC_TIMEOUT_MS, SERVICE_CONFIG } from './smart-http.ts';

export const SSH_GIT_COMMANDS = ['git-upload-pack', 'git-receive-pack', 'git-upload-archive'] as const;
export type SshGitCommand = (typeof SSH_GIT_COMMANDS)[number];

export function isSshGitCommand(value: string): value is SshGitCommand {
  return (SSH_GIT_COMMANDS as readonly string[]).includes(value);
}

/** The client's side of a session: what it sends, and where its standard output and error go. */
export interface ChannelStreams {
  input: Readable;
  output: Writable;
  errors: Writable;
  /** Settles when the client has gone (the channel closed). */
  closed: Promise<void>;
}

export interface SshServiceOptions {
  /** GIT_PROTOCOL, from gitProtocol() of what the client asked for; null for the original protocol. */
  protocol: string | null;
  /** More `name=value` configuration, chosen by the server (core.hooksPath, …). */
  config?: readonly string[];
  /** Variables for git and the hooks it runs. */
  env?: Record<string, string>;
}

/**
 * Runs the command until git exits, and resolves with how it exited. A client that goes before
 * the end ends git, unless git may be changing refs (a push), which then runs to its end.
 */
export function serveGitCommand(gitDir: string, command: SshGitCommand, channel: ChannelStreams, options: SshServiceOptions): Promise<GitExit> {
  const own = command === 'git-upload-archive' ? [] : SERVICE_CONFIG[command];
  const config = [...own, ...(options.config ?? [])].flatMap((c) => ['-c', c]);
  // GIT_DIR is the repository, and so is '.'.
  const args = [...config, command.slice('git-'.length), '.'];
  const env = { ...options.env, ...(options.protocol !== null ? { GIT_PROTOCOL: options.protocol } : {}) };
  const git = spawnGit(gitDir, args, { env, timeoutMs: RPC_TIMEOUT_MS });

  channel.input.pipe(git.stdin);
  git.stdout.pipe(channel.output, { end: false });
  // Git's messages (a refused push, a fatal error) are the client's to read, as with sshd.
  git.child.stderr.on('data', (chunk: Buffer) => channel.errors.write(chunk));
  let exited = false;
  void channel.closed.then(() => {
    if (exited) return;
    git.stdout.unpipe(channel.output);
    git.stdout.resume();
    if (command === 'git-receive-pack') git.stdin.end();
    else git.kill();
  });
  return git.done.then((exit) => {
    exited = true;
    channel.input.unpipe(git.stdin);
    return exit;
  });
}
