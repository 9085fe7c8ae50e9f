// Caches as the real runner keeps them locally: one zip per project and key, restored before the
// script (the key, then its fallback keys) when the policy pulls, saved after it when the policy
// pushes and `when` matches the outcome. A cache that cannot be read or written is a warning, never
// a failed job.
import fs from 'node:fs/promises';
import path from 'node:path';
import { expandValue } from './job-script.ts';
import { selectFiles, unpackZip, writeZip } from './archives.ts';
import type { CacheSpec } from './runner-api.ts';
import type { JobLog } from './job-log.ts';

interface CacheOptions {
  projectDir: string;
  cacheDir: string;
  projectPath: string;
  variable: (key: string) => string | undefined;
  log: JobLog;
}

/** The file of a key: keys are the user's text, so they are encoded into one safe file name. */
function cacheFile(options: CacheOptions, key: string): string {
  const expanded = expandValue(key, options.variable) || 'default';
  return path.join(options.cacheDir, options.projectPath, `${encodeURIComponent(expanded).replace(/^\.+/, (dots) => '%2E'.repeat(dots.length))}.zip`);
}

const warn = (options: CacheOptions) => (message: string) => options.log.line(`\x1b[0;33mWARNING: ${message}\x1b[0;m`);

export async function restoreCaches(specs: readonly CacheSpec[], options: CacheOptions): Promise<void> {
  const pulling = specs.filter((c) => c.policy !== 'push');
  if (pulling.length === 0) return;
  const end = options.log.section('restore_cache', 'Restoring cache');
  for (const spec of pulling) {
    const keys = [spec.key, ...(spec.fallback_keys ?? [])];
    let restored = false;
    for (const key of keys) {
      const file = cacheFile(options, key);
      if (!(await fs.stat(file).catch(() => null))) continue;
      options.log.line(`Checking cache for ${expandValue(key, options.variable)}...`);
      try {
        await unpackZip(file, options.projectDir, warn(options));
        options.log.line(`Successfully extracted cache`);
        restored = true;
      } catch (error) {
        warn(options)(`cache ${key} could not be read: ${(error as Error).message}`);
      }
      break;
    }
    if (!restored) options.log.line(`No cache found for ${expandValue(spec.key, options.variable)}`);
  }
  end();
}

export async function saveCaches(specs: readonly CacheSpec[], succeeded: boolean, options: CacheOptions): Promise<void> {
  const pushing = specs.filter((c) => c.policy !== 'pull' && (c.when === 'always' || (c.when === 'on_failure') !== succeeded));
  if (pushing.length === 0) return;
  const end = options.log.section('archive_cache', 'Saving cache');
  for (const spec of pushing) {
    const file = cacheFile(options, spec.key);
    options.log.line(`Creating cache ${expandValue(spec.key, options.variable)}...`);
    try {
      const files = await selectFiles(options.projectDir, spec, warn(options));
      await fs.mkdir(path.dirname(file), { recursive: true });
      // Written aside and renamed, so a job reading the cache meanwhile sees the old one or the new one.
      const partial = `${file}.${process.pid}.${Date.now()}.partial`;
      await writeZip(options.projectDir, files, partial);
      await fs.rename(partial, file);
      options.log.line(`Created cache`);
    } catch (error) {
      warn(options)(`cache ${spec.key} could not be saved: ${(error as Error).message}`);
    }
  }
  end();
}
