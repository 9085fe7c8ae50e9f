// Writes of a user's custom attributes: set (create or replace) and delete.
import { invalidFields, notFound } from '../../core/errors.ts';
import type { CustomAttribute } from './custom-attributes.schemas.ts';
import type { ServiceDeps } from './users.service.ts';

/** Creates the attribute or replaces its value, in one statement so that concurrent sets cannot collide. */
export async function setCustomAttribute(deps: ServiceDeps, userId: number, key: string, value: string): Promise<CustomAttribute> {
  if (value.trim() === '') throw invalidFields({ value: ["can't be blank"] });
  const now = deps.now().toISOString();
  return deps.db
    .insertInto('user_custom_attributes')
    .values({ user_id: userId, key, value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({ value, updated_at: now }))
    .returning(['key', 'value'])
    .executeTakeFirstOrThrow();
}

export async function deleteCustomAttribute(deps: ServiceDeps, userId: number, key: string): Promise<void> {
  const result = await deps.db.deleteFrom('user_custom_attributes').where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
  // The platform's current wording; releases before 16 answered the generic "404 Not found".
  if (Number(result.numDeletedRows) === 0) throw notFound('Custom attribute');
}
