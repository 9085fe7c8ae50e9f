// The headers of artifact downloads: a whole file as Rails' present_disk_file! sends it, one entry
// of an archive as the platform's Workhorse sends it (type by extension, Go's built-in table).
import path from 'node:path';
import { headerText } from '../../core/header-text.ts';

const percentEscape = (text: string, keep: RegExp) =>
  [...Buffer.from(text, 'utf8').toString('latin1')].map((c) => (keep.test(c) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** Rails' ContentDisposition.format for an attachment: an ASCII fallback name and the exact UTF-8 one. */
function attachment(name: string): string {
  const ascii = percentEscape(name.replace(/[^\x20-\x7e]/g, '?'), /[ A-Za-z0-9!#$+.^_`|~-]/);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${percentEscape(name, /[A-Za-z0-9!#$&+.^_`|~-]/)}`;
}

export function fileDownloadHeaders(filename: string, size: number): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'content-disposition': attachment(filename),
    'content-transfer-encoding': 'binary',
    'content-length': String(size),
  };
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
};

export function entryDownloadHeaders(entryName: string, size: number): Record<string, string> {
  const base = path.posix.basename(entryName);
  return {
    'content-length': String(size),
    'content-type': TYPES_BY_EXTENSION[path.posix.extname(entryName).toLowerCase()] ?? 'application/octet-stream',
    'content-disposition': `attachment; filename="${headerText(base).replace(/"/g, '\\"')}"`,
  };
}
