// The instance's identity: an id the database gives itself once, which the data directory records
// too (data/instance_id). Two instances pointed at one data directory (a SQLite one and a
// PostgreSQL one in the same checkout, say) would write their repositories, named by project id,
// over each other's; a mismatch stops the server before anything is written.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { type Config, ConfigError } from './config.ts';
import type { DB } from './db/schema.ts';

export const INSTANCE_ID_FILE = 'instance_id';

/** A data directory that belongs to another database; the message is the one-line reason. */
export class InstanceMismatch extends ConfigError {}

function readRecorded(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Whether any storage holds a repository. */
function storagesHoldRepositories(config: Pick<Config, 'repositoryStorages'>): boolean {
  return Object.values(config.repositoryStorages).some((dir) => {
    try {
      return fs.readdirSync(path.join(dir, '@hashed')).length > 0;
    } catch {
      return false;
    }
  });
}

/**
 * Checks that the data directory belongs to this database, recording the id on both sides the
 * first time (a database from before instance ids adopts its data directory). Returns the id.
 */
export async function checkInstanceIdentity(db: Kysely<DB>, config: Pick<Config, 'dataDir' | 'repositoryStorages'>): Promise<string> {
  const file = path.join(config.dataDir, INSTANCE_ID_FILE);
  const recorded = readRecorded(file);
  const existing = await db.selectFrom('instance_identity').select('instance_id').where('id', '=', 1).executeTakeFirst();
  const dataDir = path.resolve(config.dataDir);
  if (existing) {
    if (recorded === existing.instance_id) return recorded;
    if (recorded !== null) {
      throw new InstanceMismatch(`the data directory ${dataDir} belongs to instance ${recorded}, not to this database's instance ${existing.instance_id}: set QUARRY_DATA_DIR to this instance's own directory`);
    }
    if (storagesHoldRepositories(config)) {
      throw new InstanceMismatch(`the repository storages hold repositories but ${dataDir} records no instance: set QUARRY_DATA_DIR to the directory of instance ${existing.instance_id}`);
    }
  } else {
    if (recorded !== null) {
      throw new InstanceMismatch(`the data directory ${dataDir} belongs to instance ${recorded}, and this database is another one: give it a data directory of its own (QUARRY_DATA_DIR)`);
    }
    const hasProjects = await db.selectFrom('projects').select('id').limit(1).executeTakeFirst();
    if (!hasProjects && storagesHoldRepositories(config)) {
      throw new InstanceMismatch(`the repository storages hold repositories of another database: give this one a data directory of its own (QUARRY_DATA_DIR)`);
    }
    // Nodes starting together: the first insert wins, the others read it.
    await db
      .insertInto('instance_identity')
      .values({ id: 1, instance_id: randomUUID(), created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
  const id = (await db.selectFrom('instance_identity').select('instance_id').where('id', '=', 1).executeTakeFirstOrThrow()).instance_id;
  if (recorded !== id) {
    // Written aside and renamed into place: a node starting beside this one reads all of it or nothing.
    fs.mkdirSync(config.dataDir, { recursive: true });
    const temporary = `${file}.${randomUUID()}.tmp`;
    fs.writeFileSync(temporary, `${id}\n`);
    fs.renameSync(temporary, file);
  }
  return id;
}
