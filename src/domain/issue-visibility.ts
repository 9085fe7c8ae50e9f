// Which issues an actor sees, as SQL (the platform's IssuesFinder): those of projects the actor
// reads whose issues feature is open to the actor, and of those the confidential ones only for
// Reporters of the project and above, their authors and assignees (administrators see all).
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { privateFeatureMinimum } from '../core/access/abilities.ts';
import { ACCESS, VISIBILITY } from '../core/access/levels.ts';
import { type ProjectReader, projectVisibleTo } from '../core/access/visibility.ts';
import type { Actor } from '../core/auth/actor.ts';
import type { DB } from '../db/schema.ts';
import { FEATURE_LEVEL_CODES, featureSetting } from './settings/project-settings.ts';

/** Who a feature's condition is asked for: what the project conditions read of an actor, less whether they are external. */
export type FeatureReader = Pick<ProjectReader, 'isAdmin'> & { readonly user: Pick<ProjectReader['user'], 'id'> };

/** The actor's authorization on the project `projectId` (an SQL reference) at `level` or above. */
const authorizedAtLeast = (actor: FeatureReader, projectId: Expression<unknown>, level: number) =>
  sql<SqlBool>`exists (select 1 from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.project_id = ${projectId} and pa.access_level >= ${level})`;

/**
 * A feature open to the actor on the project aliased `projectsAlias`: not disabled, and when
 * 'private', reached by the actor's role. A project without a features row has every feature enabled.
 */
export function projectFeatureOpenTo(actor: FeatureReader | null, feature: 'issues' | 'merge_requests', projectsAlias = 'projects'): Expression<SqlBool> {
  const level = sql.ref(`pf.${featureSetting(feature)}`);
  const id = sql.ref(`${projectsAlias}.id`);
  const { disabled, private: membersOnly } = FEATURE_LEVEL_CODES;
  let closed = sql<SqlBool>`${level} = ${disabled}`;
  if (!actor?.isAdmin) {
    // The minimum role for issues and merge requests does not depend on the project's visibility.
    const minimum = privateFeatureMinimum({ visibility_level: VISIBILITY.public }, feature);
    const member = actor ? authorizedAtLeast(actor, id, minimum) : sql<SqlBool>`1 = 0`;
    closed = sql<SqlBool>`(${closed} or (${level} = ${membersOnly} and not ${member}))`;
  }
  return sql<SqlBool>`not exists (select 1 from project_features pf where pf.project_id = ${id} and ${closed})`;
}

/** Issues (aliased `issuesAlias`) of the project aliased `projectsAlias` that the actor sees. */
export function issueVisibleTo<TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  actor: Actor | null,
  issuesAlias = 'issues',
  projectsAlias = 'projects',
): Expression<SqlBool> {
  return eb.and([projectIssuesOpenTo(eb, actor, projectsAlias), confidentialityCheck(actor, issuesAlias)]);
}

/** The project aliased `projectsAlias` is one whose issues the actor reads (confidentiality aside). */
export function projectIssuesOpenTo<TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, actor: Actor | null, projectsAlias = 'projects'): Expression<SqlBool> {
  return eb.and([projectVisibleTo(eb, actor, projectsAlias), projectFeatureOpenTo(actor, 'issues', projectsAlias)]);
}

/** Confidential issues only for Reporters and above, their authors and their assignees. */
export function confidentialityCheck(actor: Actor | null, issuesAlias: string): Expression<SqlBool> {
  if (actor?.isAdmin) return sql<SqlBool>`1 = 1`;
  const confidential = sql.ref(`${issuesAlias}.confidential`);
  if (!actor) return sql<SqlBool>`${confidential} = ${false}`;
  const id = sql.ref(`${issuesAlias}.id`);
  return sql<SqlBool>`(${confidential} = ${false}
    or ${sql.ref(`${issuesAlias}.author_id`)} = ${actor.user.id}
    or exists (select 1 from issue_assignees ia where ia.issue_id = ${id} and ia.user_id = ${actor.user.id})
    or ${authorizedAtLeast(actor, sql.ref(`${issuesAlias}.project_id`), ACCESS.REPORTER)})`;
}
