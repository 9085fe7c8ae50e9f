// Which merge requests an actor sees, as SQL (the platform's MergeRequestsFinder with
// read_merge_request): those of projects whose code the actor may read (a private project's from
// Reporter up) with the merge requests feature open to the actor.
import { type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { projectCodeVisibleTo } from '../core/access/visibility.ts';
import type { Actor } from '../core/auth/actor.ts';
import type { DB } from '../db/schema.ts';
import { projectFeatureOpenTo } from './issue-visibility.ts';

/** Projects (aliased `projectsAlias`) whose merge requests the actor reads. */
export function mergeRequestsOpenTo<TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, actor: Actor | null, projectsAlias = 'projects'): Expression<SqlBool> {
  return eb.and([projectCodeVisibleTo(eb, actor, projectsAlias), projectFeatureOpenTo(actor, 'merge_requests', projectsAlias)]);
}
