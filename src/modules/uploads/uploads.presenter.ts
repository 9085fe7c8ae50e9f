// Pure upload rows → the project upload entity: its Markdown (embedded for images, videos and
// audio, a link otherwise), its URL relative to the project and its path on the server.
import type { UploadRow } from '../../db/schema.ts';
import { isDangerousImage, isEmbeddable } from './uploads.files.ts';
import type { ProjectUpload } from './uploads.schemas.ts';

export const uploadUrl = (row: Pick<UploadRow, 'secret' | 'filename'>) => `/uploads/${row.secret}/${row.filename}`;

export function presentProjectUpload(row: Pick<UploadRow, 'secret' | 'filename'>, projectFullPath: string): ProjectUpload {
  const embedded = isEmbeddable(row.filename);
  const alt = (embedded ? row.filename.replace(/\.[^.]*$/, '') : row.filename).replace(/]/g, '\\]');
  const url = uploadUrl(row);
  return {
    alt,
    url,
    full_path: `/${projectFullPath}${url}`,
    markdown: `${embedded || isDangerousImage(row.filename) ? '!' : ''}[${alt}](${url})`,
  };
}
