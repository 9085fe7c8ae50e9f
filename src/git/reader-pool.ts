// The object readers of every repository, as the platform's Gitaly keeps its cat-file cache: one
// long-lived `git cat-file --batch-command` per repository in use, so that a read costs a pipe
// round trip instead of a process start (15–33 ms here, blocking the event loop). The pool is
// bounded: at most maxProcesses reader processes alive, the least recently used idle one giving
// way to a new repository (callers wait for one to become idle when none is), and a reader idle
// for idleMs ends.
// A reader that dies or hangs fails what it owed, and each of those requests is tried once more on
// a fresh reader. A repository replaced at its path is noticed by the directory's identity
// (device and inode, read when the caller's operation starts): its old reader is ended.
import fs from 'node:fs';
import { CatFileProcess, type ObjectData, type ObjectInfo, ReaderGone, isSafeName } from './cat-file.ts';
import { gitObserver } from './observer.ts';
import { DEFAULT_TIMEOUT_MS, GitError } from './run.ts';

export interface PoolOptions {
  /** Readers alive at once, over all repositories. */
  maxProcesses?: number;
  /** A reader left idle this long ends. */
  idleMs?: number;
  /** The time limit of each request (the process runner's, unless a test says otherwise). */
  timeoutMs?: number;
}

interface Slot {
  gitDir: string;
  identity: string;
  reader: CatFileProcess;
  /** Requests between acquiring the reader and their answer: a reader in use is never evicted. */
  users: number;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * A repository as it is when an operation starts: its directory and that directory's identity
 * (device and inode), so that one replaced, or removed and made again, at the same path is
 * another repository, with other readers and other cache keys.
 */
export interface Repository {
  dir: string;
  identity: string;
}

/** The repository at gitDir now; a GitError when there is none. */
export function openRepository(gitDir: string): Repository {
  const stat = fs.statSync(gitDir, { throwIfNoEntry: false });
  if (stat === undefined) throw new GitError('failed', `no repository at ${gitDir}`);
  return { dir: gitDir, identity: `${stat.dev}:${stat.ino}` };
}

export class ReaderPool {
  private readonly maxProcesses: number;
  private readonly idleMs: number;
  private readonly timeoutMs: number;
  /** By repository directory, least recently used first. */
  private readonly slots = new Map<string, Slot>();
  private readonly waiting: Array<() => void> = [];
  /** Readers started and not yet ended (an ended one may take a moment more to exit). */
  private readonly all = new Set<CatFileProcess>();

  constructor(options: PoolOptions = {}) {
    this.maxProcesses = Math.max(1, options.maxProcesses ?? 16);
    this.idleMs = options.idleMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The processes of this pool that have not exited yet. */
  get processes(): readonly CatFileProcess[] {
    return [...this.all];
  }

  /** The id, type and size of what `name` (an object id, `<revision>^{commit}`, …) names; null when nothing. */
  info(repo: Repository, name: string): Promise<ObjectInfo | null> {
    return this.request(repo, name, (reader) => reader.info(name));
  }

  /** The object `name` names, with its content; null when nothing. */
  contents(repo: Repository, name: string): Promise<ObjectData | null> {
    return this.request(repo, name, (reader) => reader.contents(name));
  }

  /** Ends every reader once it has answered what it was asked; for server shutdown. */
  async close(): Promise<void> {
    for (const slot of this.slots.values()) this.retire(slot, false);
    await Promise.all([...this.all].map((reader) => reader.exited));
  }

  private async request<T>(repo: Repository, name: string, ask: (reader: CatFileProcess) => Promise<T>): Promise<T> {
    if (!isSafeName(name)) throw new GitError('invalid', `invalid object name: ${JSON.stringify(name)}`);
    for (let attempt = 1; ; attempt++) {
      // A retry looks at the directory again: a reader may have died because the repository went.
      const slot = await this.acquire(attempt === 1 ? repo : openRepository(repo.dir));
      try {
        return await ask(slot.reader);
      } catch (error) {
        if (!(error instanceof ReaderGone)) throw error;
        // Once on a fresh reader; a second loss is the repository's (or the machine's) problem.
        if (attempt === 2) throw new GitError(error.timedOut ? 'timeout' : 'failed', error.message);
        gitObserver()?.readerRestarted(error.timedOut ? 'timeout' : 'exited');
      } finally {
        this.release(slot);
      }
    }
  }

  /** The live reader of the repository, started when there is none (waiting for room if need be), taken for one request. */
  private async acquire(repo: Repository): Promise<Slot> {
    const gitDir = repo.dir;
    for (;;) {
      const slot = this.slots.get(gitDir);
      // Two identities: the directory itself says which repository is there now.
      const identity = slot === undefined || slot.identity === repo.identity ? repo.identity : this.identityNow(slot);
      if (slot !== undefined && slot.identity === identity && slot.reader.alive) {
        this.slots.delete(gitDir);
        this.slots.set(gitDir, slot);
        return this.take(slot);
      }
      if (slot !== undefined) this.retire(slot, true);
      // Counted until they have exited, so that the bound holds for processes, not just slots.
      if (this.all.size < this.maxProcesses) return this.take(this.start(gitDir, identity));
      // Room comes when an idle reader (this one ended, or the next to become idle) has exited.
      this.evictIdle();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** The identity of the slot's repository directory now; the slot's reader is ended when there is none. */
  private identityNow(slot: Slot): string {
    try {
      return openRepository(slot.gitDir).identity;
    } catch (error) {
      this.retire(slot, true);
      throw error;
    }
  }

  private start(gitDir: string, identity: string): Slot {
    const slot: Slot = { gitDir, identity, reader: new CatFileProcess(gitDir, { timeoutMs: this.timeoutMs }), users: 0, idleTimer: null };
    this.slots.set(gitDir, slot);
    this.all.add(slot.reader);
    void slot.reader.exited.then(() => {
      this.all.delete(slot.reader);
      if (this.slots.get(gitDir) === slot) this.slots.delete(gitDir);
      this.wake();
    });
    return slot;
  }

  /** Ends the least recently used reader nobody is using, if any. */
  private evictIdle(): void {
    for (const slot of this.slots.values()) {
      if (slot.users === 0) return this.retire(slot, true);
    }
  }

  /** Takes the reader out of the pool: gracefully (it answers what it owes, then exits) or at once (what it owes is retried). */
  private retire(slot: Slot, now: boolean): void {
    if (this.slots.get(slot.gitDir) === slot) this.slots.delete(slot.gitDir);
    if (slot.idleTimer !== null) clearTimeout(slot.idleTimer);
    if (now) slot.reader.kill('ended by the pool');
    else slot.reader.close();
    this.wake();
  }

  private take(slot: Slot): Slot {
    slot.users += 1;
    if (slot.idleTimer !== null) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    return slot;
  }

  private release(slot: Slot): void {
    slot.users -= 1;
    if (slot.users > 0 || this.slots.get(slot.gitDir) !== slot) return;
    slot.idleTimer = setTimeout(() => this.retire(slot, false), this.idleMs);
    slot.idleTimer.unref();
    // Someone waiting for room may end it.
    this.wake();
  }

  /** Whoever waits for room looks again (all of them: one event may be the last for a while). */
  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** The server's readers. */
export const readers = new ReaderPool();

/** Ends the server's readers (at shutdown). */
export function closeReaders(): Promise<void> {
  return readers.close();
}
