// Which process owns a piece of scratch work or a claim: `<host>.<pid>`, so that a restart can
// tell its own dead predecessors' leftovers from the live work of other processes and nodes.
import { hostname } from 'node:os';

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
 * Whether an entry named with ownerTag() (or not) is left over: its owner was a process of this
 * host that no longer runs, or it is older than maxAgeMs whoever made it.
 */
export function isLeftover(name: string, modifiedMs: number, nowMs: number, maxAgeMs: number): boolean {
  const match = /^(.+)~(\d+)[.~-]/.exec(name);
  if (match && match[1] === thisHost() && !processAlive(Number(match[2]))) return true;
  return nowMs - modifiedMs > maxAgeMs;
}
