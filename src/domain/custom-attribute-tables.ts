// The three tables of custom attributes have the same columns but the one naming their owner:
// reads and writes name a subject, and this gives its table and owner column.
import { type Expression, type SqlBool, sql } from 'kysely';

export const CUSTOM_ATTRIBUTE_TABLES = {
  user: { table: 'user_custom_attributes', owner: 'user_id' },
  group: { table: 'group_custom_attributes', owner: 'group_id' },
  project: { table: 'project_custom_attributes', owner: 'project_id' },
} as const;

export type CustomAttributeSubject = keyof typeof CUSTOM_ATTRIBUTE_TABLES;

/**
 * The list filter `custom_attributes[key]=value`: the row whose id is `ownerColumn` (qualified,
 * e.g. 'users.id') has that attribute with exactly that value.
 */
export function hasCustomAttribute(subject: CustomAttributeSubject, ownerColumn: string, key: string, value: string): Expression<SqlBool> {
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  return sql<SqlBool>`exists (select 1 from ${sql.table(table)} as ca where ${sql.ref(`ca.${owner}`)} = ${sql.ref(ownerColumn)} and ${sql.ref('ca.key')} = ${key} and ${sql.ref('ca.value')} = ${value})`;
}
