// A fixed-window request counter per client. It lives in each node's memory: a node enforces the
// limit for the traffic it sees, which is what a per-node throttle in front of an app does too.

export interface Verdict {
  allowed: boolean;
  observed: number;
  /** The quota expressed per 60 s window, rounded up, as RateLimit-Limit reports it. */
  limitPerMinute: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  retryAfter: number;
}

export interface RateLimiter {
  hit(key: string): Verdict;
}

export function createRateLimiter(limit: number, periodSeconds: number, now: () => Date): RateLimiter | null {
  if (limit <= 0) return null;
  const periodMs = periodSeconds * 1000;
  let windowStart = 0;
  let counts = new Map<string, number>();
  return {
    hit(key) {
      const t = now().getTime();
      const start = t - (t % periodMs);
      if (start !== windowStart) {
        windowStart = start;
        counts = new Map();
      }
      const observed = (counts.get(key) ?? 0) + 1;
      counts.set(key, observed);
      const resetAt = Math.ceil((start + periodMs) / 1000);
      return {
        allowed: observed <= limit,
        observed,
        limitPerMinute: Math.ceil((limit * 60) / periodSeconds),
        resetAt,
        retryAfter: Math.max(1, resetAt - Math.floor(t / 1000)),
      };
    },
  };
}
