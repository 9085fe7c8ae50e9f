// Artifact archives: checking that an upload is a zip and listing its entries from the central
// directory (yauzl), the listing written as the platform's Workhorse writes an archive's metadata
// (gzip: a header, then each path with its JSON, directories implied by paths added, sorted), one
// entry streamed out by its exact name, and one directory of it extracted (a pages site). Entry
// names come from whoever built the zip: names that leave the archive (absolute, `..`) refuse the
// upload, and a name is joined to a path on disk only by extraction, which yauzl's checks of those
// names guard, and which writes no symbolic link.
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** Most entries an archive may list (the platform's Workhorse caps what it reads of one, too). */
export const MAX_ZIP_ENTRIES = 100_000;

export class NotAZipError extends Error {}
export class ZipLimitError extends Error {}
export class UnsafeZipError extends Error {}

export interface ZipEntryInfo {
  name: string;
  modified: number;
  mode: string;
  crc: number;
  size: number;
  zipped: number;
  comment: string;
}

const OPTIONS = { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true, decodeStrings: true };

async function openZip(file: string): Promise<ZipFile> {
  try {
    return await yauzl.openPromise(file, OPTIONS);
  } catch (error) {
    throw new NotAZipError((error as Error).message);
  }
}

/** Permission bits as Go's archive/zip reads them (unix creators; MS-DOS attributes otherwise). */
function permissions(entry: Entry): number {
  const creator = entry.versionMadeBy >> 8;
  if (creator === 3 || creator === 19) return (entry.externalFileAttributes >>> 16) & 0o777;
  if (creator === 0 || creator === 11 || creator === 14) {
    const directory = (entry.externalFileAttributes & 0x10) !== 0;
    const mode = directory ? 0o777 : 0o666;
    return entry.externalFileAttributes & 0x01 ? mode & ~0o222 : mode;
  }
  return 0;
}

function describe(entry: Entry): ZipEntryInfo {
  return {
    name: entry.fileName,
    modified: Math.floor(entry.getLastModDate({ timezone: 'UTC' }).getTime() / 1000),
    mode: permissions(entry).toString(8),
    crc: entry.crc32,
    size: entry.uncompressedSize,
    zipped: entry.compressedSize,
    comment: entry.fileComment,
  };
}

/** Every entry of the archive at `file`; throws NotAZipError, ZipLimitError or UnsafeZipError. */
export async function listZipEntries(file: string, maxEntries = MAX_ZIP_ENTRIES): Promise<ZipEntryInfo[]> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > maxEntries) throw new ZipLimitError(`more than ${maxEntries} entries`);
    const entries: ZipEntryInfo[] = [];
    try {
      for await (const entry of zip.eachEntry()) entries.push(describe(entry));
    } catch (error) {
      const message = (error as Error).message;
      // yauzl refuses names that leave the archive; anything else is a broken zip.
      if (/^(absolute path|invalid relative path|invalid characters in fileName)/.test(message)) throw new UnsafeZipError(message);
      throw new NotAZipError(message);
    }
    return entries;
  } finally {
    zip.close();
  }
}

function lengthPrefixed(data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

const METADATA_HEADER = 'GitLab Build Artifacts Metadata 0.0.2\n';

/** Go's json.Marshal of the entry's metadata, empty fields left out (`omitempty`). */
function entryJson(entry: ZipEntryInfo | undefined): string {
  if (!entry) return '{}';
  const fields: [string, unknown][] = [
    ['modified', entry.modified],
    ['mode', entry.mode],
    ['crc', entry.crc],
    ['size', entry.size],
    ['zipped', entry.zipped],
    ['comment', entry.comment],
  ];
  return JSON.stringify(Object.fromEntries(fields.filter(([, v]) => v !== 0 && v !== '')));
}

/** The archive's metadata file, as Workhorse's GenerateZipMetadata writes it. */
export function zipMetadata(entries: readonly ZipEntryInfo[]): Buffer {
  const byName = new Map<string, ZipEntryInfo | undefined>();
  for (const entry of entries) {
    byName.set(entry.name, entry);
    const parts = entry.name.split('/');
    for (let i = parts.length - 1; i > 0; i -= 1) {
      const dir = `${parts.slice(0, i).join('/')}/`;
      if (dir !== '/' && !byName.has(dir)) byName.set(dir, undefined);
    }
  }
  const names = [...byName.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const chunks = [lengthPrefixed(Buffer.from(METADATA_HEADER)), lengthPrefixed(Buffer.from('{}'))];
  for (const name of names) chunks.push(lengthPrefixed(Buffer.from(name)), lengthPrefixed(Buffer.from(`${entryJson(byName.get(name))}\n`)));
  return gzipSync(Buffer.concat(chunks));
}

/** The entry named exactly `name`, decompressed as it streams; null when the archive has none. */
export async function openZipEntry(file: string, name: string): Promise<{ stream: Readable; size: number } | null> {
  const zip = await openZip(file);
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== name) continue;
      const stream = await zip.openReadStreamPromise(entry);
      // The archive closes once the entry's stream is done with.
      stream.once('close', () => zip.close());
      return { stream, size: entry.uncompressedSize };
    }
  } catch (error) {
    zip.close();
    throw error;
  }
  zip.close();
  return null;
}

/** The entry is a symbolic link (unix creators keep the file type in the high bits of its attributes). */
function isSymlink(entry: Entry): boolean {
  const creator = entry.versionMadeBy >> 8;
  return (creator === 3 || creator === 19) && ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

export interface Extracted {
  files: number;
  /** Bytes written. */
  size: number;
}

/**
 * Writes the files under `prefix` (a directory of the archive, `public/`) into `destination`
 * (created; names relative to the prefix), or returns null when the archive has nothing under it.
 * The sizes the archive declares are added up first: past `maxBytes` nothing is written
 * (ZipLimitError). Symbolic links are left out, so that nothing extracted points elsewhere.
 */
export async function extractZipDirectory(file: string, prefix: string, destination: string, maxBytes: number): Promise<Extracted | null> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES) throw new ZipLimitError(`more than ${MAX_ZIP_ENTRIES} entries`);
    const entries: Entry[] = [];
    let found = false;
    let total = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        if (!entry.fileName.startsWith(prefix)) continue;
        found = true;
        if (entry.fileName.endsWith('/') || isSymlink(entry)) continue;
        total += entry.uncompressedSize;
        entries.push(entry);
      }
    } catch (error) {
      const message = (error as Error).message;
      if (/^(absolute path|invalid relative path|invalid characters in fileName)/.test(message)) throw new UnsafeZipError(message);
      throw new NotAZipError(message);
    }
    if (!found) return null;
    if (total > maxBytes) throw new ZipLimitError(String(total));
    await fs.mkdir(destination, { recursive: true });
    for (const entry of entries) {
      const target = path.join(destination, ...entry.fileName.slice(prefix.length).split('/'));
      if (!target.startsWith(destination + path.sep)) throw new UnsafeZipError(`entry outside the directory: ${entry.fileName}`);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target, { flags: 'wx', mode: 0o644 }));
    }
    return { files: entries.length, size: total };
  } finally {
    zip.close();
  }
}
