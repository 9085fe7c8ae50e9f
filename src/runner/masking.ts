// Masking of a job's log as the real runner does it: the values of masked variables and the job
// token, and the values of token-bearing URL parameters, become `[MASKED]`. The log arrives in
// pieces, so a piece's end that could be the start of a secret is held back until the next one.

export const MASK = '[MASKED]';

/** URL parameters whose values are credentials (the real runner masks the same ones). */
const URL_PARAMS = ['private_token', 'authenticity_token', 'rss_token', 'x-amz-signature', 'x-amz-credential', 'x-goog-signature', 'x-goog-credential'];
const PARAM_PATTERN = new RegExp(`([?&](?:${URL_PARAMS.join('|')})=)[^&\\s"'#]*`, 'gi');
const PARAM_MARKERS = URL_PARAMS.flatMap((p) => [`?${p}=`, `&${p}=`]);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class LogMasker {
  private readonly secrets: string[];
  private readonly secretPattern: RegExp | null;
  private pending = '';

  constructor(secrets: readonly string[]) {
    // Longest first, so that a secret containing another is masked whole.
    this.secrets = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
    this.secretPattern = this.secrets.length ? new RegExp(this.secrets.map(escapeRegExp).join('|'), 'g') : null;
  }

  /** Takes more of the log; returns what can be written now, masked. */
  push(text: string): string {
    this.pending += text;
    return this.take(false);
  }

  /** Everything still held, masked: the log has ended. */
  end(): string {
    return this.take(true);
  }

  private take(final: boolean): string {
    if (final) {
      const out = this.mask(this.pending);
      this.pending = '';
      return out;
    }
    const hold = this.heldFrom(this.pending);
    const out = this.mask(this.pending.slice(0, hold));
    this.pending = this.pending.slice(hold);
    return out;
  }

  private mask(text: string): string {
    const out = this.secretPattern ? text.replace(this.secretPattern, MASK) : text;
    return out.replace(PARAM_PATTERN, `$1${MASK}`);
  }

  /**
   * Where to cut: before a tail that may still grow into a secret (a longer one included) or a
   * credential parameter, never inside a secret or a parameter.
   */
  private heldFrom(text: string): number {
    let hold = text.length;
    const lower = text.toLowerCase();
    const longest = Math.max(0, ...this.secrets.map((s) => s.length), ...PARAM_MARKERS.map((p) => p.length));
    for (let start = Math.max(0, text.length - longest + 1); start < text.length; start++) {
      const tail = text.slice(start);
      const lowerTail = lower.slice(start);
      if (this.secrets.some((s) => s.length > tail.length && s.startsWith(tail)) || PARAM_MARKERS.some((p) => p.length > lowerTail.length && p.startsWith(lowerTail))) {
        hold = start;
        break;
      }
    }
    // A parameter's value running to the end may go on.
    for (const m of text.matchAll(PARAM_PATTERN)) if (m.index + m[0].length === text.length) hold = Math.min(hold, m.index);
    // Never cut a secret in two: its start and end go out together.
    if (this.secretPattern) for (const m of text.matchAll(this.secretPattern)) if (m.index < hold && hold < m.index + m[0].length) hold = m.index;
    return hold;
  }
}
