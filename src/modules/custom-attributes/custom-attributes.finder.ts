// Reads of custom attributes, in the order they were first set.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { CUSTOM_ATTRIBUTE_TABLES, type CustomAttributeSubject } from '../../domain/custom-attribute-tables.ts';
import type { CustomAttribute } from './custom-attributes.schemas.ts';

export function listCustomAttributes(db: Kysely<DB>, subject: CustomAttributeSubject, ownerId: number): Promise<CustomAttribute[]> {
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  return db.selectFrom(table).select(['key', 'value']).where(owner, '=', ownerId).orderBy('id').execute();
}

export function findCustomAttribute(db: Kysely<DB>, subject: CustomAttributeSubject, ownerId: number, key: string): Promise<CustomAttribute | undefined> {
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  return db.selectFrom(table).select(['key', 'value']).where(owner, '=', ownerId).where('key', '=', key).executeTakeFirst();
}

/** Custom attributes of many owners in one query, by owner id. */
export async function loadCustomAttributes(db: Kysely<DB>, subject: CustomAttributeSubject, ownerIds: number[]): Promise<Map<number, CustomAttribute[]>> {
  const map = new Map<number, CustomAttribute[]>();
  if (ownerIds.length === 0) return map;
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  const rows = await db.selectFrom(table).select([`${owner} as owner_id`, 'key', 'value']).where(owner, 'in', ownerIds).orderBy('id').execute();
  for (const r of rows) {
    const list = map.get(r.owner_id) ?? [];
    list.push({ key: r.key, value: r.value });
    map.set(r.owner_id, list);
  }
  return map;
}
