// Reading the CI/CD variables of one owner (a project, a group, the instance) for the variables API.
import type { Kysely } from 'kysely';
import type { CiVariableRow, DB } from '../../db/schema.ts';

export type VariableOwner = { type: 'instance'; id: 0 } | { type: 'group'; id: number } | { type: 'project'; id: number };

export const INSTANCE: VariableOwner = { type: 'instance', id: 0 };

/** An owner's variables, oldest first (the platform's order, by id). */
export function findVariables(db: Kysely<DB>, owner: VariableOwner) {
  return db.selectFrom('ci_variables').selectAll().where('owner_type', '=', owner.type).where('owner_id', '=', owner.id).orderBy('id');
}

/** The owner's variables of a key, in one environment scope when given. */
export async function variablesOfKey(db: Kysely<DB>, owner: VariableOwner, key: string, environmentScope?: string): Promise<CiVariableRow[]> {
  return findVariables(db, owner)
    .where('key', '=', key)
    .$if(environmentScope !== undefined, (q) => q.where('environment_scope', '=', environmentScope as string))
    .execute();
}
