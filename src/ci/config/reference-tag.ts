// The `!reference [job, key, …]` YAML tag: parsed into a marker that references.ts later replaces
// with the configuration found at that path.

export class ReferenceTag {
  /** The sequence's items when written as a sequence. */
  readonly seq: unknown[] | null;
  /** What was written instead (a scalar or a mapping): always invalid, kept for the message. */
  readonly other: unknown;

  constructor(seq: unknown[] | null, other: unknown = null) {
    this.seq = seq;
    this.other = other;
  }

  isValid(): this is { seq: string[] } {
    return Array.isArray(this.seq) && this.seq.length > 0 && this.seq.every((item) => typeof item === 'string');
  }
}

/** Ruby's `inspect` of parsed YAML values, which the platform's messages quote. */
export function rubyInspect(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(', ')}]`;
  if (value instanceof ReferenceTag) return `!reference ${rubyInspect(value.seq ?? value.other)}`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}=>${rubyInspect(v)}`).join(', ')}}`;
  }
  return String(value);
}
