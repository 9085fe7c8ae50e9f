// Reads of a user's custom attributes, in the order they were first set.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CustomAttribute } from './custom-attributes.schemas.ts';

export function listCustomAttributes(db: Kysely<DB>, userId: number): Promise<CustomAttribute[]> {
  return db.selectFrom('user_custom_attributes').select(['key', 'value']).where('user_id', '=', userId).orderBy('id').execute();
}

export function findCustomAttribute(db: Kysely<DB>, userId: number, key: string): Promise<CustomAttribute | undefined> {
  return db.selectFrom('user_custom_attributes').select(['key', 'value']).where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
}
