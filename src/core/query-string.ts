// Query strings in both directions: qs-style parsing (a[]=, a[b]=) and the platform's
// serialisation for Link headers (keys sorted, arrays as k[]=v, CGI escaping).
import qs from 'qs';

export function parseQueryString(input: string): Record<string, unknown> {
  return qs.parse(input, { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowPrototypes: false }) as Record<string, unknown>;
}

/** CGI.escape: everything but letters, digits and _.-~ is escaped, and space becomes '+'. */
function escape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function pairs(value: unknown, prefix: string): string[] {
  if (Array.isArray(value)) {
    return value.length === 0 ? [`${escape(`${prefix}[]`)}=`] : value.flatMap((v) => pairs(v, `${prefix}[]`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .flatMap(([k, v]) => pairs(v, `${prefix}[${k}]`))
      .sort();
  }
  return [`${escape(prefix)}=${escape(value === null || value === undefined ? '' : String(value))}`];
}

/** Rails' Hash#to_query: each top-level pair serialised, then the pairs sorted. */
export function toQuery(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .flatMap(([k, v]) => pairs(v, k))
    .sort()
    .join('&');
}
