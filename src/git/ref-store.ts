// Refs read from the files git keeps them in, without a git process: a loose file per ref under
// refs/ (which wins), then packed-refs. A request that reads a ref (a write checking a branch head,
// the work after a push, the default branch of an archive) costs a file read instead of a process
// start (15–33 ms here, blocking the event loop). Every read is fresh: git replaces a ref file or
// packed-refs by renaming a complete new one into place, so a read sees a write as soon as it is
// done; only the parsed packed-refs is kept, while the file stays the same one.
//
// Only what git itself would answer is answered: anything unusual (a symbolic ref, content git
// would call broken, another ref backend) is `undefined`, and the caller asks git instead.
import fs from 'node:fs';
import path from 'node:path';
import { validRefName } from './args.ts';

/** A loose ref's content: an object id, then nothing or whitespace (git's parse_loose_ref_contents). */
const LOOSE = /^([0-9a-f]{40})(?:[ \t\n\r]|$)/;
const PACKED_LINE = /^([0-9a-f]{40}) (.+)$/;
/** packed-refs rewritten this recently may not show in its timestamps yet: it is parsed again. */
const RACY_MS = 1000;
/** Repositories whose packed-refs is kept parsed. */
const MAX_PACKED = 256;

interface Packed {
  fingerprint: string;
  refs: Map<string, string>;
}

const packedCache = new Map<string, Packed>();

/** Whether the repository keeps its refs some other way (reftable), which only git reads. */
function otherBackend(gitDir: string): boolean {
  return fs.existsSync(path.join(gitDir, 'reftable'));
}

/** A file's content; null when there is no file there (absent, or a directory of refs). */
function readFileOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
}

/** packed-refs by full name; undefined when git must be asked (a line it would not write). */
function packedRefs(gitDir: string): Map<string, string> | undefined {
  const file = path.join(gitDir, 'packed-refs');
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return new Map();
  const fingerprint = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  const kept = packedCache.get(gitDir);
  if (kept?.fingerprint === fingerprint) return kept.refs;
  const text = readFileOrNull(file) ?? '';
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const match = PACKED_LINE.exec(line);
    if (match === null) return undefined;
    refs.set(match[2], match[1]);
  }
  packedCache.delete(gitDir);
  if (Date.now() - stat.mtimeMs >= RACY_MS) {
    packedCache.set(gitDir, { fingerprint, refs });
    if (packedCache.size > MAX_PACKED) packedCache.delete(packedCache.keys().next().value as string);
  }
  return refs;
}

/** A loose ref's object id: null when there is no loose file, undefined when git must be asked. */
function looseRef(gitDir: string, ref: string): string | null | undefined {
  const content = readFileOrNull(path.join(gitDir, ref));
  if (content === null) return null;
  return LOOSE.exec(content)?.[1];
}

/**
 * The object id a full ref name points at (unpeeled), exactly that ref (no shortening rules);
 * null when it does not exist; undefined when only git can tell.
 */
export function storedRef(gitDir: string, ref: string): string | null | undefined {
  if (!validRefName(ref) || otherBackend(gitDir)) return undefined;
  const loose = looseRef(gitDir, ref);
  if (loose !== null) return loose;
  const packed = packedRefs(gitDir);
  return packed === undefined ? undefined : (packed.get(ref) ?? null);
}

/**
 * The refs under a prefix (`refs/heads/`), by full name, in no order; with `first`, only whether
 * there is any (the walk stops at the first found). Undefined when only git can tell. Names git
 * would not read as refs (a `.lock` being written, a dot file) are left out, as git leaves them.
 */
function collect(gitDir: string, prefix: string, first: boolean): Map<string, string> | undefined {
  if (!prefix.endsWith('/') || !validRefName(`${prefix}x`) || otherBackend(gitDir)) return undefined;
  const packed = packedRefs(gitDir);
  if (packed === undefined) return undefined;
  const refs = new Map<string, string>();
  for (const [name, id] of packed) {
    if (!name.startsWith(prefix)) continue;
    refs.set(name, id);
    if (first) return refs;
  }
  // false: git must be asked.
  const walk = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(gitDir, dir), { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      const name = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(name)) return false;
      } else if (validRefName(name)) {
        const id = looseRef(gitDir, name);
        if (id === undefined) return false;
        // A loose ref wins over its packed copy.
        if (id !== null) refs.set(name, id);
      }
      if (first && refs.size > 0) return true;
    }
    return true;
  };
  return walk(prefix.slice(0, -1)) ? refs : undefined;
}

/** Every ref under a prefix (`refs/heads/`) by full name, in no order; undefined when only git can tell. */
export function storedRefsUnder(gitDir: string, prefix: string): Map<string, string> | undefined {
  return collect(gitDir, prefix, false);
}

/** Whether any ref exists under a prefix (`refs/heads/`); undefined when only git can tell. */
export function anyStoredRefUnder(gitDir: string, prefix: string): boolean | undefined {
  const found = collect(gitDir, prefix, true);
  return found === undefined ? undefined : found.size > 0;
}

/**
 * The ref HEAD names (`refs/heads/main`), whether or not it exists; null when HEAD is detached;
 * undefined when only git can tell.
 */
export function storedHead(gitDir: string): string | null | undefined {
  if (otherBackend(gitDir)) return undefined;
  const content = readFileOrNull(path.join(gitDir, 'HEAD'));
  if (content === null) return undefined;
  if (LOOSE.test(content)) return null;
  const symbolic = /^ref:[ \t]*(\S+)[ \t\r\n]*$/.exec(content);
  return symbolic !== null && validRefName(symbolic[1]) ? symbolic[1] : undefined;
}
