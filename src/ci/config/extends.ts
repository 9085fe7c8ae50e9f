// `extends:` as the platform's Extendable: every top-level mapping with `extends` becomes the deep
// merge of its bases (in order, each extended first) under itself. Unknown or non-mapping bases,
// chains deeper than the limit and cycles are configuration errors with the platform's messages.
import { configError } from './errors.ts';
import { deepMerge } from './deep-merge.ts';
import { isHash, setOwn } from './yaml-loader.ts';

export function applyExtends(config: Record<string, unknown>, maxDepth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) setOwn(out, key, value);
  const done = new Set<string>();

  const extend = (key: string, path: string[]): unknown => {
    const value = out[key];
    if (!isHash(value) || !Object.hasOwn(value, 'extends') || done.has(key)) return value;
    const bases = (Array.isArray(value.extends) ? value.extends : [value.extends]).map((base) => String(base));
    const unknown = bases.filter((base) => !Object.hasOwn(out, base));
    if (unknown.length > 0) configError(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`);
    const invalid = bases.filter((base) => !isHash(out[base]));
    if (invalid.length > 0) configError(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`);
    if (path.length > maxDepth) configError(`${key}: nesting too deep in \`extends\``);
    if (path.slice(0, -1).includes(key)) configError(`${key}: circular dependency detected in \`extends\``);
    let merged: Record<string, unknown> = {};
    for (const base of bases) merged = deepMerge(merged, extend(base, [...path, base]) as Record<string, unknown>);
    const result = deepMerge(merged, value);
    setOwn(out, key, result);
    done.add(key);
    return result;
  };

  for (const key of Object.keys(out)) extend(key, [key]);
  return out;
}
