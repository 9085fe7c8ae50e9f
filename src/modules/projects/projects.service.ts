// Writes of projects: create, update, archive, star, delete. Each owns its transaction, checks
// what the caller may do, and throws the platform's errors.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { groupAbilities } from '../../core/access/abilities.ts';
import { groupAccessLevel, refreshAuthorizations, usersAboveNamespace } from '../../core/access/authorizations.ts';
import { ACCESS, VISIBILITY, visibilityName } from '../../core/access/levels.ts';
import { type LoadedProject, groupSettings } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { type FieldErrors, apiError, errorList, forbidden, invalidFields } from '../../core/errors.ts';
import type { Config } from '../../config.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { validBranchName } from '../../git/args.ts';
import { hasBranches, resolveRef } from '../../git/refs.ts';
import {
  copyRepository,
  createRepository,
  deleteRepository,
  existingProjectRepository,
  placeRepository,
  projectRepositoryPath,
  repositoryPath,
  setDefaultBranch,
  stagingRepositoryPath,
} from '../../git/repository.ts';
import { DEFAULT_STORAGE, storageDirectory } from '../../git/storages.ts';
import { recordEvent } from '../events/event-recorder.ts';
import { fullPathTaken } from '../namespaces/namespace-paths.ts';
import { normalizeTopics } from './projects.finder.ts';
import type { CreateProjectBody, UpdateProjectBody } from './projects.schemas.ts';
import { FEATURE_COLUMNS, type Feature, type FeatureLevel, type ProjectSettings, parseSettings } from './projects.settings.ts';

export interface ServiceDeps {
  db: Kysely<DB>;
  config: Config;
  now: () => Date;
}

// ---- Validation -----------------------------------------------------------------------------------

// Letters, digits, emoji, '_', '.', dash and space; starting with a letter, digit, emoji or '_'.
const NAME = /^[\p{L}\p{M}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{M}\p{N}\p{Pd}\u{00A9}-\u{1F9FF}_. ]*$/u;
const NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
const PATH = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PATH_FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
/** Words the platform's project routes use after the project path. */
const RESERVED_PROJECT_PATHS = new Set([
  '-', 'badges', 'blame', 'blob', 'builds', 'commits', 'create', 'create_dir', 'edit', 'files', 'find_file', 'new', 'preview', 'raw', 'refs', 'tree', 'update', 'wikis',
]);

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function validateFields(fields: { name?: string; path?: string; description?: string }, errors: FieldErrors): void {
  if (fields.description !== undefined && fields.description.length > 2000) add(errors, 'description', 'is too long (maximum is 2000 characters)');
  if (fields.name !== undefined) {
    if (fields.name.trim() === '') add(errors, 'name', "can't be blank");
    else if (!NAME.test(fields.name)) add(errors, 'name', NAME_FORMAT);
    if (fields.name.length > 255) add(errors, 'name', 'is too long (maximum is 255 characters)');
  }
  if (fields.path !== undefined) {
    if (fields.path.trim() === '') add(errors, 'path', "can't be blank");
    else if (!PATH.test(fields.path) || /\.(git|atom)$/i.test(fields.path)) add(errors, 'path', PATH_FORMAT);
    else if (RESERVED_PROJECT_PATHS.has(fields.path.toLowerCase())) add(errors, 'path', `${fields.path} is a reserved name`);
    if (fields.path.length > 255) add(errors, 'path', 'is too long (maximum is 255 characters)');
  }
}

/**
 * Name and path must be free in the namespace, and the path may not be a subgroup's either (groups
 * refuse a project's path the same way).
 */
async function checkTaken(db: Kysely<DB>, namespace: NamespaceRow, fields: { name?: string; path?: string }, exceptId: number | null, errors: FieldErrors): Promise<void> {
  if (fields.name !== undefined && !errors.name) {
    let q = db.selectFrom('projects').select('id').where('namespace_id', '=', namespace.id).where(sql`lower(name)`, '=', fields.name.toLowerCase());
    if (exceptId !== null) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) add(errors, 'name', 'has already been taken');
  }
  if (fields.path !== undefined && !errors.path && (await fullPathTaken(db, `${namespace.full_path}/${fields.path}`, { projectId: exceptId ?? undefined }))) {
    add(errors, 'path', 'has already been taken');
  }
}

/** A project may not be more visible than its group. */
function checkVisibility(namespace: NamespaceRow, level: number, errors: FieldErrors): void {
  if (namespace.type === 'Group' && level > namespace.visibility_level) {
    add(errors, 'visibility_level', `${visibilityName(level)} is not allowed in a ${visibilityName(namespace.visibility_level)} group.`);
  }
}

/** Rails' String#parameterize: lower case, runs of other characters become one '-', none at the ends. */
export function parameterize(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9\-_]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

// ---- Settings from parameters -------------------------------------------------------------------

type SettingsInput = Partial<CreateProjectBody & UpdateProjectBody>;

const LEGACY_FEATURE_SWITCHES = {
  issues_enabled: 'issues',
  merge_requests_enabled: 'merge_requests',
  wiki_enabled: 'wiki',
  jobs_enabled: 'builds',
  snippets_enabled: 'snippets',
  container_registry_enabled: 'container_registry',
} as const;

const FEATURE_LEVEL_PARAMS = {
  issues_access_level: 'issues',
  repository_access_level: 'repository',
  merge_requests_access_level: 'merge_requests',
  forking_access_level: 'forking',
  wiki_access_level: 'wiki',
  builds_access_level: 'builds',
  snippets_access_level: 'snippets',
  pages_access_level: 'pages',
  operations_access_level: 'operations',
  analytics_access_level: 'analytics',
  container_registry_access_level: 'container_registry',
} as const;

const PLAIN_SETTINGS = [
  'resolve_outdated_diff_discussions',
  'service_desk_enabled',
  'emails_disabled',
  'show_default_award_emojis',
  'shared_runners_enabled',
  'lfs_enabled',
  'packages_enabled',
  'ci_default_git_depth',
  'ci_forward_deployment_enabled',
  'build_git_strategy',
  'build_timeout',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'ci_config_path',
  'only_allow_merge_if_pipeline_succeeds',
  'allow_merge_on_skipped_pipeline',
  'restrict_user_defined_variables',
  'request_access_enabled',
  'only_allow_merge_if_all_discussions_are_resolved',
  'remove_source_branch_after_merge',
  'printing_merge_request_link_enabled',
  'merge_method',
  'squash_option',
  'suggestion_commit_message',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'autoclose_referenced_issues',
  'keep_latest_artifact',
] as const satisfies readonly (keyof ProjectSettings & keyof SettingsInput)[];

/**
 * Applies the parameters to the stored settings and feature columns: legacy switches first
 * (on = 'enabled', off = 'disabled'), then explicit access levels, which win.
 */
function applySettings(settings: ProjectSettings, input: SettingsInput): { settings: ProjectSettings; columns: Partial<Record<(typeof FEATURE_COLUMNS)[keyof typeof FEATURE_COLUMNS], boolean>> } {
  const next: ProjectSettings = { ...settings, access_levels: { ...settings.access_levels } };
  const levels = new Map<Feature, FeatureLevel>();
  for (const [param, feature] of Object.entries(LEGACY_FEATURE_SWITCHES) as [keyof typeof LEGACY_FEATURE_SWITCHES, Feature][]) {
    const value = input[param];
    if (value !== undefined) levels.set(feature, value ? 'enabled' : 'disabled');
  }
  for (const [param, feature] of Object.entries(FEATURE_LEVEL_PARAMS) as [keyof typeof FEATURE_LEVEL_PARAMS, Feature][]) {
    const value = input[param];
    if (value !== undefined) levels.set(feature, value);
  }
  const columns: Partial<Record<(typeof FEATURE_COLUMNS)[keyof typeof FEATURE_COLUMNS], boolean>> = {};
  for (const [feature, level] of levels) {
    next.access_levels[feature] = level;
    const column = (FEATURE_COLUMNS as Partial<Record<Feature, (typeof FEATURE_COLUMNS)[keyof typeof FEATURE_COLUMNS]>>)[feature];
    if (column) columns[column] = level !== 'disabled';
  }
  const writable = next as unknown as Record<string, unknown>;
  for (const key of PLAIN_SETTINGS) if (input[key] !== undefined) writable[key] = input[key];
  if (input.public_builds !== undefined) next.public_builds = input.public_builds;
  return { settings: next, columns };
}

// ---- Repositories ----------------------------------------------------------------------------

/** The instance's name for a new repository's first branch. */
const DEFAULT_BRANCH = 'main';

/**
 * The repository wish of a new project: HEAD names the requested branch (main by default), which
 * a README.md commit starts with initialize_with_readme; without, the first push brings it.
 */
export function recordRepositoryInitialization(settings: ProjectSettings, input: { initialize_with_readme?: boolean; default_branch?: string }): { settings: ProjectSettings; headBranch: string } {
  const headBranch = input.default_branch || DEFAULT_BRANCH;
  if (!input.initialize_with_readme) return { settings, headBranch };
  return { settings: { ...settings, initialize_with_readme: true }, headBranch };
}

/** The platform's refusal of writes while a storage move copies the repository. */
export const REPOSITORY_READ_ONLY_MESSAGE = 'The repository is temporarily read-only. Please try again later.';

/**
 * The API answers a write to a read-only repository with 400 and the message, as the platform does
 * when its pre-receive check refuses an API commit; push code reports REPOSITORY_READ_ONLY_MESSAGE
 * in its own protocol.
 */
const repositoryReadOnly = () => apiError(400, REPOSITORY_READ_ONLY_MESSAGE);

/** Refuses a write to the project's repository while it is read-only. */
export function assertWritable(project: Pick<ProjectRow, 'repository_read_only'>): void {
  if (project.repository_read_only) throw repositoryReadOnly();
}

/** Whether the project's repository has this branch. */
export async function branchExists(config: Config, project: ProjectRow, branch: string): Promise<boolean> {
  const dir = existingProjectRepository(config.repositoryStorages, project);
  return dir !== null && validBranchName(branch) && (await resolveRef(dir, `refs/heads/${branch}`)) !== null;
}

/**
 * Brings projects.empty_repo up to date with the repository. Whatever creates or deletes branches
 * (pushes, the branch and commit APIs) calls this afterwards, so that lists never ask git.
 */
export async function refreshEmptyRepo(deps: ServiceDeps, project: ProjectRow): Promise<boolean> {
  const dir = existingProjectRepository(deps.config.repositoryStorages, project);
  const empty = dir === null || !(await hasBranches(dir));
  if (empty !== Boolean(project.empty_repo)) await deps.db.updateTable('projects').set({ empty_repo: empty }).where('id', '=', project.id).execute();
  return empty;
}

/** A storage name an administrator may pick: one that is configured. */
function checkStorage(config: Config, storage: string | undefined, errors: FieldErrors): void {
  if (storage !== undefined && storageDirectory(config.repositoryStorages, storage) === null) add(errors, 'repository_storage', 'is not included in the list');
}

/**
 * Moves the project's repository to another storage: read-only while it is copied, then the new
 * storage recorded and the original removed. The platform schedules this as a background storage
 * move; done at once here, callers see what they would once the move had finished.
 */
async function changeRepositoryStorage(deps: ServiceDeps, row: ProjectRow, storage: string): Promise<ProjectRow> {
  const { db, config } = deps;
  const from = storageDirectory(config.repositoryStorages, row.repository_storage);
  const to = storageDirectory(config.repositoryStorages, storage) as string;
  // Taking the flag is the lock: of two moves, or a move and a write, one is refused.
  const taken = await db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', row.id).where('repository_read_only', '=', false).executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 0) throw repositoryReadOnly();
  let copied = false;
  let moved: ProjectRow;
  try {
    copied = from !== null && (await copyRepository(row.id, from, to));
    moved = await db
      .updateTable('projects')
      .set({ repository_storage: storage, repository_read_only: false })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (copied) await deleteRepository(repositoryPath(to, row.id));
    await db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', row.id).execute();
    throw error;
  }
  if (copied) await deleteRepository(repositoryPath(from as string, row.id));
  return moved;
}

async function replaceTopics(db: Kysely<DB>, projectId: number, topics: readonly string[]): Promise<void> {
  await db.deleteFrom('project_topics').where('project_id', '=', projectId).execute();
  const names = normalizeTopics(topics);
  if (names.length > 0) await db.insertInto('project_topics').values(names.map((name, position) => ({ project_id: projectId, name, position }))).execute();
}

// ---- Create ----------------------------------------------------------------------------------

export interface CreateOptions {
  /** POST /projects/user/:user_id: the project is created as this user, in their namespace. */
  asUser?: UserRow;
}

/**
 * Whether the creator may create projects in the namespace: its owner (or an administrator) for
 * a personal one, create_projects for a group.
 */
async function mayCreateIn(deps: ServiceDeps, creator: { user: UserRow; isAdmin: boolean }, namespace: NamespaceRow): Promise<boolean> {
  if (namespace.type === 'User') return namespace.owner_id === creator.user.id || creator.isAdmin;
  const access = await groupAccessLevel(deps.db, creator.user.id, namespace.traversal_path, deps.now());
  return groupAbilities(creator, { visibility_level: namespace.visibility_level, ...groupSettings(namespace) }, access, false).has('create_projects');
}

/** Personal projects beyond the creator's projects_limit are refused with the platform's messages. */
async function limitReached(db: Kysely<DB>, creator: UserRow): Promise<string | null> {
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('namespace_id', 'in', (eb) => eb.selectFrom('namespaces').select('id').where('type', '=', 'User').where('owner_id', '=', creator.id))
    .executeTakeFirstOrThrow();
  if (creator.projects_limit - Number(row.n) > 0) return null;
  return creator.projects_limit === 0
    ? 'Personal project creation is not allowed. Please contact your administrator with questions'
    : `Your project limit is ${creator.projects_limit} projects! Please contact your administrator to increase it`;
}

/** POST /projects and POST /projects/user/:user_id. */
export async function createProject(deps: ServiceDeps, actor: Actor, input: CreateProjectBody, options: CreateOptions = {}): Promise<ProjectRow> {
  const { db } = deps;
  const creator = options.asUser ?? actor.user;
  const name = input.name ?? input.path ?? '';
  const path = input.path ?? parameterize(input.name ?? '');
  const errors: FieldErrors = {};
  validateFields({ name, path, description: input.description }, errors);

  const namespace =
    input.namespace_id !== undefined
      ? await db.selectFrom('namespaces').selectAll().where('id', '=', input.namespace_id).executeTakeFirst()
      : await db.selectFrom('namespaces').selectAll().where('type', '=', 'User').where('owner_id', '=', creator.id).executeTakeFirst();
  if (!namespace || !(await mayCreateIn(deps, options.asUser ? { user: creator, isAdmin: Boolean(creator.admin) } : actor, namespace))) {
    add(errors, 'namespace', 'is not valid');
  } else {
    await checkTaken(db, namespace, { name, path }, null, errors);
    if (namespace.type === 'User') {
      const limit = await limitReached(db, creator);
      // POST /projects answers a reached limit with Grape's error! and an array; the admin route renders it as a field.
      if (limit && !options.asUser) throw errorList([limit], 403);
      if (limit) add(errors, 'limit_reached', limit);
    }
  }
  const visibilityLevel = VISIBILITY[input.visibility ?? 'private'];
  if (namespace) checkVisibility(namespace, visibilityLevel, errors);
  const storage = (actor.isAdmin && input.repository_storage) || DEFAULT_STORAGE;
  checkStorage(deps.config, storage, errors);
  if (input.default_branch && !validBranchName(input.default_branch)) add(errors, 'default_branch', 'is invalid');
  if (Object.keys(errors).length > 0 || !namespace) throw invalidFields(errors);

  const applied = applySettings(parseSettings('{}'), input);
  const repository = recordRepositoryInitialization(applied.settings, input);
  const now = deps.now();
  const at = now.toISOString();
  // The repository is built aside first and placed once the project's row (and so its id) exists,
  // as the last step of the transaction: no git process runs inside it, a git failure leaves no
  // row, and a failed transaction removes what was built.
  const storageDir = storageDirectory(deps.config.repositoryStorages, storage) as string;
  const staging = stagingRepositoryPath(storageDir);
  const author = { name: creator.name, email: creator.commit_email || creator.email };
  const readme = input.initialize_with_readme
    ? { content: `# ${name}\n\n${input.description ?? ''}`, message: 'Initial commit', author, date: now }
    : undefined;
  await createRepository(staging, { defaultBranch: repository.headBranch, readme });
  let placed: string | null = null;
  try {
    return await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('projects')
        .values({
          namespace_id: namespace.id,
          name,
          path,
          full_path: `${namespace.full_path}/${path}`,
          name_with_namespace: `${namespace.full_name} / ${name}`,
          description: input.description ?? '',
          visibility_level: visibilityLevel,
          creator_id: creator.id,
          // As before any push: the README commit, when there is one, is recorded as the first push
          // once the project exists (pushes/push.service.ts recordInitialCommit).
          default_branch: null,
          archived: false,
          issues_enabled: applied.columns.issues_enabled ?? true,
          merge_requests_enabled: applied.columns.merge_requests_enabled ?? true,
          jobs_enabled: applied.columns.jobs_enabled ?? true,
          wiki_enabled: applied.columns.wiki_enabled ?? true,
          snippets_enabled: applied.columns.snippets_enabled ?? true,
          settings: JSON.stringify(repository.settings),
          repository_storage: storage,
          empty_repo: true,
          runners_token: randomBytes(10).toString('hex'),
          import_status: 'none',
          star_count: 0,
          created_at: at,
          updated_at: at,
          last_activity_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.insertInto('project_statistics').values({ project_id: inserted.id }).execute();
      await replaceTopics(trx, inserted.id, input.topics ?? input.tag_list ?? []);
      // The owner of a personal namespace becomes the project's Maintainer; group projects inherit the group's members.
      if (namespace.type === 'User' && namespace.owner_id !== null) {
        await trx
          .insertInto('members')
          .values({
            source_type: 'Project',
            source_id: inserted.id,
            user_id: namespace.owner_id,
            access_level: ACCESS.MAINTAINER,
            expires_at: null,
            created_by_id: actor.user.id,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
      await refreshAuthorizations(trx, await usersAboveNamespace(trx, namespace), now);
      await recordEvent(trx, { projectId: inserted.id, authorId: creator.id, action: 'created' }, now);
      const row = await trx.selectFrom('projects').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
      const target = repositoryPath(storageDir, inserted.id);
      await placeRepository(staging, target);
      placed = target;
      return row;
    });
  } catch (error) {
    await deleteRepository(placed ?? staging);
    // Two creations racing for one path: the loser sees the validation message a later request would.
    if (isUniqueViolation(error)) {
      const raced: FieldErrors = {};
      await checkTaken(db, namespace, { name, path }, null, raced);
      throw invalidFields(Object.keys(raced).length > 0 ? raced : { path: ['has already been taken'] });
    }
    throw error;
  }
}

// ---- Update ----------------------------------------------------------------------------------

/** PUT /projects/:id. Renames need rename_project, visibility changes change_visibility_level. */
export async function updateProject(deps: ServiceDeps, actor: Actor, project: Pick<LoadedProject, 'row' | 'namespace' | 'can'>, input: UpdateProjectBody): Promise<ProjectRow> {
  const { db } = deps;
  const { row, namespace } = project;
  if (input.name !== undefined && input.name !== '' && !project.can.has('rename_project')) throw forbidden();
  if (input.visibility !== undefined && !project.can.has('change_visibility_level')) throw forbidden();

  const errors: FieldErrors = {};
  validateFields({ name: input.name, path: input.path, description: input.description }, errors);
  await checkTaken(db, namespace, { name: input.name === row.name ? undefined : input.name, path: input.path === row.path ? undefined : input.path }, row.id, errors);
  const visibilityLevel = input.visibility !== undefined ? VISIBILITY[input.visibility] : row.visibility_level;
  if (input.visibility !== undefined) checkVisibility(namespace, visibilityLevel, errors);
  const storage = actor.isAdmin ? input.repository_storage : undefined;
  checkStorage(deps.config, storage, errors);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const newDefaultBranch = input.default_branch !== undefined && input.default_branch !== row.default_branch ? input.default_branch : null;
  if (newDefaultBranch !== null) {
    if (!(await branchExists(deps.config, row, newDefaultBranch))) {
      throw invalidFields({ base: [`Could not change HEAD: branch '${newDefaultBranch}' does not exist`] });
    }
    assertWritable(row);
  }
  const current = storage !== undefined && storage !== row.repository_storage ? await changeRepositoryStorage(deps, row, storage) : row;

  const applied = applySettings(parseSettings(row.settings), input);
  const name = input.name ?? row.name;
  const path = input.path ?? row.path;
  const now = deps.now().toISOString();
  try {
    return await db.transaction().execute(async (trx) => {
      let update = trx
        .updateTable('projects')
        .set({
          name,
          path,
          full_path: `${namespace.full_path}/${path}`,
          name_with_namespace: `${namespace.full_name} / ${name}`,
          ...(input.description !== undefined ? { description: input.description } : {}),
          visibility_level: visibilityLevel,
          ...applied.columns,
          settings: JSON.stringify(applied.settings),
          ...(newDefaultBranch !== null ? { default_branch: newDefaultBranch } : {}),
          updated_at: now,
        })
        .where('id', '=', row.id);
      // A storage move may have made the repository read-only since the project was loaded.
      if (newDefaultBranch !== null) update = update.where('repository_read_only', '=', false);
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) throw repositoryReadOnly();
      const topics = input.topics ?? input.tag_list;
      if (topics !== undefined) await replaceTopics(trx, row.id, topics);
      // Last, so that a refusal from git undoes the row's change.
      const dir = newDefaultBranch !== null ? existingProjectRepository(deps.config.repositoryStorages, current) : null;
      if (dir !== null) await setDefaultBranch(dir, newDefaultBranch as string);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ path: ['has already been taken'] });
    throw error;
  }
}

// ---- Archive, star, delete --------------------------------------------------------------------

export async function setArchived(deps: ServiceDeps, row: ProjectRow, archived: boolean): Promise<ProjectRow> {
  return deps.db
    .updateTable('projects')
    .set({ archived, updated_at: deps.now().toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Stars the project for the user; false when it was already starred. */
export async function starProject(deps: ServiceDeps, userId: number, projectId: number): Promise<boolean> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('users_star_projects').select('user_id').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst();
      if (existing) return false;
      await trx.insertInto('users_star_projects').values({ user_id: userId, project_id: projectId, created_at: deps.now().toISOString() }).execute();
      await trx.updateTable('projects').set({ star_count: sql`star_count + 1` }).where('id', '=', projectId).execute();
      return true;
    });
  } catch (error) {
    // A concurrent star of the same project by the same user won the race.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** Unstars the project for the user; false when it was not starred. */
export async function unstarProject(deps: ServiceDeps, userId: number, projectId: number): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom('users_star_projects').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.updateTable('projects').set({ star_count: sql`star_count - 1` }).where('id', '=', projectId).execute();
    return true;
  });
}

/**
 * DELETE /projects/:id. The platform marks the project pending deletion and removes it in the
 * background; here the rows go at once (everything that hangs off a project cascades), and then
 * the repository, which is what callers observe once the background removal has run. A repository
 * left behind by a failure here is an orphan no project reaches (ids are not handed out again).
 */
export async function deleteProject(deps: ServiceDeps, row: ProjectRow): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('members').where('source_type', '=', 'Project').where('source_id', '=', row.id).execute();
    await trx.deleteFrom('projects').where('id', '=', row.id).execute();
  });
  const dir = projectRepositoryPath(deps.config.repositoryStorages, row);
  if (dir !== null) await deleteRepository(dir);
}
