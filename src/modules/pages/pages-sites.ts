// Serving published pages sites by the request's host, on the API's own HTTP server (and, when
// QUARRY_PAGES_HTTPS_PORT is set, on a TLS server of their own): `<namespace>.<pages domain>` and
// every verified custom domain. A URL path is decoded segment by segment and a segment that is
// empty, `.`, `..` or holds a separator or NUL is refused, so that no path leaves the site's
// directory (which holds no symbolic link: extraction writes none). A directory serves its
// index.html (a path to it without its final slash is redirected there first), a path without an
// extension may name an .html file, and what is missing gets the site's 404.html when it has one.
// Sites are public: the platform's access control for private projects' sites is not offered.
import fs from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import type { Deps } from '../../core/deps.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { type SiteMatch, customDomainSite, namespaceSite } from './pages-sites.finder.ts';

/** What a host is to Pages: a namespace's host under the pages domain, or possibly a custom domain. */
export type PagesHost = { namespace: string; host: string } | { custom: string };

/** The host's name, lower case, without its port; null when there is none. */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  const name = (bracketed ? bracketed[1] : header.replace(/:\d+$/, '')).toLowerCase().replace(/\.$/, '');
  return name === '' ? null : name;
}

/**
 * What tells, by its Host header, a request for Pages from one for the API: the pages domain's
 * names are namespaces' sites; the API's own name, addresses and localhost are the API's; any
 * other name may be a custom domain.
 */
export function pagesHostMatcher(config: Pick<Deps['config'], 'pagesDomain' | 'externalUrl'>): (header: string | undefined) => PagesHost | null {
  const { pagesDomain } = config;
  const apiHost = hostName(new URL(config.externalUrl).host);
  return (header) => {
    const host = hostName(header);
    if (host === null || host === apiHost || isIP(host) !== 0 || host === 'localhost' || host === pagesDomain) return null;
    if (host.endsWith(`.${pagesDomain}`)) return { namespace: host.slice(0, -pagesDomain.length - 1), host };
    return { custom: host };
  };
}

export interface SiteResponse {
  status: number;
  headers: Record<string, string>;
  /** A file to stream, or a text body. */
  file?: string;
  body?: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.pdf': 'application/pdf',
  '.wasm': 'application/wasm',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.zip': 'application/zip',
};

const contentType = (file: string) => TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';

const NOT_FOUND: SiteResponse = { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 Not Found' };

/** The URL's path as decoded segments, and whether it ends with a slash; null when a segment is refused. */
function pathSegments(url: string): { segments: string[]; pathname: string; query: string; trailingSlash: boolean } | null {
  const mark = url.indexOf('?');
  const pathname = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? '' : url.slice(mark);
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return { segments, pathname, query, trailingSlash: pathname.endsWith('/') };
}

async function fileAt(target: string): Promise<{ size: number; mtime: Date } | null> {
  try {
    const stat = await fs.lstat(target);
    return stat.isFile() ? stat : null;
  } catch {
    return null;
  }
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await fs.lstat(target)).isDirectory();
  } catch {
    return false;
  }
}

function fileResponse(status: number, file: string, stat: { size: number; mtime: Date }): SiteResponse {
  return { status, file, headers: { 'content-type': contentType(file), 'content-length': String(stat.size), 'last-modified': stat.mtime.toUTCString(), 'cache-control': 'max-age=600' } };
}

/** The answer of a site to a path inside it. */
async function fromSite(root: string, segments: string[], request: { pathname: string; query: string; trailingSlash: boolean }): Promise<SiteResponse> {
  const target = path.join(root, ...segments);
  // Decoded segments were checked one by one; this only guards against a mistake in that check.
  if (target !== root && !target.startsWith(root + path.sep)) return NOT_FOUND;
  if (await isDirectory(target)) {
    if (!request.trailingSlash) return { status: 302, headers: { location: `${request.pathname}/${request.query}`, 'content-type': 'text/plain; charset=utf-8' }, body: '' };
    const index = path.join(target, 'index.html');
    const stat = await fileAt(index);
    if (stat) return fileResponse(200, index, stat);
  } else {
    const stat = await fileAt(target);
    if (stat) return fileResponse(200, target, stat);
    if (segments.length > 0 && path.extname(target) === '') {
      const html = `${target}.html`;
      const htmlStat = await fileAt(html);
      if (htmlStat) return fileResponse(200, html, htmlStat);
    }
  }
  const page = path.join(root, '404.html');
  const pageStat = await fileAt(page);
  return pageStat ? fileResponse(404, page, pageStat) : NOT_FOUND;
}

/**
 * The answer to a request for a pages host; null when the host is no site's (an unknown custom
 * domain: the request goes on to the API).
 */
export async function siteResponse(deps: Deps, host: PagesHost, method: string, url: string): Promise<SiteResponse | null> {
  const request = pathSegments(url);
  let site: SiteMatch | null | undefined;
  if ('custom' in host) {
    site = await customDomainSite(deps.db, host.custom, deps.now(), deps.config.pagesDomainVerification);
    if (site === undefined) return null;
  } else {
    site = request ? await namespaceSite(deps.db, host.host, host.namespace, request.segments) : null;
  }
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, body: '405 Method Not Allowed' };
  if (!request || !site) return NOT_FOUND;
  const root = artifactsStorage(deps.config).localPath(site.directory);
  // The project's own path without its final slash is its site's root directory too.
  return fromSite(root, request.segments.slice(site.depth), request);
}
