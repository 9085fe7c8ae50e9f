// Turns one file's text into plain data the way the platform's loader does (Psych safe_load with
// aliases, YAML 1.1 scalars, `<<` merge keys, the !reference tag), within bounds: text size, alias
// expansion, nesting depth and the parsed size, so that no file can hang or exhaust the server.
import { parseDocument, type ScalarTag, type CollectionTag, type Tags, YAMLSeq, YAMLMap } from 'yaml';
import { ReferenceTag } from './reference-tag.ts';
import type { ConfigLimits } from './types.ts';

export class YamlLoadError extends Error {}

export type YamlLimits = Pick<ConfigLimits, 'maxYamlSizeBytes' | 'maxYamlDepth' | 'maxAliasCount'>;

const TOO_BIG = 'The parsed YAML is too big';

// Psych reads yes/no/on/off as booleans but, unlike the yaml package's 1.1 schema, not y/n.
const psychTrue: ScalarTag = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  identify: (value) => value === true,
  test: /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  resolve: () => true,
};
const psychFalse: ScalarTag = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  identify: (value) => value === false,
  test: /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  resolve: () => false,
};

const referenceSeq: CollectionTag = {
  tag: '!reference',
  collection: 'seq',
  nodeClass: YAMLSeq,
  resolve: (seq) => new ReferenceTag((seq as YAMLSeq).toJSON() as unknown[]) as never,
};
const referenceMap: CollectionTag = {
  tag: '!reference',
  collection: 'map',
  nodeClass: YAMLMap,
  resolve: (map) => new ReferenceTag(null, (map as YAMLMap).toJSON()) as never,
};
const referenceScalar: ScalarTag = {
  tag: '!reference',
  resolve: (text) => new ReferenceTag(null, text),
};

function customTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => !(typeof tag === 'object' && tag.tag === 'tag:yaml.org,2002:bool'));
  return [psychTrue, psychFalse, ...kept, referenceSeq, referenceMap, referenceScalar];
}

/**
 * Parses `text` into a plain value. Throws YamlLoadError with the message the platform gives for
 * the main file (syntax errors in Psych's "(<unknown>): …" form, "The parsed YAML is too big").
 */
export function loadYaml(text: string, limits: YamlLimits): unknown {
  if (Buffer.byteLength(text, 'utf8') > limits.maxYamlSizeBytes) throw new YamlLoadError(TOO_BIG);
  let raw: unknown;
  try {
    const doc = parseDocument(text, {
      version: '1.1',
      merge: true,
      uniqueKeys: false,
      customTags,
      prettyErrors: false,
    });
    if (doc.errors.length > 0) throw doc.errors[0];
    raw = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    if (error instanceof YamlLoadError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/resource exhaustion|call stack/i.test(message) || error instanceof RangeError) throw new YamlLoadError(TOO_BIG);
    throw new YamlLoadError(`(<unknown>): ${message.split('\n')[0]}`);
  }
  return toPlain(raw, limits);
}

/**
 * Copies the parsed value into fresh plain objects, measuring as it goes: depth beyond the limit,
 * or a size estimate beyond the byte limit (shared alias targets are counted at every use, as the
 * platform's deep size does), ends the walk at once.
 */
function toPlain(root: unknown, limits: YamlLimits): unknown {
  let budget = limits.maxYamlSizeBytes;
  const spend = (bytes: number) => {
    budget -= bytes;
    if (budget < 0) throw new YamlLoadError(TOO_BIG);
  };
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > limits.maxYamlDepth) throw new YamlLoadError(TOO_BIG);
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') {
      spend(40 + (value.length > 23 ? value.length : 0));
      return value;
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      spend(8);
      return value;
    }
    if (typeof value === 'bigint') return Number(value);
    // Psych's safe_load refuses timestamps (Date is not a permitted class).
    if (value instanceof Date) throw new YamlLoadError('Tried to load unspecified class: Date');
    if (value instanceof ReferenceTag) {
      spend(40);
      return new ReferenceTag(
        value.seq ? (walk(value.seq, depth + 1) as unknown[]) : null,
        value.other === null ? null : walk(value.other, depth + 1),
      );
    }
    if (Array.isArray(value)) {
      spend(40 + 8 * value.length);
      return value.map((item) => walk(item, depth + 1));
    }
    if (value instanceof Map || value instanceof Set) {
      throw new YamlLoadError('(<unknown>): unsupported YAML type');
    }
    if (typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>);
      spend(40 + 32 * entries.length);
      const out: Record<string, unknown> = {};
      for (const [key, item] of entries) setOwn(out, key, walk(item, depth + 1));
      return out;
    }
    return String(value);
  };
  return walk(root, 1);
}

/** Assigns without letting a `__proto__` key change the object's prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function isHash(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ReferenceTag);
}
