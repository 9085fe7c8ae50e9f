// Query strings in both directions: qs-style parsing (a[]=, a[b]=) and the platform's
// serialisation for Link headers (keys sorted, arrays as k[]=v, CGI escaping).
import qs from 'qs';

/**
 * `a=1&a=2` keeps the last value, as Rack does; only `a[]=` builds arrays. An array of hashes,
 * `a[][k]=1&a[][j]=2&a[][k]=3`, is read as Rack's normalize_params reads it: a pair adds its key to
 * the array's last hash unless that hash has the key already, in which case it starts a new hash
 * (two hashes here: {k: 1, j: 2} and {k: 3}).
 */
export function parseQueryString(input: string): Record<string, unknown> {
  return qs.parse(indexArraysOfHashes(input), { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowPrototypes: false, duplicates: 'last' }) as Record<string, unknown>;
}

/** The keys a hash of an array of hashes has so far, nested as `k[x][y]` nests them. */
type KeyTree = Map<string, KeyTree>;

/** The hashes of one `name[]` array so far: the index of the last one and its keys. */
interface ArrayOfHashes {
  index: number;
  keys: KeyTree;
}

function hasKeys(tree: KeyTree, path: readonly string[]): boolean {
  let node: KeyTree | undefined = tree;
  for (const name of path) {
    node = node.get(name);
    if (!node) return false;
  }
  return true;
}

function addKeys(tree: KeyTree, path: readonly string[]): void {
  let node = tree;
  for (const name of path) {
    let next = node.get(name);
    if (!next) node.set(name, (next = new Map()));
    node = next;
  }
}

/**
 * Gives every `[]` that is followed by a key (`a[][k]`) the index of the hash Rack would put the
 * pair in (`a[0][k]`), so that qs builds the same hashes: qs alone merges every `a[][k]` into one
 * hash, where the last value of a repeated key wins.
 */
function indexArraysOfHashes(input: string): string {
  if (!/(\[|%5B)(\]|%5D)(\[|%5B)/i.test(input)) return input;
  const arrays = new Map<string, ArrayOfHashes>();
  return input
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      let key: string;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {
        return pair; // qs keeps an undecodable key as it is
      }
      if (!key.includes('[][')) return pair;
      const indexed = indexKey(key, arrays);
      return indexed === key ? pair : encodeURIComponent(indexed) + (eq === -1 ? '' : pair.slice(eq));
    })
    .join('&');
}

function indexKey(key: string, arrays: Map<string, ArrayOfHashes>): string {
  const match = /^([^[]+)((?:\[[^[\]]*\])*)([^]*)$/.exec(key);
  if (!match) return key;
  const [, root, brackets, rest] = match;
  const segments: string[] = brackets.match(/\[[^[\]]*\]/g) ?? [];
  let prefix = root;
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] !== '[]' || i + 1 >= segments.length || segments[i + 1] === '[]') {
      prefix += segments[i];
      continue;
    }
    // The keys of the pair inside the hash, up to a nested array (which never counts as had).
    const end = segments.indexOf('[]', i + 1);
    const path = segments.slice(i + 1, end === -1 ? undefined : end).map((s) => s.slice(1, -1));
    let array = arrays.get(prefix);
    if (!array) arrays.set(prefix, (array = { index: -1, keys: new Map() }));
    if (array.index === -1 || (end === -1 && hasKeys(array.keys, path))) {
      array.index += 1;
      array.keys = new Map();
    }
    addKeys(array.keys, path);
    prefix += `[${array.index}]`;
  }
  return prefix + rest;
}

/** CGI.escape: everything but letters, digits and _.-~ is escaped, and space becomes '+'. */
function escape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

const isHash = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmptyCollection = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isHash(v) && Object.keys(v).length === 0);

/** Object#to_query and Array#to_query: an array keeps its order, `k[]=a&k[]=b`. */
function valueToQuery(value: unknown, key: string): string {
  if (Array.isArray(value)) {
    const prefix = `${key}[]`;
    return value.length === 0 ? `${escape(prefix)}=` : value.map((v) => valueToQuery(v, prefix)).join('&');
  }
  if (isHash(value)) return hashToQuery(value, key);
  return `${escape(key)}=${escape(value === null || value === undefined ? '' : String(value))}`;
}

/** Hash#to_query: empty arrays and hashes are left out; pairs are sorted except inside arrays. */
function hashToQuery(hash: Record<string, unknown>, namespace?: string): string {
  return hashParts(hash, namespace).join('&');
}

/** hashToQuery's parts, one per key (an array's or a hash's pairs make one part). */
function hashParts(hash: Record<string, unknown>, namespace?: string): string[] {
  const parts = Object.entries(hash)
    .filter(([, v]) => v !== undefined && !isEmptyCollection(v))
    .map(([k, v]) => valueToQuery(v, namespace === undefined ? k : `${namespace}[${k}]`));
  if (!namespace?.includes('[]')) parts.sort();
  return parts;
}

/** Rails' Hash#to_query, as the platform writes the query of Link URLs. */
export function toQuery(params: Record<string, unknown>): string {
  return hashToQuery(params);
}

/**
 * toQuery's sorted parts, one per parameter, for callers that add scalar `key=value` parts of
 * their own: sorting the parts again with them gives what toQuery gives for all the parameters.
 */
export function toQueryParts(params: Record<string, unknown>): string[] {
  return hashParts(params);
}
