// Named repository storages: a storage is a directory that holds repositories, and a project
// records the name of the one that holds its repository (projects.repository_storage).
import path from 'node:path';

/** Storage name → absolute directory. */
export type RepositoryStorages = Readonly<Record<string, string>>;

/** The storage every project starts on unless an administrator picks another; it must exist. */
export const DEFAULT_STORAGE = 'default';

const STORAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;

/**
 * QUARRY_REPOSITORY_STORAGES: a JSON object of name → directory, e.g.
 * {"default":"/srv/repos","fast":"/mnt/ssd/repos"}, or the same as a comma-separated list,
 * `default=/srv/repos,fast=/mnt/ssd/repos`. Relative directories are under the data dir.
 * Unset: one storage, `default`, at <data dir>/repositories. `default` is required, as on the
 * platform, because new projects and existing rows name it; two storages may not share a
 * directory, since moving a repository between them would delete it. Throws an Error whose message
 * is a one-line reason.
 */
export function parseRepositoryStorages(raw: string | undefined, dataDir: string): RepositoryStorages {
  const name = 'QUARRY_REPOSITORY_STORAGES';
  if (raw === undefined || raw.trim() === '') return Object.freeze({ [DEFAULT_STORAGE]: path.join(dataDir, 'repositories') });
  let parsed: unknown;
  if (raw.trim().startsWith('{')) {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error(`${name} must be a JSON object of storage name to directory, got "${raw}"`);
    }
  } else {
    const entries = raw.split(',').map((item) => {
      const at = item.indexOf('=');
      if (at <= 0) throw new Error(`${name} must be a comma-separated list of name=directory (or a JSON object), got "${item.trim()}"`);
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()] as const;
    });
    const names = entries.map(([storage]) => storage);
    const repeated = names.find((storage, i) => names.indexOf(storage) !== i);
    if (repeated !== undefined) throw new Error(`${name} names the storage "${repeated}" twice`);
    parsed = Object.fromEntries(entries);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${name} must be a JSON object of storage name to directory, got "${raw}"`);
  }
  const storages: Record<string, string> = {};
  const owners = new Map<string, string>();
  for (const [storage, dir] of Object.entries(parsed)) {
    if (!STORAGE_NAME.test(storage)) throw new Error(`${name}: "${storage}" is not a valid storage name (letters, digits, '_', '.', '-')`);
    if (typeof dir !== 'string' || dir.trim() === '' || dir.includes('\0')) throw new Error(`${name}: the directory of "${storage}" must be a non-empty string`);
    const resolved = path.resolve(dataDir, dir);
    const other = owners.get(resolved);
    if (other !== undefined) throw new Error(`${name}: "${other}" and "${storage}" share the directory ${resolved}`);
    owners.set(resolved, storage);
    storages[storage] = resolved;
  }
  if (!(DEFAULT_STORAGE in storages)) throw new Error(`${name} must name a storage "${DEFAULT_STORAGE}"`);
  return Object.freeze(storages);
}

/** The directory of a storage; null for a name that is not configured. */
export function storageDirectory(storages: RepositoryStorages, storage: string): string | null {
  return Object.hasOwn(storages, storage) ? storages[storage] : null;
}
