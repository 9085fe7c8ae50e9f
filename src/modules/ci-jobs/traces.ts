// Job logs, kept in the database in chunks of 128 KiB (ci_build_trace_chunks), as the platform
// keeps live traces: an append rewrites at most the last, partial chunk and adds new ones, so a
// 100 MB log is neither held in memory nor rewritten; reads stream the chunks in order. The job's
// `trace_size` is the log's length, which a runner's next append must start at.
import { type Kysely, PostgresAdapter } from 'kysely';
import type { DB } from '../../db/schema.ts';

export const CHUNK_BYTES = 128 * 1024;

/**
 * Appends `body` at `start`; the new length, or `{ mismatch: length }` when `start` is not the
 * log's length (the runner then resends from there). Runs inside the caller's transaction.
 */
export async function appendTrace(db: Kysely<DB>, buildId: number, start: number, body: Buffer): Promise<{ length: number } | { mismatch: number }> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const row = await db.selectFrom('ci_builds').select('trace_size').where('id', '=', buildId).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirstOrThrow();
  const length = Number(row.trace_size);
  if (start !== length) return { mismatch: length };
  if (body.length === 0) return { length };
  let index = Math.floor(length / CHUNK_BYTES);
  let offset = length % CHUNK_BYTES;
  let rest = body;
  if (offset > 0) {
    const last = await db.selectFrom('ci_build_trace_chunks').select('data').where('build_id', '=', buildId).where('chunk_index', '=', index).executeTakeFirstOrThrow();
    const room = CHUNK_BYTES - offset;
    const data = Buffer.concat([Buffer.from(last.data).subarray(0, offset), rest.subarray(0, room)]);
    await db.updateTable('ci_build_trace_chunks').set({ data }).where('build_id', '=', buildId).where('chunk_index', '=', index).execute();
    rest = rest.subarray(room);
    index++;
    offset = 0;
  }
  const chunks = [];
  for (let at = 0; at < rest.length; at += CHUNK_BYTES) chunks.push({ build_id: buildId, chunk_index: index++, data: rest.subarray(at, at + CHUNK_BYTES) });
  if (chunks.length > 0) await db.insertInto('ci_build_trace_chunks').values(chunks).execute();
  const newLength = length + body.length;
  // A log append is news of the job too: it is not stuck.
  await db.updateTable('ci_builds').set({ trace_size: newLength, updated_at: new Date().toISOString() }).where('id', '=', buildId).execute();
  return { length: newLength };
}

/** The log's chunks in order, one query each, so that a long log streams. */
export async function* traceChunks(db: Kysely<DB>, buildId: number): AsyncGenerator<Buffer> {
  for (let index = 0; ; index++) {
    const chunk = await db.selectFrom('ci_build_trace_chunks').select('data').where('build_id', '=', buildId).where('chunk_index', '=', index).executeTakeFirst();
    if (!chunk) return;
    yield Buffer.from(chunk.data);
  }
}

/** The last `maxBytes` of the log (for coverage), whole lines only. */
export async function traceTail(db: Kysely<DB>, buildId: number, maxBytes: number): Promise<string> {
  const row = await db.selectFrom('ci_builds').select('trace_size').where('id', '=', buildId).executeTakeFirstOrThrow();
  const length = Number(row.trace_size);
  const from = Math.max(0, length - maxBytes);
  const chunks = await db
    .selectFrom('ci_build_trace_chunks')
    .select(['chunk_index', 'data'])
    .where('build_id', '=', buildId)
    .where('chunk_index', '>=', Math.floor(from / CHUNK_BYTES))
    .orderBy('chunk_index')
    .execute();
  const joined = Buffer.concat(chunks.map((c) => Buffer.from(c.data)));
  const text = joined.subarray(from % CHUNK_BYTES).toString('utf8');
  return from === 0 ? text : text.slice(text.indexOf('\n') + 1);
}

/** The platform's hide_secrets: each secret replaced by as many `x`, so that lengths and offsets stay. */
export function hideSecrets(body: Buffer, secrets: readonly (string | null)[]): Buffer {
  let text: string | null = null;
  for (const secret of secrets) {
    if (!secret) continue;
    if (body.indexOf(secret) < 0) continue;
    text ??= body.toString('latin1');
    text = text.split(secret).join('x'.repeat(Buffer.byteLength(secret)));
  }
  return text === null ? body : Buffer.from(text, 'latin1');
}
