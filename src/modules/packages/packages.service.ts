// Writes of the package registry: publishing a generic package file (streamed to the packages
// storage under the project's plan limit, then recorded), and deleting packages and files (rows
// at once, their files in the background, enqueued in the same transaction).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { badRequest } from '../../core/errors.ts';
import type { PackageFileRow, PackageRow } from '../../db/schema.ts';
import { newPackageFilePath } from '../../storage/artifact-paths.ts';
import { removePackageFilesLater } from '../../storage/deferred-removal.ts';
import { packagesStorage } from '../../storage/file-storage.ts';
import { projectLimit } from '../plan-limits/plan-limits.finder.ts';
import { findGenericPackage } from './packages.finder.ts';

export const FILE_TOO_LARGE = 'File is too large';

/** The guard's failure once the body has grown past the limit. */
class TooLarge extends Error {}

export interface GenericUpload {
  name: string;
  version: string;
  fileName: string;
  status: 'default' | 'hidden' | undefined;
  /** The declared length of the body, when the client sent one. */
  declaredSize: number | null;
  body: Readable;
}

/**
 * Publishes a file of a generic package (the package is created with its first file). The plan's
 * generic_packages_max_file_size bounds it (0: no bound): a declared length above it is refused
 * before the body is read, and a body that grows past it is cut off; both are 400 "File is too large".
 */
export async function publishGenericFile(ctx: ServiceContext, projectId: number, upload: GenericUpload): Promise<PackageFileRow> {
  const limit = await projectLimit(ctx.db, projectId, 'generic_packages_max_file_size');
  if (limit > 0 && upload.declaredSize !== null && upload.declaredSize > limit) {
    upload.body.resume();
    throw badRequest(FILE_TOO_LARGE);
  }
  const md5 = createHash('md5');
  const sha1 = createHash('sha1');
  let size = 0;
  let exceeded = false;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (limit > 0 && size > limit) {
        exceeded = true;
        done(new TooLarge());
        return;
      }
      md5.update(chunk);
      sha1.update(chunk);
      done(null, chunk);
    },
  });
  const storage = packagesStorage(ctx.config);
  // The body may flow (and the guard fail) before staging has attached its own handlers.
  guard.on('error', () => {});
  let staged;
  try {
    staged = await storage.stage(upload.body.pipe(guard));
  } catch (error) {
    upload.body.unpipe(guard);
    upload.body.resume();
    if (exceeded) throw badRequest(FILE_TOO_LARGE);
    throw error;
  }
  const pipelineId = ctx.actor?.jobId ? ((await ctx.db.selectFrom('ci_builds').select('pipeline_id').where('id', '=', ctx.actor.jobId).executeTakeFirst())?.pipeline_id ?? null) : null;
  try {
    return await withTransaction(ctx, async ({ db }) => {
      const now = ctx.now().toISOString();
      let pkg: PackageRow | undefined = await findGenericPackage(db, projectId, upload.name, upload.version);
      if (!pkg) {
        pkg = await db
          .insertInto('packages')
          .values({ project_id: projectId, name: upload.name, version: upload.version, package_type: 'generic', status: upload.status ?? 'default', created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
      } else {
        pkg = await db
          .updateTable('packages')
          .set({ ...(upload.status !== undefined ? { status: upload.status } : {}), updated_at: now })
          .where('id', '=', pkg.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      }
      const filePath = newPackageFilePath(projectId, pkg.id);
      const file = await db
        .insertInto('package_files')
        .values({
          package_id: pkg.id,
          file_name: upload.fileName,
          size: staged.size,
          file_md5: md5.digest('hex'),
          file_sha1: sha1.digest('hex'),
          file_sha256: staged.sha256,
          file_path: filePath,
          pipeline_id: pipelineId,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      // Last: the file is in place before the row that names it is committed.
      await staged.keep(filePath);
      return file;
    });
  } finally {
    await staged.discard();
  }
}

/** Deletes a package with its files. */
export async function deletePackage(ctx: ServiceContext, pkg: PackageRow): Promise<void> {
  await withTransaction(ctx, async ({ db }) => {
    const files = await db.selectFrom('package_files').select('file_path').where('package_id', '=', pkg.id).execute();
    await db.deleteFrom('packages').where('id', '=', pkg.id).execute();
    await removePackageFilesLater(db, files.map((f) => f.file_path));
  });
}

/** Deletes one file of a package; the package stays, even without files, as on the platform. */
export async function deletePackageFile(ctx: ServiceContext, file: PackageFileRow): Promise<void> {
  await withTransaction(ctx, async ({ db }) => {
    await db.deleteFrom('package_files').where('id', '=', file.id).execute();
    await removePackageFilesLater(db, [file.file_path]);
  });
}
