// What a job runs: its variables as the environment of the shell, and its commands as a bash script
// that echoes each one before running it and stops at the first that fails, as the real runner's
// bash shell does.
import fs from 'node:fs/promises';
import path from 'node:path';

export interface PayloadVariable {
  key: string;
  value: string;
  public?: boolean;
  masked?: boolean;
  file?: boolean;
  raw?: boolean;
}

/** The host variables a job keeps; everything else of the runner's own environment stays out of it. */
const HOST_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'SHELL', 'TERM'];

/** `$VAR` and `${VAR}` replaced by the job's variables, `$$` by `$`, as the runner expands values. */
export function expandValue(value: string, lookup: (key: string) => string | undefined): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    return lookup((braced ?? bare) as string) ?? '';
  });
}

/**
 * The job's environment: a few host variables, then the job's in order (a later one of the same key
 * wins), values expanded unless raw, file-type variables written to files under `tmpDir` and
 * passed as their paths.
 */
export async function jobEnvironment(variables: readonly PayloadVariable[], extra: readonly PayloadVariable[], tmpDir: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const key of HOST_KEYS) if (process.env[key] !== undefined) env[key] = process.env[key] as string;
  const all = [...variables, ...extra];
  const latest = new Map(all.map((v) => [v.key, v.value]));
  let files = 0;
  for (const v of all) {
    const value = v.raw ? v.value : expandValue(v.value, (key) => latest.get(key));
    if (v.file) {
      const file = path.join(tmpDir, `${String(++files).padStart(3, '0')}-${v.key.replace(/[^A-Za-z0-9_]/g, '_')}`);
      await fs.writeFile(file, value, { mode: 0o600 });
      env[v.key] = file;
    } else env[v.key] = value;
  }
  return env;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** How a command is shown in the log: green, with a note when only its first line is shown. */
function shown(command: string): string {
  const lines = command.trim().split('\n');
  const first = lines.length > 1 ? `${lines[0]} # collapsed multi-line command` : (lines[0] ?? '');
  return `\x1b[32;1m$ ${first}\x1b[0;m`;
}

/** A bash script running the commands in the project directory, stopping at the first failure. */
export function shellScript(commands: readonly string[], projectDir: string): string {
  const lines = ['set -eo pipefail', 'set +o noclobber', `cd ${quote(projectDir)}`];
  for (const command of commands) {
    lines.push(`printf '%s\\n' ${quote(shown(command))}`, command);
  }
  return `${lines.join('\n')}\n`;
}
