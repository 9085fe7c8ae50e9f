// Export archives as files: written with `tar` (gzip), and read from an untrusted upload into a
// scratch directory under rules that let nothing out of it. Only plain files and directories are
// taken; a link of either kind, a device, a FIFO, an absolute path, a `..` segment or a name that
// is taken twice fails the whole archive before anything is read from it, and so does one that
// decompresses to more than the limit (counted as it inflates, so a gzip bomb stops at the limit)
// or holds too many entries. The caller removes the scratch directory, whatever happened.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry, create } from 'tar';

/** An archive refused; its message is the import's error. */
export class ArchiveError extends Error {}

export const SIZE_FAILED = 'Decompressed archive size validation failed.';
const MAX_ENTRIES = 100_000;
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

export interface ExtractLimits {
  /** Bytes the archive may decompress to. */
  maxBytes: number;
  maxEntries?: number;
}

/** The entry's path as segments, or an error when it could lead outside the directory. */
function segmentsOf(name: string): string[] {
  if (name.includes('\0') || name.includes('\\')) throw new ArchiveError(`Invalid file: unsafe path ${JSON.stringify(name)} in the archive`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ArchiveError(`Invalid file: absolute path ${JSON.stringify(name)} in the archive`);
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) throw new ArchiveError(`Invalid file: path ${JSON.stringify(name)} leads outside the archive`);
  return segments;
}

function describe(entry: ReadEntry): string {
  switch (entry.type) {
    case 'SymbolicLink':
      return 'symbolic link';
    case 'Link':
      return 'hard link';
    case 'CharacterDevice':
    case 'BlockDevice':
      return 'device';
    case 'FIFO':
      return 'FIFO';
    default:
      return `entry of type ${entry.type}`;
  }
}

/** Reads the gzip-compressed tar at `archive` into `dest` (an empty directory), or throws ArchiveError. */
export async function extractArchive(archive: string, dest: string, limits: ExtractLimits): Promise<void> {
  const maxEntries = limits.maxEntries ?? MAX_ENTRIES;
  const root = path.resolve(dest);
  let inflated = 0;
  let entries = 0;
  let failure: Error | null = null;
  const parser = new Parser({ strict: true });
  const source = createReadStream(archive);
  const gunzip = createGunzip();
  const fail = (error: Error) => {
    failure ??= error;
    source.destroy();
    gunzip.destroy();
    parser.abort(error);
  };
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > limits.maxBytes) {
        const error = new ArchiveError(SIZE_FAILED);
        failure ??= error;
        done(error);
        return;
      }
      done(null, chunk);
    },
  });
  const writes: Promise<void>[] = [];
  parser.on('entry', (entry: ReadEntry) => {
    if (failure) return entry.resume();
    try {
      entries += 1;
      if (entries > maxEntries) throw new ArchiveError(`Invalid file: the archive holds more than ${maxEntries} entries`);
      const segments = segmentsOf(entry.path);
      if (entry.type === 'Directory') {
        entry.resume();
        if (segments.length > 0) writes.push(fs.mkdir(path.join(root, ...segments), { recursive: true }).then(() => undefined));
        return;
      }
      if (!FILE_TYPES.has(entry.type)) throw new ArchiveError(`Invalid file: ${describe(entry)} ${JSON.stringify(entry.path)} in the archive`);
      if (segments.length === 0) throw new ArchiveError(`Invalid file: unnamed entry in the archive`);
      if ((entry.size ?? 0) > limits.maxBytes) throw new ArchiveError(SIZE_FAILED);
      const target = path.join(root, ...segments);
      if (!target.startsWith(`${root}${path.sep}`)) throw new ArchiveError(`Invalid file: path ${JSON.stringify(entry.path)} leads outside the archive`);
      // The parser waits for this entry's body to be read before it goes on: the file is written in order.
      entry.pause();
      writes.push(
        (async () => {
          await fs.mkdir(path.dirname(target), { recursive: true });
          // 'wx': a name given twice (or over a directory) fails rather than replacing what was read.
          const out = createWriteStream(target, { flags: 'wx', mode: 0o600 });
          await pipeline(entry, out);
        })().catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          fail(
            error instanceof ArchiveError
              ? error
              : new ArchiveError(code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR' ? `Invalid file: ${JSON.stringify(entry.path)} is given twice in the archive` : 'Unable to read the archive'),
          );
          entry.resume();
        }),
      );
    } catch (error) {
      entry.resume();
      fail(error as Error);
    }
  });
  parser.on('warn', (_code: string, message: string | Error) => fail(new ArchiveError(`Invalid file: ${typeof message === 'string' ? message : message.message}`)));
  try {
    const ended = once(parser, 'close').catch(() => undefined);
    await pipeline(source, gunzip, counter, parser);
    await ended;
  } catch (error) {
    if (!failure) failure = error instanceof ArchiveError ? error : new ArchiveError('Unable to decompress the archive: it is not a gzip-compressed tar file, or it is cut short');
  }
  await Promise.allSettled(writes);
  if (failure) throw failure instanceof ArchiveError ? failure : new ArchiveError('Unable to decompress the archive');
}

/** Writes the named entries of `dir` (files and directories, relative) into a gzip-compressed tar at `file`. */
export async function writeArchive(dir: string, entries: readonly string[], file: string): Promise<void> {
  await create({ gzip: true, cwd: dir, file, portable: true, noDirRecurse: false }, [...entries]);
}
