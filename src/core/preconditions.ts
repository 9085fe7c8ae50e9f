// The platform's destroy_conditionally!: a deletion sent with If-Unmodified-Since earlier than the
// resource's last change answers 412. HTTP dates carry whole seconds, so the change is compared
// to the second; a missing or unreadable header checks nothing.
import { apiError } from './errors.ts';

export function checkUnmodifiedSince(header: string | string[] | undefined, lastModifiedMs: number): void {
  const since = typeof header === 'string' ? Date.parse(header) : Number.NaN;
  if (Number.isNaN(since)) return;
  if (Math.floor(lastModifiedMs / 1000) * 1000 > since) throw apiError(412, '412 Precondition Failed');
}
