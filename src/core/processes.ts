// Which process owns a piece of scratch work or a claim: `<host>.<pid>`, so that a restart can
// tell its own dead predecessors' leftovers from the live work of other processes and nodes.
import fs from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

export const thisHost = (): string => hostname();

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A name prefix naming this process. Host names have no '~'. */
export const ownerTag = (): string => `${thisHost()}~${process.pid}`;

/**
 * Whether an entry named with ownerTag() (or not) is left over: for an owner on this host, when
 * that process no longer runs (a live one is still at work, however long it takes: an export of a
 * large project); otherwise when it is older than maxAgeMs.
 */
export function isLeftover(name: string, modifiedMs: number, nowMs: number, maxAgeMs: number): boolean {
  const match = /^(.+)~(\d+)[.~-]/.exec(name);
  if (match && match[1] === thisHost()) return !processAlive(Number(match[2]));
  return nowMs - modifiedMs > maxAgeMs;
}

/**
 * Removes the entries of dir that are left over (see isLeftover), except those named in keep;
 * returns how many went. `salvage` sees each first; an entry it fails on stays for the next sweep,
 * and its failures are thrown together once the others are gone.
 */
export async function removeLeftoverEntries(dir: string, maxAgeMs: number, keep: readonly string[] = [], salvage?: (entry: string) => Promise<void>): Promise<number> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  let removed = 0;
  const failures: unknown[] = [];
  for (const name of names) {
    if (keep.includes(name)) continue;
    const entry = path.join(dir, name);
    const stat = await fs.lstat(entry).catch(() => null);
    if (stat === null || !isLeftover(name, stat.mtimeMs, now, maxAgeMs)) continue;
    try {
      await salvage?.(entry);
    } catch (error) {
      failures.push(error);
      continue;
    }
    await fs.rm(entry, { recursive: true, force: true });
    removed += 1;
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} leftover(s) in ${dir} could not be salvaged; kept for the next sweep`);
  return removed;
}
