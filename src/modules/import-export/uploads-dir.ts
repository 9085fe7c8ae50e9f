// The archive's uploads/ directory (the platform's UploadsSaver and UploadsRestorer): every file
// uploaded to the project, at uploads/<secret>/<name>, the path its Markdown links name after
// /uploads/. An import reads back only what has that form: a directory named by a secret (32 hex
// characters) holding regular files; anything else there is not read.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { uploadsStorage } from '../../storage/file-storage.ts';
import type { ImportedUpload } from '../uploads/uploads.service.ts';
import { safeFileName } from '../uploads/index.ts';
import { ArchiveError } from './archive.ts';

export const UPLOADS_DIR = 'uploads';
const SECRET = /^[0-9a-f]{32}$/;
/** What an archive may hold at most: the platform has no such limit, an instance needs one. */
const MAX_UPLOADS = 10_000;
const BATCH = 500;

/** Copies the project's uploads under `dir`/uploads; false when it has none (the directory is then not written). */
export async function writeUploads(db: Kysely<DB>, config: Config, projectId: number, dir: string): Promise<boolean> {
  const storage = uploadsStorage(config);
  let after = 0;
  let any = false;
  for (;;) {
    const rows = await db.selectFrom('uploads').select(['id', 'secret', 'filename', 'file_path']).where('project_id', '=', projectId).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) return any;
    after = rows[rows.length - 1].id;
    for (const row of rows) {
      // A file gone from the storage is left out, as the platform's saver skips a missing one.
      if (!(await storage.exists(row.file_path))) continue;
      const target = path.join(dir, UPLOADS_DIR, row.secret);
      await fs.mkdir(target, { recursive: true });
      await fs.copyFile(storage.localPath(row.file_path), path.join(target, row.filename));
      any = true;
    }
  }
}

/** The uploads of an extracted archive, at most MAX_UPLOADS. */
export async function readUploads(dir: string): Promise<ImportedUpload[]> {
  const root = path.join(dir, UPLOADS_DIR);
  const stat = await fs.lstat(root).catch(() => null);
  if (!stat?.isDirectory()) return [];
  const out: ImportedUpload[] = [];
  const seen = new Set<string>();
  for (const secret of (await fs.readdir(root)).sort()) {
    if (!SECRET.test(secret)) continue;
    const secretDir = path.join(root, secret);
    if (!(await fs.lstat(secretDir)).isDirectory()) continue;
    for (const name of (await fs.readdir(secretDir)).sort()) {
      const source = path.join(secretDir, name);
      if (!(await fs.lstat(source)).isFile()) continue;
      const filename = safeFileName(name);
      if (seen.has(`${secret}/${filename}`)) continue;
      seen.add(`${secret}/${filename}`);
      if (out.length === MAX_UPLOADS) throw new ArchiveError(`Invalid file: the archive holds more than ${MAX_UPLOADS} uploads`);
      out.push({ secret, filename, source });
    }
  }
  return out;
}
