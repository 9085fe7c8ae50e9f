// A file's metadata (the platform's blob_data) as JSON and as X-Gitlab-* headers, and the headers
// of its raw content.
import { createHash } from 'node:crypto';
import { headerText } from '../../core/header-text.ts';
import type { FoundFile } from './repository-files.finder.ts';
import type { FileJson } from './repository-files.schemas.ts';

export type FileData = Omit<FileJson, 'content'>;

const EXECUTABLE_MODE = '100755';

/** `ref` as the caller named it (empty for a raw read of the default branch). */
export function presentFileData(file: FoundFile, ref: string): FileData {
  const { blob } = file;
  return {
    file_name: blob.path.slice(blob.path.lastIndexOf('/') + 1),
    file_path: blob.path,
    size: blob.size,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(blob.content).digest('hex'),
    ref,
    blob_id: blob.id,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
    execute_filemode: blob.mode === EXECUTABLE_MODE,
  };
}

/** X-Gitlab-File-Name … X-Gitlab-Execute-Filemode: every field of the data, as set_http_headers sends them. */
export function fileHeaders(data: FileData): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    const name = key
      .split('_')
      .map((word) => word[0].toUpperCase() + word.slice(1))
      .join('-');
    headers[`X-Gitlab-${name}`] = headerText(String(value));
  }
  return headers;
}

/** Git's test for binary content: a NUL byte in the first 8000 bytes. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

const percentEscape = (text: string, keep: RegExp) =>
  [...Buffer.from(text, 'utf8').toString('latin1')].map((c) => (keep.test(c) ? c : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** Rails' ContentDisposition.format: an ASCII fallback name and the exact UTF-8 one. */
export function contentDisposition(name: string): string {
  const ascii = percentEscape(name.replace(/[^\x20-\x7e]/g, '?'), /[ A-Za-z0-9!#$+.^_`|~-]/);
  return `inline; filename="${ascii}"; filename*=UTF-8''${percentEscape(name, /[A-Za-z0-9!#$&+.^_`|~-]/)}`;
}

/** The headers of a raw read: the data's, no caching, and a type by content (text or bytes). */
export function rawHeaders(file: FoundFile, data: FileData): Record<string, string> {
  return {
    ...fileHeaders(data),
    'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate',
    Pragma: 'no-cache',
    Expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
    'Content-Type': isBinary(file.blob.content) ? 'application/octet-stream' : 'text/plain; charset=utf-8',
    'Content-Disposition': contentDisposition(data.file_name),
  };
}
