// Zip archives of a job's files, for artifacts and caches: which files the `paths`, `exclude` and
// `untracked` of the configuration name, writing them into a zip, and unpacking one safely (no
// entry may land outside the directory it is unpacked into).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import yazl from 'yazl';

const run = promisify(execFile);

export interface Selection {
  paths?: readonly string[];
  exclude?: readonly string[];
  untracked?: boolean;
}

const inside = (dir: string, rel: string) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && path.resolve(dir, rel).startsWith(dir + path.sep);

/** Every regular file under `rel` (itself when it is one), as paths relative to `dir`. */
async function filesUnder(dir: string, rel: string, into: Set<string>): Promise<void> {
  const full = path.join(dir, rel);
  const stat = await fs.promises.lstat(full).catch(() => null);
  if (!stat) return;
  if (stat.isFile()) into.add(rel);
  else if (stat.isDirectory()) {
    for (const entry of await fs.promises.readdir(full)) await filesUnder(dir, path.join(rel, entry), into);
  }
}

/**
 * The files a selection names under `dir`, sorted: each path pattern's matches (a directory with
 * everything in it), git's untracked files when asked, minus what an `exclude` pattern matches.
 * Patterns leading outside `dir` match nothing; `warn` hears of them and of patterns matching nothing.
 */
export async function selectFiles(dir: string, selection: Selection, warn: (message: string) => void): Promise<string[]> {
  const files = new Set<string>();
  for (const pattern of selection.paths ?? []) {
    const normalized = path.normalize(pattern).replace(/\/+$/, '');
    if (!inside(dir, normalized)) {
      warn(`${pattern}: not within the project directory`);
      continue;
    }
    const before = files.size;
    for await (const match of fs.promises.glob(normalized, { cwd: dir })) {
      if (inside(dir, match)) await filesUnder(dir, match, files);
    }
    if (files.size === before) warn(`${pattern}: no matching files`);
  }
  if (selection.untracked) {
    const { stdout } = await run('git', ['ls-files', '--others', '-z'], { cwd: dir, maxBuffer: 256 * 1024 * 1024 }).catch(() => ({ stdout: '' }));
    for (const rel of stdout.split('\0')) if (rel && inside(dir, rel)) await filesUnder(dir, rel, files);
  }
  const exclude = selection.exclude ?? [];
  return [...files].filter((rel) => !exclude.some((pattern) => path.matchesGlob(rel, pattern) || path.matchesGlob(rel, `${pattern.replace(/\/+$/, '')}/**`))).sort();
}

/** Writes `files` (relative to `dir`) into a zip at `target`, with their modes. */
export async function writeZip(dir: string, files: readonly string[], target: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const rel of files) {
    const stat = await fs.promises.stat(path.join(dir, rel));
    zip.addFile(path.join(dir, rel), rel.split(path.sep).join('/'), { mode: stat.mode, mtime: stat.mtime });
  }
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(target));
}

/** Unpacks the zip at `file` into `dir`; entries that would leave it, and links, are skipped. */
export async function unpackZip(file: string, dir: string, warn: (message: string) => void): Promise<number> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(file, { lazyEntries: true, decodeStrings: true, strictFileNames: false });
  const root = path.resolve(dir);
  let count = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        const target = path.resolve(root, entry.fileName);
        const mode = (entry.externalFileAttributes >>> 16) & 0o170777;
        const kind = mode & 0o170000;
        if (!target.startsWith(root + path.sep) || kind === 0o120000) {
          warn(`${entry.fileName}: skipped (outside the directory, or a link)`);
          zip.readEntry();
          return;
        }
        if (entry.fileName.endsWith('/')) {
          fs.promises.mkdir(target, { recursive: true }).then(() => zip.readEntry(), reject);
          return;
        }
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          fs.promises
            .mkdir(path.dirname(target), { recursive: true })
            .then(() => fs.promises.rm(target, { force: true }))
            .then(() => pipeline(stream, fs.createWriteStream(target, { mode: (mode & 0o777) || 0o644 })))
            .then(() => {
              count++;
              zip.readEntry();
            }, reject);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return count;
}
