// Every user owns a personal namespace named after them; it follows their username and name.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** Personal namespaces are public: what they hold decides what others see. */
const PUBLIC = 20;

export async function createPersonalNamespace(db: Kysely<DB>, user: { id: number; username: string; name: string }, now: string): Promise<number> {
  const { id } = await db
    .insertInto('namespaces')
    .values({
      type: 'User',
      name: user.name,
      path: user.username,
      owner_id: user.id,
      parent_id: null,
      traversal_path: '',
      full_path: user.username,
      full_name: user.name,
      description: '',
      visibility_level: PUBLIC,
      request_access_enabled: true,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('namespaces').set({ traversal_path: `/${id}/` }).where('id', '=', id).execute();
  return id;
}

/** After a rename: the namespace and the paths and names of the projects in it. */
export async function syncPersonalNamespace(db: Kysely<DB>, user: { id: number; username: string; name: string }, now: string): Promise<void> {
  const ns = await db.selectFrom('namespaces').select(['id', 'path', 'name']).where('type', '=', 'User').where('owner_id', '=', user.id).executeTakeFirst();
  if (!ns || (ns.path === user.username && ns.name === user.name)) return;
  await db
    .updateTable('namespaces')
    .set({ path: user.username, full_path: user.username, name: user.name, full_name: user.name, updated_at: now })
    .where('id', '=', ns.id)
    .execute();
  await db
    .updateTable('projects')
    .set({ full_path: sql`${user.username} || '/' || path`, name_with_namespace: sql`${user.name} || ' / ' || name` })
    .where('namespace_id', '=', ns.id)
    .execute();
}

/** True when a group already uses this top-level path (usernames and top-level groups share paths). */
export async function topLevelPathTaken(db: Kysely<DB>, path: string, exceptOwnerId?: number): Promise<boolean> {
  let q = db.selectFrom('namespaces').select('id').where(sql`lower(full_path)`, '=', path.toLowerCase());
  if (exceptOwnerId !== undefined) q = q.where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '!=', exceptOwnerId)]));
  return (await q.executeTakeFirst()) !== undefined;
}
