// Fixtures for groups, projects and memberships, written straight to the database (with the
// authorizations recomputed) so that any test can build a hierarchy without going through the
// routes under test.
import { randomBytes } from 'node:crypto';
import { refreshAuthorizations, usersAroundNamespace } from '../src/core/access/authorizations.ts';
import { VISIBILITY, type VisibilityName } from '../src/core/access/levels.ts';
import { digest } from '../src/core/auth/secrets.ts';
import { secretBox } from '../src/core/secret-box.ts';
import type { NamespaceRow, ProjectRow } from '../src/db/schema.ts';
import { type ApplicationSettings, updateApplicationSettings } from '../src/domain/settings/application-settings.ts';
import { GROUP_CREATION_LEVELS, type GroupCreationLevels, type NamespaceSettings, updateNamespaceSettings } from '../src/domain/settings/namespace-settings.ts';
import { PROJECT_CI_CD_SETTINGS, PROJECT_SETTINGS, insertProjectSettings, newProjectFeatures } from '../src/domain/settings/project-settings.ts';
import type { TestApp } from './harness.ts';

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}-${randomBytes(2).toString('hex')}`;

export interface GroupOptions {
  path?: string;
  name?: string;
  visibility?: VisibilityName;
  parent?: NamespaceRow;
  /** Users made direct members: [userId, accessLevel]. */
  members?: [number, number][];
  settings?: Partial<GroupCreationLevels & NamespaceSettings>;
}

export async function createGroup(t: TestApp, options: GroupOptions = {}): Promise<NamespaceRow> {
  const { db, now } = t.deps;
  const at = now().toISOString();
  const path = options.path ?? unique('group');
  const name = options.name ?? path;
  const parent = options.parent;
  const inserted = await db
    .insertInto('namespaces')
    .values({
      type: 'Group',
      name,
      path,
      owner_id: null,
      parent_id: parent?.id ?? null,
      traversal_path: '',
      full_path: parent ? `${parent.full_path}/${path}` : path,
      full_name: parent ? `${parent.full_name} / ${name}` : name,
      description: '',
      visibility_level: VISIBILITY[options.visibility ?? 'private'],
      request_access_enabled: true,
      ...GROUP_CREATION_LEVELS.columns(options.settings ?? {}),
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const traversal = `${parent?.traversal_path ?? '/'}${inserted.id}/`;
  const row = await db.updateTable('namespaces').set({ traversal_path: traversal }).where('id', '=', inserted.id).returningAll().executeTakeFirstOrThrow();
  if (options.settings) await updateNamespaceSettings(db, row.id, options.settings);
  for (const [userId, level] of options.members ?? []) await addMember(t, row, userId, level);
  return row;
}

export interface ProjectOptions {
  path?: string;
  name?: string;
  visibility?: VisibilityName;
  /** A group, or a user's personal namespace (default: root's). */
  namespace?: NamespaceRow;
  creatorId?: number;
  archived?: boolean;
  members?: [number, number][];
  topics?: string[];
}

export async function personalNamespace(t: TestApp, userId: number): Promise<NamespaceRow> {
  return t.deps.db.selectFrom('namespaces').selectAll().where('type', '=', 'User').where('owner_id', '=', userId).executeTakeFirstOrThrow();
}

export async function createProject(t: TestApp, options: ProjectOptions = {}): Promise<ProjectRow> {
  const { db, now } = t.deps;
  const at = now().toISOString();
  const namespace = options.namespace ?? (await personalNamespace(t, options.creatorId ?? 1));
  const path = options.path ?? unique('project');
  const name = options.name ?? path;
  const token = randomBytes(10).toString('hex');
  const visibility = VISIBILITY[options.visibility ?? 'private'];
  const row = await db
    .insertInto('projects')
    .values({
      namespace_id: namespace.id,
      name,
      path,
      full_path: `${namespace.full_path}/${path}`,
      name_with_namespace: `${namespace.full_name} / ${name}`,
      description: '',
      visibility_level: visibility,
      creator_id: options.creatorId ?? namespace.owner_id ?? 1,
      default_branch: null,
      archived: options.archived ?? false,
      repository_storage: 'default',
      runners_token_encrypted: secretBox(t.deps.config.dataDir).seal(token),
      runners_token_digest: digest(token),
      import_status: 'none',
      star_count: 0,
      created_at: at,
      updated_at: at,
      last_activity_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertProjectSettings(db, row.id, { features: newProjectFeatures(visibility), ciCd: PROJECT_CI_CD_SETTINGS.defaults, settings: PROJECT_SETTINGS.defaults });
  for (const [position, topic] of (options.topics ?? []).entries()) {
    await db.insertInto('project_topics').values({ project_id: row.id, name: topic, position }).execute();
  }
  await refreshAuthorizations(db, await usersAroundNamespace(db, namespace), now());
  for (const [userId, level] of options.members ?? []) await addMember(t, row, userId, level);
  return row;
}

/** A direct membership of a group (a namespace row) or a project. */
export async function addMember(t: TestApp, source: NamespaceRow | ProjectRow, userId: number, accessLevel: number, expiresAt: string | null = null): Promise<void> {
  const { db, now } = t.deps;
  const at = now().toISOString();
  const sourceType = 'type' in source ? 'Namespace' : 'Project';
  await db
    .insertInto('members')
    .values({ source_type: sourceType, source_id: source.id, user_id: userId, access_level: accessLevel, expires_at: expiresAt, created_by_id: 1, created_at: at, updated_at: at })
    .execute();
  await refreshAuthorizations(db, [userId], now());
}

/**
 * Lifts the protection a project's default branch gets with its README commit (the platform's
 * default_branch_protection: only maintainers push), for tests where developers write to it.
 */
export async function unprotectDefaultBranch(t: TestApp, project: { id: number }, branch = 'main'): Promise<void> {
  await t.deps.db.deleteFrom('protected_branches').where('project_id', '=', project.id).where('name', '=', branch).execute();
}

/**
 * Sets instance settings by writing the settings row (its generation moves on, so every reader
 * sees the change at once in this process).
 */
export async function setInstanceSettings(t: TestApp, changes: Partial<ApplicationSettings>): Promise<void> {
  await updateApplicationSettings(t.deps.db, changes, t.deps.now());
}
