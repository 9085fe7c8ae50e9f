// Files that are not repositories (job artifacts first; traces, uploads and exports may follow),
// kept under one directory of the data dir, addressed by paths relative to it. Writes are atomic:
// a file is written whole under `tmp/` and renamed into place, so a reader sees it complete or not
// at all, and a crash leaves only scratch that removeStaleTemps() clears. Reads are streamed.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, renameSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { removeLeftoverEntries } from '../core/processes.ts';

/** A file written under tmp/, not yet in its place. */
export interface StagedFile {
  readonly size: number;
  readonly sha256: string;
  /** Its absolute path, for readers that need random access before it is kept (a zip's directory). */
  readonly localPath: string;
  /** Moves it to `target` (relative), replacing nothing that readers could be reading halfway. */
  keep(target: string): Promise<void>;
  discard(): Promise<void>;
}

export interface FileStorage {
  /** Writes the stream under tmp/ and counts it; the caller keeps or discards it. */
  stage(source: Readable): Promise<StagedFile>;
  /** Writes bytes to `target` atomically. */
  write(target: string, data: Uint8Array): Promise<void>;
  /** The file's bytes, streamed; fails (ENOENT) when it is missing. */
  read(target: string): Readable;
  readAll(target: string): Promise<Buffer>;
  /** Its absolute path, for random-access readers. */
  localPath(target: string): string;
  exists(target: string): Promise<boolean>;
  /** Removes a file or a directory with everything under it; nothing to remove is fine. */
  remove(target: string): Promise<void>;
  /** Renames a file or a directory written under tmp/ (through localPath) into its place. */
  move(from: string, to: string): Promise<void>;
  /** Removes the scratch that processes left (see isLeftover: a dead owner on this host, or older than `ageMs`); returns how many. */
  removeStaleTemps(ageMs: number): Promise<number>;
  /** Empties the storage: everything is moved aside at once (writes that follow start afresh), then removed. */
  removeAll(): Promise<void>;
}

const TMP = 'tmp';

/** A relative path that stays inside the root: no absolute paths, no `..`, no empty segments. */
function checkedPath(root: string, target: string): string {
  const segments = target.split('/');
  if (target === '' || path.isAbsolute(target) || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0'))) {
    throw new Error(`invalid storage path: ${JSON.stringify(target)}`);
  }
  return path.join(root, ...segments);
}

export function fileStorage(root: string): FileStorage {
  const tmpDir = path.join(root, TMP);

  async function tempPath(): Promise<string> {
    await fs.mkdir(tmpDir, { recursive: true });
    return path.join(tmpDir, `${process.pid}-${randomBytes(8).toString('hex')}`);
  }

  async function moveInto(from: string, target: string): Promise<void> {
    const to = checkedPath(root, target);
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.rename(from, to);
  }

  return {
    async stage(source) {
      // A multipart file part whose request body ended inside it (a cut-off upload) is destroyed
      // before anyone reads it; piping it would wait forever.
      if (source.destroyed && !source.readableEnded) throw new Error('the upload ended before its file did');
      const temp = await tempPath();
      const hash = createHash('sha256');
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, count, createWriteStream(temp, { flags: 'wx' }));
      } catch (error) {
        await fs.rm(temp, { force: true });
        throw error;
      }
      const sha256 = hash.digest('hex');
      return {
        size,
        sha256,
        localPath: temp,
        keep: (target) => moveInto(temp, target),
        discard: () => fs.rm(temp, { force: true }),
      };
    },
    async write(target, data) {
      const temp = await tempPath();
      try {
        await fs.writeFile(temp, data, { flag: 'wx' });
        await moveInto(temp, target);
      } catch (error) {
        await fs.rm(temp, { force: true });
        throw error;
      }
    },
    read: (target) => createReadStream(checkedPath(root, target)),
    readAll: (target) => fs.readFile(checkedPath(root, target)),
    localPath: (target) => checkedPath(root, target),
    async exists(target) {
      try {
        return (await fs.stat(checkedPath(root, target))).isFile();
      } catch {
        return false;
      }
    },
    remove: (target) => fs.rm(checkedPath(root, target), { recursive: true, force: true }),
    move: (from, to) => moveInto(checkedPath(root, from), to),
    removeStaleTemps(ageMs) {
      return removeLeftoverEntries(tmpDir, ageMs);
    },
    async removeAll() {
      const aside = `${root}.removed-${randomBytes(6).toString('hex')}`;
      try {
        renameSync(root, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await fs.rm(aside, { recursive: true, force: true });
    },
  };
}

/** Where job artifacts live: `<data dir>/artifacts`. */
export function artifactsStorage(config: { readonly dataDir: string }): FileStorage {
  return fileStorage(path.join(config.dataDir, 'artifacts'));
}

/** Where package files live: `<data dir>/packages`, by project as artifacts are (artifact-paths.ts). */
export function packagesStorage(config: { readonly dataDir: string }): FileStorage {
  return fileStorage(path.join(config.dataDir, 'packages'));
}

/** Where files uploaded to projects (for Markdown) live: `<data dir>/uploads/<project id>/<secret>/<name>`. */
export function uploadsStorage(config: { readonly dataDir: string }): FileStorage {
  return fileStorage(path.join(config.dataDir, 'uploads'));
}
