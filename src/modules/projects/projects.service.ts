// Writes of projects: create, update, archive, star, delete. Each owns its transaction, checks
// what the caller may do, and throws the platform's errors.
import { randomBytes } from 'node:crypto';
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import { type Kysely, sql } from 'kysely';
import { groupAbilities, groupSubject } from '../../core/access/abilities.ts';
import { groupAccessLevel, lockAuthorizationsOf, refreshAuthorizations, usersAboveNamespace } from '../../core/access/authorizations.ts';
import { ACCESS, VISIBILITY, visibilityName } from '../../core/access/levels.ts';
import type { LoadedProject } from '../../core/access/loaders.ts';
import { DomainError, type FieldErrors, errorList, forbidden, invalidFields } from '../../core/errors.ts';
import type { Config } from '../../config.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { ZERO_OID, validBranchName } from '../../git/args.ts';
import { enqueue, runNow } from '../../jobs/queue.ts';
import {
  createRepository,
  deleteRepository,
  existingProjectRepository,
  placeNewRepository,
  repositoryPath,
  setDefaultBranch,
  stagingRepositoryPath,
} from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import { digest } from '../../core/auth/secrets.ts';
import { secretBox } from '../../core/secret-box.ts';
import { chooseRepositoryStorage, type ApplicationSettings, applicationSettings, defaultBranchName, restrictedVisibility } from '../../domain/settings/application-settings.ts';
import {
  type Feature,
  PROJECT_CI_CD_SETTINGS,
  PROJECT_FEATURES,
  PROJECT_SETTINGS,
  type ProjectFeatures,
  type ProjectSettingChanges,
  type ProjectSettingValues,
  featureSetting,
  insertProjectSettings,
  newProjectFeatures,
  updateProjectSettings,
} from '../../domain/settings/project-settings.ts';
import { fullPathTaken } from '../../domain/namespace-paths.ts';
import { removeSnippets } from '../../domain/snippet-repositories.ts';
import { assertWritable, branchExists, repositoryReadOnly } from '../../domain/project-repository.ts';
import { BLANK, NOT_INCLUDED, TAKEN, addError as add, tooLong } from '../../domain/validation.ts';
import { recordEvent } from '../events/events.service.ts';
import { refsUpdatedJob } from '../pushes/push.service.ts';
import { projectArtifactsDir } from '../../storage/artifact-paths.ts';
import { removeArtifactFilesLater, removePackageFilesLater, removeUploadFilesLater } from '../../storage/deferred-removal.ts';
import { removeRepositoryJob } from './projects.jobs.ts';
import { scheduleProjectStorageMove } from './project-storage-moves.service.ts';
import { normalizeTopics } from './projects.finder.ts';
import type { CreateProjectBody, UpdateProjectBody } from './projects.schemas.ts';


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

function validateFields(fields: { name?: string; path?: string; description?: string }, errors: FieldErrors): void {
  if (fields.description !== undefined && fields.description.length > 2000) add(errors, 'description', tooLong(2000));
  if (fields.name !== undefined) {
    if (fields.name.trim() === '') add(errors, 'name', BLANK);
    else if (!NAME.test(fields.name)) add(errors, 'name', NAME_FORMAT);
    if (fields.name.length > 255) add(errors, 'name', tooLong(255));
  }
  if (fields.path !== undefined) {
    if (fields.path.trim() === '') add(errors, 'path', BLANK);
    else if (!PATH.test(fields.path) || /\.(git|atom)$/i.test(fields.path)) add(errors, 'path', PATH_FORMAT);
    else if (RESERVED_PROJECT_PATHS.has(fields.path.toLowerCase())) add(errors, 'path', `${fields.path} is a reserved name`);
    if (fields.path.length > 255) add(errors, 'path', tooLong(255));
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
    if (await q.executeTakeFirst()) add(errors, 'name', TAKEN);
  }
  if (fields.path !== undefined && !errors.path && (await fullPathTaken(db, `${namespace.full_path}/${fields.path}`, { projectId: exceptId ?? undefined }))) {
    add(errors, 'path', TAKEN);
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

/** The features' former switches. */
const LEGACY_FEATURE_SWITCHES = {
  issues_enabled: 'issues',
  merge_requests_enabled: 'merge_requests',
  wiki_enabled: 'wiki',
  jobs_enabled: 'builds',
  snippets_enabled: 'snippets',
  container_registry_enabled: 'container_registry',
} as const satisfies Partial<Record<keyof SettingsInput, Feature>>;

/**
 * The settings the parameters change: a legacy switch first (on = 'enabled', off = 'disabled'),
 * then the declared settings, so that an explicit access level wins.
 */
function settingChanges(input: SettingsInput, route: 'create' | 'update'): Required<ProjectSettingChanges> {
  const features: Partial<ProjectFeatures> = {};
  for (const [param, feature] of Object.entries(LEGACY_FEATURE_SWITCHES) as [keyof typeof LEGACY_FEATURE_SWITCHES, Feature][]) {
    const value = input[param];
    if (value !== undefined) features[featureSetting(feature)] = value ? 'enabled' : 'disabled';
  }
  Object.assign(features, PROJECT_FEATURES.fromParams(input, route));
  return { features, ciCd: PROJECT_CI_CD_SETTINGS.fromParams(input, route), settings: PROJECT_SETTINGS.fromParams(input, route) };
}

/** A new project's settings: the declared defaults, what the instance sets for new projects, then the parameters. */
function newProjectSettings(instance: ApplicationSettings, visibilityLevel: number, changes: Required<ProjectSettingChanges>): ProjectSettingValues {
  return {
    features: { ...newProjectFeatures(visibilityLevel), ...changes.features },
    ciCd: {
      ...PROJECT_CI_CD_SETTINGS.defaults,
      shared_runners_enabled: instance.shared_runners_enabled,
      // Copied, as the platform does: changing the instance's later leaves existing projects alone.
      ci_config_path: instance.default_ci_config_path || null,
      ...changes.ciCd,
    },
    settings: { ...PROJECT_SETTINGS.defaults, ...changes.settings },
  };
}

/** A new runners registration token: 20 hexadecimal characters, kept encrypted beside its digest. */
export function newRunnersToken(config: Pick<Config, 'dataDir'>): { runners_token_encrypted: string; runners_token_digest: string } {
  const token = randomBytes(10).toString('hex');
  return { runners_token_encrypted: secretBox(config.dataDir).seal(token), runners_token_digest: digest(token) };
}

// ---- Repositories ----------------------------------------------------------------------------

/** A storage name an administrator may pick: one that is configured. */
function checkStorage(config: Config, storage: string | undefined, errors: FieldErrors): void {
  if (storage !== undefined && storageDirectory(config.repositoryStorages, storage) === null) add(errors, 'repository_storage', NOT_INCLUDED);
}

async function replaceTopics(db: Kysely<DB>, projectId: number, topics: readonly string[]): Promise<void> {
  await db.deleteFrom('project_topics').where('project_id', '=', projectId).execute();
  const names = normalizeTopics(topics);
  if (names.length > 0) await db.insertInto('project_topics').values(names.map((name, position) => ({ project_id: projectId, name, position }))).execute();
}

// ---- Create ----------------------------------------------------------------------------------

export interface CreateOptions {
  /**
   * POST /projects/user/:user_id: the project is created as this user, in their namespace (the
   * actor, an administrator, is not its creator).
   */
  asUser?: UserRow;
}

/**
 * Whether the creator may create projects in the namespace: its owner (or an administrator) for
 * a personal one, create_projects for a group.
 */
async function mayCreateIn(ctx: ServiceContext, creator: { user: UserRow; isAdmin: boolean }, namespace: NamespaceRow): Promise<boolean> {
  if (namespace.type === 'User') return namespace.owner_id === creator.user.id || creator.isAdmin;
  const access = await groupAccessLevel(ctx.db, creator.user.id, namespace.traversal_path, ctx.now());
  return groupAbilities(creator, groupSubject(namespace), access, false).has('create_projects');
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
export async function createProject(ctx: ServiceContext, input: CreateProjectBody, options: CreateOptions = {}): Promise<ProjectRow> {
  const { db } = ctx;
  const actor = requireActor(ctx);
  const creator = options.asUser ?? actor.user;
  const name = input.name ?? input.path ?? '';
  const path = input.path ?? parameterize(input.name ?? '');
  // A level the instance restricts is refused before anything else, with that reason alone.
  const instance = await applicationSettings(db);
  const visibilityLevel = VISIBILITY[input.visibility ?? instance.default_project_visibility];
  const restricted = restrictedVisibility(instance, visibilityLevel, actor.isAdmin);
  if (restricted) throw invalidFields({ visibility_level: [restricted] });
  const errors: FieldErrors = {};
  validateFields({ name, path, description: input.description }, errors);

  const namespace =
    input.namespace_id !== undefined
      ? await db.selectFrom('namespaces').selectAll().where('id', '=', input.namespace_id).executeTakeFirst()
      : await db.selectFrom('namespaces').selectAll().where('type', '=', 'User').where('owner_id', '=', creator.id).executeTakeFirst();
  if (!namespace || !(await mayCreateIn(ctx, options.asUser ? { user: creator, isAdmin: creator.admin } : actor, namespace))) {
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
  if (namespace) checkVisibility(namespace, visibilityLevel, errors);
  // An administrator may name the storage; otherwise the instance's weights choose it.
  const storage = (actor.isAdmin && input.repository_storage) || chooseRepositoryStorage(instance, Object.keys(ctx.config.repositoryStorages));
  checkStorage(ctx.config, storage, errors);
  if (input.default_branch && !validBranchName(input.default_branch)) add(errors, 'default_branch', 'is invalid');
  if (Object.keys(errors).length > 0 || !namespace) throw invalidFields(errors);

  const settings = newProjectSettings(instance, visibilityLevel, settingChanges(input, 'create'));
  // HEAD names the requested branch, else the instance's default; a README commit starts it.
  const headBranch = input.default_branch || defaultBranchName(instance);
  const now = ctx.now();
  const at = now.toISOString();
  // The repository is built aside first and placed once the project's row (and so its id) exists,
  // as the last step of the transaction: no git process runs inside it, a git failure leaves no
  // row, and a failed transaction removes what was built.
  const storageDir = storageDirectory(ctx.config.repositoryStorages, storage) as string;
  const staging = stagingRepositoryPath(storageDir);
  const author = { name: creator.name, email: creator.commit_email || creator.email };
  const readme = input.initialize_with_readme
    ? { content: `# ${name}\n\n${input.description ?? ''}`, message: 'Initial commit', author, date: now }
    : undefined;
  const readmeCommit = await createRepository(staging, { defaultBranch: headBranch, readme });
  let placed: string | null = null;
  let followUp: number | null = null;
  let row: ProjectRow;
  try {
    row = await withTransaction(atTime(ctx, now), async (tx) => {
      const trx = tx.db;
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
          // With a README commit the project has its branch from the start; the rest of a first
          // push (event, protection) is the refs.updated job enqueued below.
          default_branch: readmeCommit !== null ? headBranch : null,
          archived: false,
          repository_storage: storage,
          empty_repo: readmeCommit === null,
          ...newRunnersToken(ctx.config),
          import_status: 'none',
          star_count: 0,
          created_at: at,
          updated_at: at,
          last_activity_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.insertInto('project_statistics').values({ project_id: inserted.id }).execute();
      await insertProjectSettings(trx, inserted.id, settings);
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
      await recordEvent(tx, { projectId: inserted.id, authorId: creator.id, action: 'created' });
      if (readmeCommit !== null) {
        const update = { ref: `refs/heads/${headBranch}`, before: ZERO_OID, after: readmeCommit };
        followUp = await enqueue(trx, refsUpdatedJob, { projectId: inserted.id, userId: creator.id, updates: [update], firstPush: true }, { runHere: true });
      }
      const created = await trx.selectFrom('projects').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
      const target = repositoryPath(storageDir, inserted.id);
      await placeNewRepository(staging, target);
      placed = target;
      return created;
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
  // The README commit counts as the creator's first push. The project is committed by now, with its
  // repository: whatever happens to this follow-up (a worker runs it if it is not run here), both stay.
  if (followUp === null) return row;
  await runNow(ctx, refsUpdatedJob, followUp);
  return (await db.selectFrom('projects').selectAll().where('id', '=', row.id).executeTakeFirst()) ?? row;
}

// ---- Update ----------------------------------------------------------------------------------

/** PUT /projects/:id. Renames need rename_project, visibility changes change_visibility_level. */
export async function updateProject(ctx: ServiceContext, project: Pick<LoadedProject, 'row' | 'namespace' | 'can'>, input: UpdateProjectBody): Promise<ProjectRow> {
  const { db } = ctx;
  const actor = requireActor(ctx);
  const { row, namespace } = project;
  if (input.name !== undefined && input.name !== '' && !project.can.has('rename_project')) throw forbidden();
  if (input.visibility !== undefined && !project.can.has('change_visibility_level')) throw forbidden();

  const errors: FieldErrors = {};
  validateFields({ name: input.name, path: input.path, description: input.description }, errors);
  await checkTaken(db, namespace, { name: input.name === row.name ? undefined : input.name, path: input.path === row.path ? undefined : input.path }, row.id, errors);
  const visibilityLevel = input.visibility !== undefined ? VISIBILITY[input.visibility] : row.visibility_level;
  if (visibilityLevel !== row.visibility_level) {
    const restricted = restrictedVisibility(await applicationSettings(db), visibilityLevel, actor.isAdmin);
    if (restricted) throw invalidFields({ visibility_level: [restricted] });
  }
  if (input.visibility !== undefined) checkVisibility(namespace, visibilityLevel, errors);
  const storage = actor.isAdmin ? input.repository_storage : undefined;
  checkStorage(ctx.config, storage, errors);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const newDefaultBranch = input.default_branch !== undefined && input.default_branch !== row.default_branch ? input.default_branch : null;
  if (newDefaultBranch !== null) {
    if (!(await branchExists(ctx.config, row, newDefaultBranch))) {
      throw invalidFields({ base: [`Could not change HEAD: branch '${newDefaultBranch}' does not exist`] });
    }
    assertWritable(row);
  }
  const moveTo = storage !== undefined && storage !== row.repository_storage ? storage : null;
  if (moveTo !== null) assertWritable(row);

  const changes = settingChanges(input, 'update');
  const name = input.name ?? row.name;
  const path = input.path ?? row.path;
  const now = ctx.now().toISOString();
  try {
    return await withTransaction(ctx, async (tx) => {
      const trx = tx.db;
      // First: it renews the settings revision, which the row returned below must carry.
      await updateProjectSettings(trx, row.id, changes);
      let update = trx
        .updateTable('projects')
        .set({
          name,
          path,
          full_path: `${namespace.full_path}/${path}`,
          name_with_namespace: `${namespace.full_name} / ${name}`,
          ...(input.description !== undefined ? { description: input.description } : {}),
          visibility_level: visibilityLevel,
          ...(newDefaultBranch !== null ? { default_branch: newDefaultBranch } : {}),
          updated_at: now,
        })
        .where('id', '=', row.id);
      // A storage move may have made the repository read-only (or moved it) since the project was
      // loaded; the row stays locked until HEAD is written, so a move scheduled meanwhile waits.
      if (newDefaultBranch !== null) update = update.where('repository_read_only', '=', false).where('repository_storage', '=', row.repository_storage);
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) throw repositoryReadOnly();
      const topics = input.topics ?? input.tag_list;
      if (topics !== undefined) await replaceTopics(trx, row.id, topics);
      // The platform schedules a storage move: the project answers from its old storage, read-only
      // until the move job has copied the repository.
      if (moveTo !== null) await scheduleProjectStorageMove(tx, row.id, moveTo).catch((error: unknown) => {
        throw error instanceof DomainError && error.status === 400 ? repositoryReadOnly() : error;
      });
      // Last, so that a refusal from git undoes the row's change.
      const dir = newDefaultBranch !== null ? existingProjectRepository(ctx.config.repositoryStorages, row) : null;
      if (dir !== null) await setDefaultBranch(dir, newDefaultBranch as string);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ path: [TAKEN] });
    throw error;
  }
}

// ---- Archive, star, delete --------------------------------------------------------------------

export async function setArchived(ctx: ServiceContext, row: ProjectRow, archived: boolean): Promise<ProjectRow> {
  return ctx.db
    .updateTable('projects')
    .set({ archived, updated_at: ctx.now().toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Stars the project for the actor; false when it was already starred. */
export async function starProject(ctx: ServiceContext, projectId: number): Promise<boolean> {
  const userId = requireActor(ctx).user.id;
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const existing = await trx.selectFrom('users_star_projects').select('user_id').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst();
      if (existing) return false;
      await trx.insertInto('users_star_projects').values({ user_id: userId, project_id: projectId, created_at: ctx.now().toISOString() }).execute();
      await trx.updateTable('projects').set({ star_count: sql`star_count + 1` }).where('id', '=', projectId).execute();
      return true;
    });
  } catch (error) {
    // A concurrent star of the same project by the same user won the race.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** Unstars the project for the actor; false when it was not starred. */
export async function unstarProject(ctx: ServiceContext, projectId: number): Promise<boolean> {
  const userId = requireActor(ctx).user.id;
  return withTransaction(ctx, async ({ db: trx }) => {
    const result = await trx.deleteFrom('users_star_projects').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.updateTable('projects').set({ star_count: sql`star_count - 1` }).where('id', '=', projectId).execute();
    return true;
  });
}

/**
 * DELETE /projects/:id. The platform marks the project pending deletion and removes it in the
 * background; here the rows go at once (everything that hangs off a project cascades), and the
 * removal of its repository, its job artifacts, packages and uploads is enqueued in the same transaction, so that
 * it happens even if the server stops now (ids are not handed out again, so nothing can take its
 * place meanwhile).
 */
export async function deleteProject(ctx: ServiceContext, row: ProjectRow): Promise<void> {
  await withTransaction(ctx, async ({ db }) => {
    // Its authorization rows go with it: in step with the writers that refresh those users' rows.
    const authorized = await db.selectFrom('project_authorizations').select('user_id').where('project_id', '=', row.id).execute();
    await lockAuthorizationsOf(db, authorized.map((a) => Number(a.user_id)));
    await db.deleteFrom('members').where('source_type', '=', 'Project').where('source_id', '=', row.id).execute();
    await removeSnippets(db, { projectId: row.id });
    await db.deleteFrom('projects').where('id', '=', row.id).execute();
    await enqueue(db, removeRepositoryJob, { projectId: row.id, storage: row.repository_storage });
    await removeArtifactFilesLater(db, [projectArtifactsDir(row.id)]);
    await removePackageFilesLater(db, [projectArtifactsDir(row.id)]);
    await removeUploadFilesLater(db, [String(row.id)]);
  });
}
