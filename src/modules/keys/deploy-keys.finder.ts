// Reads of deploy keys: every one (administrators), a project's, and those a user may enable on
// another project (public ones, and those of projects the user maintains).
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { ACCESS } from '../../core/access/levels.ts';
import type { DB, KeyRow } from '../../db/schema.ts';
import { liveKeys } from './keys.finder.ts';

/** A deploy key as a project uses it: the key, and its join to the project. */
export type ProjectDeployKey = KeyRow & { can_push: boolean; join_id: number; join_updated_at: string };

/** Every deploy key, oldest first; unexecuted. */
export function allDeployKeys(db: Kysely<DB>): SelectQueryBuilder<DB, 'keys', KeyRow> {
  return liveKeys(db).where('keys.type', '=', 'DeployKey').orderBy('keys.id', 'asc');
}

/** A project's deploy keys, in the order they were enabled; unexecuted. */
export function projectDeployKeys(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('deploy_keys_projects')
    .innerJoin('keys', 'keys.id', 'deploy_keys_projects.deploy_key_id')
    .selectAll('keys')
    .select(['deploy_keys_projects.can_push', 'deploy_keys_projects.id as join_id', 'deploy_keys_projects.updated_at as join_updated_at'])
    .where('deploy_keys_projects.project_id', '=', projectId)
    .orderBy('deploy_keys_projects.id', 'asc');
}

export function findProjectDeployKey(db: Kysely<DB>, projectId: number, keyId: number): Promise<ProjectDeployKey | undefined> {
  return projectDeployKeys(db, projectId).where('keys.id', '=', keyId).executeTakeFirst();
}

/** The project's deploy key stored with exactly this text. */
export function findProjectDeployKeyByText(db: Kysely<DB>, projectId: number, text: string): Promise<ProjectDeployKey | undefined> {
  return projectDeployKeys(db, projectId).where('keys.key', '=', text).executeTakeFirst();
}

/**
 * A deploy key this user may enable on a project of theirs: a public one, or one a project they
 * maintain uses (spec part 1 §4.6: only if the original is accessible to the same user);
 * administrators reach every one.
 */
export function findAccessibleDeployKey(db: Kysely<DB>, viewer: { userId: number; isAdmin: boolean }, by: { id: number } | { text: string }): Promise<KeyRow | undefined> {
  let q = allDeployKeys(db);
  q = 'id' in by ? q.where('keys.id', '=', by.id) : q.where('keys.key', '=', by.text);
  if (viewer.isAdmin) return q.executeTakeFirst();
  return q
    .where((eb) =>
      eb.or([
        eb('keys.public', '=', true),
        eb(
          'keys.id',
          'in',
          eb
            .selectFrom('deploy_keys_projects')
            .innerJoin('project_authorizations', 'project_authorizations.project_id', 'deploy_keys_projects.project_id')
            .select('deploy_keys_projects.deploy_key_id')
            .where('project_authorizations.user_id', '=', viewer.userId)
            .where('project_authorizations.access_level', '>=', ACCESS.MAINTAINER),
        ),
      ]),
    )
    .executeTakeFirst();
}
