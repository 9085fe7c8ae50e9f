// Reads of uploads: one file of a project by its secret and name.
import type { Kysely } from 'kysely';
import type { DB, UploadRow } from '../../db/schema.ts';

export function findUpload(db: Kysely<DB>, projectId: number, secret: string, filename: string): Promise<UploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('project_id', '=', projectId).where('secret', '=', secret).where('filename', '=', filename).executeTakeFirst();
}
