// The visibility rule as SQL: which projects an actor may see. It is one indexed test per row
// (visibility_level, or a point lookup in project_authorizations), so its cost per row does not
// grow with the number of projects.
import { type ExpressionBuilder, type Expression, type SqlBool, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../auth/actor.ts';
import { visibleLevels } from './levels.ts';

/** A condition on the `projects` table (aliased `projectsAlias`) that holds for projects the actor may read. */
export function projectVisibleTo<TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, actor: Actor | null, projectsAlias = 'projects'): Expression<SqlBool> {
  const levels = visibleLevels(actor ? { isAdmin: actor.isAdmin, external: Boolean(actor.user.external) } : null);
  const visibility = sql.ref(`${projectsAlias}.visibility_level`);
  const byLevel = sql<SqlBool>`${visibility} in (${sql.join(levels)})`;
  if (!actor || actor.isAdmin) return byLevel;
  const id = sql.ref(`${projectsAlias}.id`);
  return eb.or([
    byLevel,
    sql<SqlBool>`exists (select 1 from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.project_id = ${id})`,
  ]);
}
