// Storing a file uploaded to a project: written whole to the uploads storage under a new secret,
// at most the instance's max_attachment_size (MB), then recorded. A larger file is the platform's
// 413 and leaves nothing behind.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { badRequest, payloadTooLarge } from '../../core/errors.ts';
import type { UploadRow } from '../../db/schema.ts';
import { uploadsStorage } from '../../storage/file-storage.ts';
import { safeFileName } from './uploads.files.ts';

export interface IncomingFile {
  filename: string;
  stream: Readable;
  /** Whether the stream stopped at the size limit (the reader's own flag). */
  truncated(): boolean;
}

/** A failure of the upload itself (over the limit: 413; a cut or malformed body: 400); a failure of the disk stays one. */
function uploadFailure(error: unknown): unknown {
  const failure = error as { statusCode?: number; syscall?: string } | null;
  if (failure?.statusCode === 413) return payloadTooLarge();
  return failure?.syscall === undefined ? badRequest() : error;
}

export async function storeUpload(ctx: ServiceContext, projectId: number, file: IncomingFile): Promise<UploadRow> {
  const actor = requireActor(ctx);
  const storage = uploadsStorage(ctx.config);
  const staged = await storage.stage(file.stream).catch((error: unknown) => {
    throw uploadFailure(error);
  });
  if (file.truncated()) {
    await staged.discard();
    throw payloadTooLarge();
  }
  const secret = randomBytes(16).toString('hex');
  const filename = safeFileName(file.filename);
  const filePath = `${projectId}/${secret}/${filename}`;
  await staged.keep(filePath);
  try {
    return await ctx.db
      .insertInto('uploads')
      .values({ project_id: projectId, uploaded_by_user_id: actor.user.id, secret, filename, size: staged.size, file_path: filePath, created_at: ctx.now().toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    await storage.remove(`${projectId}/${secret}`);
    throw error;
  }
}

/** A file of an export archive's uploads/ directory: `uploads/<secret>/<name>`. */
export interface ImportedUpload {
  secret: string;
  filename: string;
  /** Its absolute path in the extracted archive. */
  source: string;
}

/**
 * The uploads of an imported archive, recorded and copied into the project's uploads under the
 * secrets they had (the platform's UploadsManager), so that the Markdown that links to them,
 * `/uploads/<secret>/<name>`, still finds them. Runs inside the import's transaction; answers the
 * directories written, for the caller to remove should that transaction fail.
 */
export async function addImportedUploads(ctx: ServiceContext, projectId: number, files: readonly ImportedUpload[]): Promise<string[]> {
  const storage = uploadsStorage(ctx.config);
  const at = ctx.now().toISOString();
  const written: string[] = [];
  const rows = [];
  try {
    for (const file of files) {
      const staged = await storage.stage(createReadStream(file.source));
      const filePath = `${projectId}/${file.secret}/${file.filename}`;
      await staged.keep(filePath);
      written.push(`${projectId}/${file.secret}`);
      rows.push({ project_id: projectId, uploaded_by_user_id: null, secret: file.secret, filename: file.filename, size: staged.size, file_path: filePath, created_at: at });
    }
    for (let i = 0; i < rows.length; i += 100) await ctx.db.insertInto('uploads').values(rows.slice(i, i + 100)).execute();
  } catch (error) {
    await Promise.all(written.map((dir) => storage.remove(dir)));
    throw error;
  }
  return written;
}

/** Removes directories addImportedUploads wrote (its transaction failed). */
export async function removeImportedUploads(ctx: ServiceContext, dirs: readonly string[]): Promise<void> {
  const storage = uploadsStorage(ctx.config);
  await Promise.all(dirs.map((dir) => storage.remove(dir)));
}
