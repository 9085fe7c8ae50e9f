// Gzip report artifacts (junit, dotenv…): the runner uploads one gzip member per matched file,
// concatenated; each member is a file of its own (`Gitlab::Ci::Build::Artifacts::Adapters::GzipStream`).
import { crc32, inflateRawSync } from 'node:zlib';

export interface GzipLimits {
  /** Most members accepted (default 1000). */
  maxMembers?: number;
  /** Most decompressed bytes in all (default 100 MiB): a gzip bomb stops here. */
  maxBytes?: number;
}

export interface GzipMember {
  /** The member's file name (FNAME), or null. */
  name: string | null;
  data: Buffer;
}

const FTEXT_FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

function zeroTerminated(buffer: Buffer, start: number): number {
  const end = buffer.indexOf(0, start);
  if (end === -1) throw new Error('gzip: truncated header');
  return end;
}

/** Every member of a concatenated gzip stream, with its name. Throws on corrupt or oversized input. */
export function readGzipMembers(input: Uint8Array, limits: GzipLimits = {}): GzipMember[] {
  const maxMembers = limits.maxMembers ?? 1000;
  let budget = limits.maxBytes ?? 100 * 1024 * 1024;
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const members: GzipMember[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (members.length >= maxMembers) throw new Error(`gzip: more than ${maxMembers} members`);
    if (buffer.length - offset < 18 || buffer[offset] !== 0x1f || buffer[offset + 1] !== 0x8b || buffer[offset + 2] !== 8) {
      throw new Error('gzip: not a gzip member');
    }
    const flags = buffer[offset + 3];
    let cursor = offset + 10;
    if (flags & FEXTRA) cursor += 2 + buffer.readUInt16LE(cursor);
    let name: string | null = null;
    if (flags & FNAME) {
      const end = zeroTerminated(buffer, cursor);
      name = buffer.subarray(cursor, end).toString('latin1');
      cursor = end + 1;
    }
    if (flags & FCOMMENT) cursor = zeroTerminated(buffer, cursor) + 1;
    if (flags & FTEXT_FHCRC) cursor += 2;
    if (cursor > buffer.length) throw new Error('gzip: truncated header');
    let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      inflated = inflateRawSync(buffer.subarray(cursor), { info: true, maxOutputLength: Math.max(1, budget) }) as unknown as typeof inflated;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new Error('gzip: decompressed data too large');
      throw new Error(`gzip: ${(error as Error).message}`);
    }
    const data = inflated.buffer;
    budget -= data.length;
    const trailer = cursor + inflated.engine.bytesWritten;
    if (trailer + 8 > buffer.length) throw new Error('gzip: truncated member');
    if (buffer.readUInt32LE(trailer) !== crc32(data) || buffer.readUInt32LE(trailer + 4) !== (data.length >>> 0)) {
      throw new Error('gzip: checksum mismatch');
    }
    members.push({ name, data });
    offset = trailer + 8;
  }
  return members;
}

/** The files of a concatenated gzip artifact, one buffer per member. */
export function gunzipMembers(input: Uint8Array, limits: GzipLimits = {}): Buffer[] {
  return readGzipMembers(input, limits).map((member) => member.data);
}
