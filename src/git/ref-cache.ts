// Reads of a repository's branches or tags, kept while its refs do not change, so that a list
// served over and over runs git once (a git process costs milliseconds; the lists are read far
// more often than refs change).
//
// Whether refs changed is told by the file system, without git: every ref write, loose or packed,
// renames a file into place, which changes the mtime of its directory or of packed-refs. A
// fingerprint is the stat of packed-refs and of every directory under refs/heads/ (or refs/tags/).
// Timestamps are coarse (a clock tick), so a change made within RACY_MS of the newest one may not
// show: while the newest timestamp is that recent, nothing is cached and every read runs git.
// Directories are listed again only when their own mtime changed, so that a thousand loose refs
// in one directory cost one stat, not a listing, per read. On a network file system whose
// attribute cache lags, reads may lag as long.
import fs from 'node:fs';
import path from 'node:path';
import type { RefType } from './refs.ts';

const RACY_MS = 1000;
/** Reads kept, over all repositories; the least recently used goes first. */
const MAX_ENTRIES = 512;
/** Directories whose subdirectories are remembered, over all repositories. */
const MAX_DIRECTORIES = 16_384;

const DIRECTORIES: Record<RefType, string> = { branch: 'refs/heads', tag: 'refs/tags' };

interface Entry {
  fingerprint: string;
  value: Promise<unknown>;
}

const entries = new Map<string, Entry>();

interface Listing {
  mtimeMs: number;
  ino: number;
  subdirectories: string[];
}

/** Directory → its subdirectories, as of the mtime they were listed at. */
const listings = new Map<string, Listing>();

/** A directory's subdirectories: remembered while its mtime stays (and is not too recent to trust). */
function subdirectories(dir: string, stat: fs.Stats, trusted: boolean): string[] {
  const known = listings.get(dir);
  if (trusted && known?.mtimeMs === stat.mtimeMs && known.ino === stat.ino) return known.subdirectories;
  let children: fs.Dirent[];
  try {
    children = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found = children.filter((child) => child.isDirectory()).map((child) => path.join(dir, child.name));
  if (trusted) {
    if (listings.size >= MAX_DIRECTORIES) listings.clear();
    listings.set(dir, { mtimeMs: stat.mtimeMs, ino: stat.ino, subdirectories: found });
  }
  return found;
}

/** The state of the refs of one type, or null when a change may be too recent to show in it. */
function fingerprint(gitDir: string, type: RefType): string | null {
  const now = Date.now();
  let newest = 0;
  const parts: string[] = [];
  const add = (stat: fs.Stats | undefined) => {
    if (stat === undefined) return parts.push('-');
    newest = Math.max(newest, stat.mtimeMs);
    return parts.push(`${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`);
  };
  add(fs.statSync(path.join(gitDir, 'packed-refs'), { throwIfNoEntry: false }));
  const walk = (dir: string) => {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    add(stat);
    if (stat?.isDirectory()) for (const child of subdirectories(dir, stat, now - stat.mtimeMs >= RACY_MS)) walk(child);
  };
  walk(path.join(gitDir, DIRECTORIES[type]));
  return now - newest < RACY_MS ? null : parts.join('|');
}

/**
 * What `read` makes of the repository's refs of one type, computed once for as long as those refs
 * stay the same (`key` names the read). Concurrent callers share one computation. The value is
 * shared: callers must not change it.
 */
export function readRefsCached<T>(gitDir: string, type: RefType, key: string, read: () => Promise<T>): Promise<T> {
  const state = fingerprint(gitDir, type);
  if (state === null) return read();
  const id = `${gitDir}\0${type}\0${key}`;
  const cached = entries.get(id);
  entries.delete(id);
  if (cached?.fingerprint === state) {
    entries.set(id, cached);
    return cached.value as Promise<T>;
  }
  const value = read();
  entries.set(id, { fingerprint: state, value });
  // A failed read is not kept.
  value.catch(() => {
    if (entries.get(id)?.value === value) entries.delete(id);
  });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  return value;
}

/** Forgets every read and listing (after the repositories were replaced wholesale: a test reset). */
export function clearRefCache(): void {
  entries.clear();
  listings.clear();
}
