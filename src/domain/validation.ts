// Model validation in the platform's words (Rails' ActiveModel messages, English locale), written
// once: modules collect messages per field (FieldErrors), which the error handler writes as
// {"message": {"field": [...]}}, or join them as full messages ("Name can't be blank").
import type { FieldErrors } from '../core/errors.ts';

export const BLANK = "can't be blank";
export const TAKEN = 'has already been taken';
export const INVALID = 'is invalid';
export const NOT_INCLUDED = 'is not included in the list';
/** ColorValidator's message, and what it accepts: `#` and three or six hex digits. */
export const INVALID_COLOR = 'must be a valid color code';
export const isColorCode = (value: string) => /^#(?:[0-9A-Fa-f]{3}){1,2}$/.test(value);

export const tooLong = (maximum: number) => `is too long (maximum is ${maximum} characters)`;
/** ActiveSupport's number_to_human_size: 1024-based, `precision` (3) significant digits, trailing zeros dropped. */
export function humanSize(bytes: number, precision = 3): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${String(Number(value.toPrecision(precision)))} ${units[unit]}`;
}

/** A text over a size limit in bytes (wiki page content, snippet content). */
export const tooLarge = (size: number, maximum: number) => `is too long (${humanSize(size)}). The maximum size is ${humanSize(maximum)}.`;
export const tooShort = (minimum: number) => `is too short (minimum is ${minimum} characters)`;
export const atLeast = (minimum: number) => `must be greater than or equal to ${minimum}`;
export const atMost = (maximum: number) => `must be less than or equal to ${maximum}`;

/** errors.add: one more message for a field, after those it has. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Rails' humanized attribute name: "expires_at" → "Expires at", "user_id" → "User". */
export function humanAttribute(field: string): string {
  const words = field.replace(/_id$/, '').replace(/_/g, ' ');
  return `${words[0].toUpperCase()}${words.slice(1)}`;
}

/** A full message: the attribute's human name, then the message ("Name can't be blank"). */
export function fullMessage(field: string, message: string): string {
  return `${humanAttribute(field)} ${message}`;
}

/** Rails' Array#to_sentence: "a", "a and b", "a, b, and c" (or "a, b, or c"). */
export function toSentence(parts: readonly string[], connector: 'and' | 'or' = 'and'): string {
  if (parts.length < 3) return parts.join(` ${connector} `);
  return `${parts.slice(0, -1).join(', ')}, ${connector} ${parts.at(-1)}`;
}

/** Every full message, in one sentence: "Name can't be blank and Scopes can't be blank". */
export function fullMessagesSentence(errors: FieldErrors): string {
  return toSentence(Object.entries(errors).flatMap(([field, list]) => list.map((message) => fullMessage(field, message))));
}

/** Ruby's String#inspect, which failure messages that embed the model's errors show. */
function rubyString(s: string): string {
  const escaped = s.replace(/[\\"\n\t\r\u001b]|#(?=[{$@])|[\u0000-\u001f\u007f]/g, (c) => {
    switch (c) {
      case '\\':
        return '\\\\';
      case '"':
        return '\\"';
      case '\n':
        return '\\n';
      case '\t':
        return '\\t';
      case '\r':
        return '\\r';
      case '\u001b':
        return '\\e';
      case '#':
        return '\\#';
      default:
        return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  });
  return `"${escaped}"`;
}

/** The errors as Ruby prints a hash of symbols to arrays (`errors.messages`): {:path=>["has already been taken"]}. */
export function rubyInspect(errors: FieldErrors): string {
  const entries = Object.entries(errors).map(([field, messages]) => `:${field}=>[${messages.map(rubyString).join(', ')}]`);
  return `{${entries.join(', ')}}`;
}
