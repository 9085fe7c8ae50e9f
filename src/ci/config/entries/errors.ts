// How the platform words entry validation errors: "<location> <message>", all lower-case
// (Gitlab::Config::Entry::Validator#messages), attributes humanized ("allow_failure" → "allow failure").
import { configError } from '../errors.ts';

export function entryFail(location: string, message: string): never {
  configError(`${location} ${message}`.toLowerCase());
}

/** An error on one attribute of the entry at `location`. */
export function attributeFail(location: string, attribute: string, message: string): never {
  entryFail(location, `${humanize(attribute)} ${message}`);
}

/** ActiveSupport's String#humanize, lower-cased. */
export function humanize(name: string): string {
  return name.replace(/_id$/, '').replace(/_/g, ' ').trim();
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

export function isArrayOfStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}

export function checkKeys(location: string, config: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(config).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) entryFail(location, `config contains unknown keys: ${unknown.join(', ')}`);
}

/** Psych gives integers for `5` and the platform accepts them where it accepts strings. */
export function isAlphanumeric(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** `[a, [b, [c]]]` → `[a, b, c]`, at most `maxLevel` levels deep; null when something is not a string. */
export function flattenStrings(value: unknown, maxLevel = 10): string[] | null {
  const out: string[] = [];
  const visit = (item: unknown, level: number): boolean => {
    if (typeof item === 'string') {
      out.push(item);
      return true;
    }
    if (Array.isArray(item) && level < maxLevel) return item.every((inner) => visit(inner, level + 1));
    return false;
  };
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return null;
  return value.every((item) => visit(item, 1)) ? out : null;
}
