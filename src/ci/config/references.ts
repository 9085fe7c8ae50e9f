// Resolves `!reference [key, subkey, …]` against the whole configuration (after includes and
// extends), as the platform's Yaml::Tags::Resolver: a reference's target is itself resolved, a
// missing or falsy target is an error, and so are cycles and chains deeper than the limit.
import { configError } from './errors.ts';
import { ReferenceTag, rubyInspect } from './reference-tag.ts';
import { isHash, setOwn } from './yaml-loader.ts';

export function resolveReferences(config: Record<string, unknown>, maxDepth: number): Record<string, unknown> {
  const inProgress = new Set<string>();
  // Each path is resolved once and shared, as the platform resolves each tag once.
  const resolved = new Map<string, unknown>();

  const resolveTag = (tag: ReferenceTag, depth: number): unknown => {
    const described = `!reference ${rubyInspect(tag.seq ?? tag.other)}`;
    if (!tag.isValid()) configError(`${described} is not valid`);
    const key = JSON.stringify(tag.seq);
    if (resolved.has(key)) return resolved.get(key);
    if (inProgress.has(key)) configError(`${described} is part of a circular chain`);
    if (depth > maxDepth) configError(`${described} is nested too deeply (maximum ${maxDepth} levels)`);
    let target: unknown = config;
    for (const step of tag.seq) {
      if (!isHash(target) || !Object.hasOwn(target, step)) {
        target = undefined;
        break;
      }
      target = target[step];
    }
    inProgress.add(key);
    const value = walk(target, depth + 1);
    inProgress.delete(key);
    if (value === undefined || value === null || value === false) configError(`${described} could not be found`);
    resolved.set(key, value);
    return value;
  };

  const walk = (value: unknown, depth: number): unknown => {
    if (value instanceof ReferenceTag) return resolveTag(value, depth);
    if (Array.isArray(value)) return value.map((item) => walk(item, depth));
    if (isHash(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) setOwn(out, k, walk(v, depth));
      return out;
    }
    return value;
  };

  return walk(config, 0) as Record<string, unknown>;
}

/**
 * Counts the nodes of a value whose parts may be shared (references resolve to one object used in
 * many places); more than `maxNodes` is the platform's "too big" error, found without walking it all.
 */
export function assertBoundedSize(value: unknown, maxNodes: number): void {
  let left = maxNodes;
  const visit = (node: unknown): void => {
    if (--left < 0) configError('The parsed YAML is too big');
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (isHash(node)) for (const item of Object.values(node)) visit(item);
  };
  visit(value);
}
