// Results that cannot change, kept in memory within a byte budget: whatever is keyed by object
// ids (an object, a tree listing, the last commit that touched a path as of a commit, a page of a
// commit's history) is the same forever, so it is never invalidated, only evicted, least recently
// used first. Keys always include the repository, so that one repository's objects are never
// served to another that lacks them. Nothing keyed by a ref name belongs here.

/** Rough memory of an entry beyond its payload: the key, the map's slot, the object headers. */
const ENTRY_OVERHEAD = 200;

export class ByteCache {
  readonly maxBytes: number;
  private bytes = 0;
  private readonly entries = new Map<string, { value: unknown; size: number }>();
  /** Computations in flight, so that concurrent misses of one key compute it once. */
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get size(): number {
    return this.bytes;
  }

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as T;
  }

  /** Keeps the value unless it alone would take more than an eighth of the budget. */
  set(key: string, value: unknown, payloadBytes: number): void {
    const size = payloadBytes + key.length + ENTRY_OVERHEAD;
    if (size > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, size });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.size;
    }
  }

  /**
   * The value kept under key, or computed once (concurrent callers share the computation) and kept
   * when `sizeOf` gives its size; a failure is not kept. Values are shared: callers must not change them.
   */
  async remember<T>(key: string, compute: () => Promise<T>, sizeOf: (value: T) => number | null): Promise<T> {
    const hit = this.get<T>(key);
    if (hit !== undefined) return hit;
    const running = this.inflight.get(key) as Promise<T> | undefined;
    if (running !== undefined) return running;
    const promise = compute();
    this.inflight.set(key, promise);
    try {
      const value = await promise;
      const size = sizeOf(value);
      if (size !== null) this.set(key, value, size);
      return value;
    } finally {
      this.inflight.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** The server's cache of what object ids determine. */
export const objectCache = new ByteCache(64 * 1024 * 1024);
