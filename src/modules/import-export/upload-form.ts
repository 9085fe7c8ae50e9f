// The multipart form of an archive upload (project and group imports): the `file` part streamed
// to the staging area within the size limit, never held in memory; the other fields nested as a
// query string would be (override_params[...]).
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { DomainError, badRequest } from '../../core/errors.ts';
import { parseQueryString } from '../../core/query-string.ts';
import { type StagedFile, artifactsStorage } from '../../storage/file-storage.ts';

/** The platform's answer to an upload whose name does not end in .gz (422, for groups too). */
export const NOT_GZ = 'You need to upload a GitLab project export archive (ending in .gz).';
/** An application rate limit that was passed (429). */
export const TOO_MANY_REQUESTS = 'This endpoint has been requested too many times. Try again later.';
/** No import size limit (max_import_size 0) still stops an upload somewhere. */
const UNLIMITED_UPLOAD = 10 * 1024 ** 3;

/** The most an upload may weigh: max_import_size megabytes, 0 meaning no limit of the instance's. */
export const uploadLimit = (maxImportSizeMb: number): number => (maxImportSizeMb > 0 ? maxImportSizeMb * 1024 * 1024 : UNLIMITED_UPLOAD);

export interface ImportForm {
  staged: StagedFile | null;
  filename: string;
  truncated: boolean;
  fields: Record<string, unknown>;
}

/** The multipart import form: the `file` part to disk (within the limit), the other fields nested like a query. */
export async function readImportForm(req: FastifyRequest, maxBytes: number): Promise<ImportForm> {
  const form: ImportForm = { staged: null, filename: '', truncated: false, fields: {} };
  const pairs: string[] = [];
  try {
    const options = { limits: { fileSize: maxBytes, files: 1, fields: 200, fieldSize: 64 * 1024 }, throwFileSizeLimit: false };
    for await (const part of req.parts(options)) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        form.staged = await artifactsStorage(req.server.deps.config).stage(part.file);
        form.truncated = part.file.truncated;
        form.filename = path.posix.basename(part.filename.replaceAll('\\', '/'));
      } else if (typeof part.value === 'string') {
        pairs.push(`${encodeURIComponent(part.fieldname)}=${encodeURIComponent(part.value)}`);
      }
    }
  } catch (error) {
    await form.staged?.discard();
    if (error instanceof DomainError) throw error;
    throw badRequest();
  }
  form.fields = parseQueryString(pairs.join('&'));
  return form;
}
