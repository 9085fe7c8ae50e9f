// script / before_script / after_script: a string or a nested array of strings, flattened.
import { entryFail, flattenStrings } from './errors.ts';

export function commands(location: string, value: unknown): string[] {
  const flat = flattenStrings(value);
  if (flat === null) entryFail(location, 'config should be a string or a nested array of strings up to 10 levels deep');
  return flat;
}
