// Query strings in both directions: qs-style parsing (a[]=, a[b]=) and the platform's
// serialisation for Link headers (keys sorted, arrays as k[]=v, CGI escaping).
import qs from 'qs';

/** `a=1&a=2` keeps the last value, as Rack does; only `a[]=` builds arrays. */
export function parseQueryString(input: string): Record<string, unknown> {
  return qs.parse(input, { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowPrototypes: false, duplicates: 'last' }) as Record<string, unknown>;
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
