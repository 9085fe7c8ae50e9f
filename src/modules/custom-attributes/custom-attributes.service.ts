// Writes of custom attributes: set (create or replace) and delete.
import type { ServiceContext } from '../../core/context.ts';
import { invalidFields, notFound } from '../../core/errors.ts';
import { CUSTOM_ATTRIBUTE_TABLES, type CustomAttributeSubject } from '../../domain/custom-attribute-tables.ts';
import { BLANK } from '../../domain/validation.ts';
import type { CustomAttribute } from './custom-attributes.schemas.ts';

/** Creates the attribute or replaces its value, in one statement so that concurrent sets cannot collide. */
export async function setCustomAttribute(ctx: ServiceContext, subject: CustomAttributeSubject, ownerId: number, key: string, value: string): Promise<CustomAttribute> {
  if (value.trim() === '') throw invalidFields({ value: [BLANK] });
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  const now = ctx.now().toISOString();
  return ctx.db
    .insertInto(table)
    .values({ [owner]: ownerId, key, value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns([owner, 'key']).doUpdateSet({ value, updated_at: now }))
    .returning(['key', 'value'])
    .executeTakeFirstOrThrow();
}

export async function deleteCustomAttribute(ctx: ServiceContext, subject: CustomAttributeSubject, ownerId: number, key: string): Promise<void> {
  const { table, owner } = CUSTOM_ATTRIBUTE_TABLES[subject];
  const result = await ctx.db.deleteFrom(table).where(owner, '=', ownerId).where('key', '=', key).executeTakeFirst();
  // The platform's current wording; releases before 16 answered the generic "404 Not found".
  if (Number(result.numDeletedRows) === 0) throw notFound('Custom attribute');
}
