// The processes a job starts (git, bash), each in a process group of its own so that stopping the
// job stops everything it started; their output goes to the job's log.
import { spawn } from 'node:child_process';

export interface Started {
  /** Resolves with the exit code (a signal counts as 128 + its number, as shells report it). */
  readonly exited: Promise<number>;
  /** Ends the process group: SIGTERM, then SIGKILL half a second later. */
  kill(): void;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export function startProcess(command: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; output: (chunk: Buffer) => void }): Started {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', options.output);
  child.stderr.on('data', options.output);
  const exited = new Promise<number>((resolve) => {
    child.once('error', (error) => {
      options.output(Buffer.from(`${error.message}\n`));
      resolve(127);
    });
    child.once('close', (code, signal) => resolve(code ?? 128 + (SIGNALS[signal ?? ''] ?? 1)));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    exited,
    kill() {
      signalGroup('SIGTERM');
      setTimeout(() => signalGroup('SIGKILL'), 500).unref();
    },
  };
}
