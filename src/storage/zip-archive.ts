// Artifact archives: checking that an upload is a zip and listing its entries from the central
// directory (yauzl; nothing is extracted), the listing written as the platform's Workhorse writes
// an archive's metadata (gzip: a header, then each path with its JSON, directories implied by
// paths added, sorted), and one entry streamed out by its exact name. Entry names come from
// whoever built the zip: names that leave the archive (absolute, `..`) refuse the upload, and a
// name is only ever compared, never joined to a path on disk.
import type { Readable } from 'node:stream';
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
