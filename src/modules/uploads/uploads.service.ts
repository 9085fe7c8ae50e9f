// Storing a file uploaded to a project: written whole to the uploads storage under a new secret,
// at most the instance's max_attachment_size (MB), then recorded. A larger file is the platform's
// 413 and leaves nothing behind.
import { randomBytes } from 'node:crypto';
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
