// The archive's tree in the platform's ndjson layout (its Json::NdjsonReader and NdjsonWriter):
// `tree/project.json` holds the project's own attributes, and `tree/project/<relation>.ndjson`
// one JSON object per line for each record of a relation, its nested records inside it. Lines are
// read one at a time, each at most 50 MB; a line that is not a JSON object fails the import with
// the platform's "Incorrect JSON format".
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { ArchiveError } from './archive.ts';

export const MAX_JSON_DOCUMENT_SIZE = 50 * 1024 * 1024;
export const INCORRECT_JSON = 'Incorrect JSON format';

export type JsonObject = Record<string, unknown>;

function parseObject(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => (key === '__proto__' ? undefined : v));
  } catch {
    throw new ArchiveError(INCORRECT_JSON);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ArchiveError(INCORRECT_JSON);
  return value as JsonObject;
}

/** A regular file (not a link) at `file`: what the reader may open. */
async function regularFile(file: string): Promise<boolean> {
  const stat = await fs.lstat(file).catch(() => null);
  return stat !== null && stat.isFile();
}

/** tree/project.json: the project's attributes; 'Invalid file' when it is missing (or not a plain file). */
export async function readAttributes(file: string): Promise<JsonObject> {
  if (!(await regularFile(file))) throw new ArchiveError('Invalid file');
  const stat = await fs.stat(file);
  if (stat.size > MAX_JSON_DOCUMENT_SIZE) throw new ArchiveError(INCORRECT_JSON);
  return parseObject(await fs.readFile(file, 'utf8'));
}

/** The records of a relation file with their line numbers; none when the file is absent. */
export async function* readRelation(file: string): AsyncGenerator<[JsonObject, number]> {
  if (!(await regularFile(file))) return;
  let pending = '';
  let line = 0;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 })) {
    pending += chunk as string;
    if (pending.length > MAX_JSON_DOCUMENT_SIZE && !pending.includes('\n')) throw new ArchiveError(INCORRECT_JSON);
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const text = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (text.trim() !== '') yield [parseObject(text), line];
      line += 1;
      newline = pending.indexOf('\n');
    }
  }
  if (pending.trim() !== '') yield [parseObject(pending), line];
}

/**
 * The ids of a list file (tree/groups/_all.ndjson: a group id a line, the top group first); the
 * platform's consume_relation of an array. A line that is not a positive integer is malformed.
 */
export async function readIds(file: string): Promise<number[]> {
  if (!(await regularFile(file))) throw new ArchiveError('Invalid file');
  const stat = await fs.stat(file);
  if (stat.size > MAX_JSON_DOCUMENT_SIZE) throw new ArchiveError(INCORRECT_JSON);
  const ids: number[] = [];
  for (const line of (await fs.readFile(file, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ArchiveError(INCORRECT_JSON);
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new ArchiveError(INCORRECT_JSON);
    ids.push(value);
  }
  return ids;
}

/** Writes one relation's records, a line each, minding the file's back-pressure. */
export class NdjsonWriter {
  private readonly out: WriteStream;
  count = 0;

  constructor(file: string) {
    this.out = createWriteStream(file, { flags: 'wx' });
  }

  write(record: JsonObject): Promise<void> {
    return this.writeValue(record);
  }

  /** Any JSON value a line (the ids of a list file). */
  async writeValue(value: unknown): Promise<void> {
    this.count += 1;
    if (!this.out.write(`${JSON.stringify(value)}\n`)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'close');
  }
}
