// Removing stored files (artifacts, packages, uploads) after the rows that named them are gone, as durable background work: the
// removal is enqueued in the transaction that deletes the rows, so it happens exactly when they
// went, even if the server stops right after. Removing again is harmless.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { defineJobKind, enqueue } from '../jobs/queue.ts';
import { type FileStorage, artifactsStorage, packagesStorage, uploadsStorage } from './file-storage.ts';

const RemovalPayload = Type.Object(
  { storage: Type.Union([Type.Literal('artifacts'), Type.Literal('packages'), Type.Literal('uploads')]), paths: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) },
  { additionalProperties: false },
);

export const removeStoredFilesJob = defineJobKind({
  name: 'storage.files.remove',
  payload: RemovalPayload,
  async run(ctx, { storage: name, paths }) {
    const storage: FileStorage = { artifacts: artifactsStorage, packages: packagesStorage, uploads: uploadsStorage }[name](ctx.config);
    for (const target of paths) await storage.remove(target);
  },
});

/** Enqueues the removal of these artifact files or directories (relative paths) in `db`'s transaction. */
export async function removeArtifactFilesLater(db: Kysely<DB>, paths: readonly string[]): Promise<void> {
  if (paths.length > 0) await enqueue(db, removeStoredFilesJob, { storage: 'artifacts', paths: [...paths] });
}

/** Enqueues the removal of these package files or directories (relative paths) in `db`'s transaction. */
export async function removePackageFilesLater(db: Kysely<DB>, paths: readonly string[]): Promise<void> {
  if (paths.length > 0) await enqueue(db, removeStoredFilesJob, { storage: 'packages', paths: [...paths] });
}

/** Enqueues the removal of these upload directories (relative paths, e.g. a project's) in `db`'s transaction. */
export async function removeUploadFilesLater(db: Kysely<DB>, paths: readonly string[]): Promise<void> {
  if (paths.length > 0) await enqueue(db, removeStoredFilesJob, { storage: 'uploads', paths: [...paths] });
}
