// ActiveSupport's Hash#deep_merge, which includes and extends are defined by: mappings merge key by
// key (recursively), anything else (arrays, scalars) is replaced by the right-hand side.
import { isHash, setOwn } from './yaml-loader.ts';

export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(over)) {
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    setOwn(out, key, isHash(current) && isHash(value) ? deepMerge(current, value) : value);
  }
  return out;
}
