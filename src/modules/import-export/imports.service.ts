// Project imports from export archives (spec Part 2 §4.10; the platform's
// Import::GitlabProjects services, ProjectImportState and Gitlab::ImportExport::Importer).
//
// A request creates the project (private until its archive says otherwise), records its import
// as scheduled with the archive kept beside the project's files, and enqueues the import job in
// the same transaction. The job reads the archive into scratch under the rules of archive.ts,
// checks its VERSION and tree, verifies and fetches the repository's bundle into a repository
// built aside, then restores the tree in one transaction that copies in the archive's uploads and
// whose last step puts the repository in place: a failure anywhere leaves the project as it was
// created, empty (uploads copied in are removed again), with import_status `failed` and the
// reason in import_error; scratch is removed whatever happened. With `overwrite`, the project is
// imported beside the one at the path and takes its place once done.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type TSchema, Type } from '@sinclair/typebox';
import { groupAccessLevel, refreshAuthorizations } from '../../core/access/authorizations.ts';
import { type ProjectAbility, groupAbilities, groupSubject } from '../../core/access/abilities.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { DomainError, apiError, notFound } from '../../core/errors.ts';
import { OutboundError, checkedRequest } from '../../core/outbound-http.ts';
import { parseParams } from '../../core/params.ts';
import type { NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { updateProjectSettings } from '../../domain/settings/project-settings.ts';
import { bundleHeads, fetchBundle, verifyBundle } from '../../git/bundle.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { createRepository, deleteRepository, placeRepository, setDefaultBranch, stagingRepositoryPath } from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { projectArtifactsDir } from '../../storage/artifact-paths.ts';
import { type StagedFile, artifactsStorage } from '../../storage/file-storage.ts';
import { refreshStatisticsLater } from '../pushes/repository-statistics.jobs.ts';
import { createProject, deleteProject, updateProject } from '../projects/projects.service.ts';
import { addImportedUploads, removeImportedUploads } from '../uploads/uploads.service.ts';
import { UpdateProjectBody } from '../projects/projects.schemas.ts';
import { ArchiveError, extractArchive } from './archive.ts';
import { EXPORT_VERSION, newScratch } from './exports.service.ts';
import { readAttributes } from './ndjson.ts';
import { readSingleRelations, restoreProjectTree } from './tree-restorer.ts';
import { readUploads } from './uploads-dir.ts';

const ImportPayload = Type.Object({ projectId: Type.Integer() }, { additionalProperties: false });
export const PROJECT_IMPORT: JobDeclaration<typeof ImportPayload> = { name: 'project.import', payload: ImportPayload, maxAttempts: 1 };

/** Remote archives are limited to 10 GB (Import::GitlabProjects::RemoteFileValidator). */
export const REMOTE_FILE_LIMIT = 10 * 1024 ** 3;
const REMOTE_TIMEOUT_MS = 60 * 60 * 1000;

export interface ImportRequest {
  path: string;
  name?: string;
  /** An id or a full path; the importer's own namespace when absent. */
  namespace?: string;
  overwrite: boolean;
  overrideParams: Record<string, unknown>;
}

export type ImportSource = { upload: StagedFile } | { url: string };

/** The first of a model's messages in full ("Path has already been taken"), as the import API answers them. */
function firstFullMessage(error: DomainError): string {
  const fields = error.fields;
  if (fields && !Array.isArray(fields)) {
    const [field, messages] = Object.entries(fields as Record<string, string[] | string>)[0] ?? [];
    if (field !== undefined) {
      const message = Array.isArray(messages) ? messages[0] : messages;
      return field === 'base' ? message : `${field[0].toUpperCase()}${field.slice(1).replaceAll('_', ' ')} ${message}`;
    }
  }
  return error.message;
}

async function findNamespace(ctx: ServiceContext, ref: string | undefined, user: UserRow): Promise<NamespaceRow | undefined> {
  const q = ctx.db.selectFrom('namespaces').selectAll();
  if (ref === undefined || ref === '') return q.where('type', '=', 'User').where('owner_id', '=', user.id).executeTakeFirst();
  if (/^\d+$/.test(ref)) return q.where('id', '=', Number(ref)).executeTakeFirst();
  return q.where((eb) => eb(eb.fn('lower', ['full_path']), '=', ref.toLowerCase())).executeTakeFirst();
}

/** Whether the user administers the namespace (admin_namespace): its owner, or a group's Owner. */
async function administers(ctx: ServiceContext, user: UserRow, namespace: NamespaceRow): Promise<boolean> {
  if (user.admin) return true;
  if (namespace.type === 'User') return namespace.owner_id === user.id;
  const access = await groupAccessLevel(ctx.db, user.id, namespace.traversal_path, ctx.now());
  return groupAbilities(actingUser(user), groupSubject(namespace), access, false).has('admin_namespace');
}

/** The override parameters the project accepts (the others are dropped, as the platform drops them). */
export function cleanOverrideParams(raw: unknown): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: Record<string, unknown> = {};
  const properties = UpdateProjectBody.properties as Record<string, TSchema>;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'name' || key === 'path' || key === 'default_branch' || key === 'repository_storage') continue;
    const schema = properties[key];
    if (!schema) continue;
    try {
      const parsed = parseParams(Type.Object({ [key]: schema }), { [key]: value }) as Record<string, unknown>;
      if (parsed[key] !== undefined) out[key] = parsed[key];
    } catch {
      // A value the project would refuse is dropped, as an unknown key is.
    }
  }
  return out;
}

/** POST /projects/import and /projects/remote-import: creates the project and schedules its import. */
export async function scheduleImport(ctx: ServiceContext, request: ImportRequest, source: ImportSource): Promise<ProjectRow> {
  const actor = requireActor(ctx);
  const namespace = await findNamespace(ctx, request.namespace, actor.user);
  if (!namespace) throw notFound('Namespace');
  const taken = await ctx.db
    .selectFrom('projects')
    .select('id')
    .where('namespace_id', '=', namespace.id)
    .where((eb) => eb(eb.fn('lower', ['path']), '=', request.path.toLowerCase()))
    .executeTakeFirst();
  const overwriting = taken !== undefined && request.overwrite;
  // With overwrite the project is made beside the one it replaces, under a name and path of its own until then.
  const suffix = overwriting ? `-${randomBytes(5).toString('hex')}` : '';
  const name = request.name || request.path;
  let project: ProjectRow;
  try {
    project = await createProject(ctx, {
      name: `${name}${suffix}`,
      path: `${request.path}${suffix}`,
      namespace_id: namespace.id,
      visibility: 'private',
    });
  } catch (error) {
    if (!(error instanceof DomainError) || error.status !== 400 || !error.fields || Array.isArray(error.fields)) throw error;
    if ('namespace' in error.fields) throw notFound('Namespace');
    throw apiError(400, firstFullMessage(error));
  }
  const file = 'upload' in source ? `${projectArtifactsDir(project.id)}/import/${randomBytes(8).toString('hex')}.tar.gz` : null;
  try {
    if ('upload' in source && file) await source.upload.keep(file);
    const at = ctx.now().toISOString();
    await withTransaction(ctx, async ({ db }) => {
      await db
        .insertInto('project_import_states')
        .values({
          project_id: project.id,
          user_id: actor.user.id,
          status: 'scheduled',
          import_type: 'gitlab_project',
          correlation_id: randomBytes(13).toString('hex'),
          last_error: null,
          file_path: file,
          import_url: 'url' in source ? source.url : null,
          original_path: overwriting ? request.path : null,
          original_name: overwriting ? name : null,
          override_params: Object.keys(request.overrideParams).length > 0 ? JSON.stringify(request.overrideParams) : null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      await db.updateTable('projects').set({ import_status: 'scheduled' }).where('id', '=', project.id).execute();
      await enqueue(db, PROJECT_IMPORT, { projectId: project.id });
    });
  } catch (error) {
    await deleteProject(ctx, project);
    throw error;
  }
  return (await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst()) ?? project;
}

async function setState(ctx: ServiceContext, projectId: number, status: string, lastError: string | null): Promise<void> {
  const at = ctx.now().toISOString();
  await withTransaction(ctx, async ({ db }) => {
    await db.updateTable('project_import_states').set({ status, last_error: lastError, updated_at: at }).where('project_id', '=', projectId).execute();
    await db.updateTable('projects').set({ import_status: status }).where('id', '=', projectId).execute();
    await updateProjectSettings(db, projectId, { settings: { import_error: lastError } });
  });
}

/**
 * Reads an uploaded archive into `content` (made here, inside the caller's scratch) under the rules
 * of archive.ts, after its size against max_import_size, and checks its VERSION.
 */
export async function unpackArchive(ctx: ServiceContext, archive: string, content: string): Promise<void> {
  const max = (await applicationSettings(ctx.db)).max_import_size;
  if (max > 0 && (await fs.stat(archive)).size > max * 1024 * 1024) throw new ArchiveError(`Archive larger than the maximum import size (${max} MB)`);
  await fs.mkdir(content);
  await extractArchive(archive, content, { maxBytes: ctx.config.importMaxDecompressedBytes });
  await checkVersion(content);
}

/** Checks the archive's VERSION file (Gitlab::ImportExport::VersionChecker). */
async function checkVersion(dir: string): Promise<void> {
  const file = path.join(dir, 'VERSION');
  const stat = await fs.lstat(file).catch(() => null);
  if (!stat?.isFile() || stat.size > 1024) throw new ArchiveError('Incorrect VERSION format');
  const version = (await fs.readFile(file, 'utf8')).split('\n')[0].trim();
  if (!/^\d+(\.\d+)*$/.test(version)) throw new ArchiveError('Incorrect VERSION format');
  const parts = (v: string) => v.split('.').map(Number);
  const [a, b] = [parts(version), parts(EXPORT_VERSION)];
  const same = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) === (b[i] ?? 0)).every(Boolean);
  if (!same) throw new ArchiveError(`Import version mismatch: Required ${EXPORT_VERSION} but was ${version}`);
}

/** Fetches a remote archive into `file`, after the checks of the platform's RemoteFileValidator (HEAD first). */
async function download(ctx: ServiceContext, url: string, file: string): Promise<void> {
  const settings = await applicationSettings(ctx.db);
  const options = { allowLocal: settings.allow_local_requests_from_web_hooks_and_services, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: REMOTE_FILE_LIMIT };
  try {
    const head = await checkedRequest(url, { method: 'HEAD' }, { ...options, timeoutMs: 30_000 });
    if (head.status >= 400) throw new ArchiveError(`Remote file could not be fetched: the server answered ${head.status}`);
    checkRemoteHeaders(head.headers);
    const out = createWriteStream(file, { flags: 'wx' });
    const got = await checkedRequest(url, { method: 'GET', sink: out }, options);
    if (got.status >= 300) throw new ArchiveError(`Remote file could not be fetched: the server answered ${got.status}`);
    const length = Number(got.headers['content-length']);
    if (Number.isFinite(length) && (await fs.stat(file)).size !== length) throw new ArchiveError('Remote file is not the size it declared');
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    if (error instanceof OutboundError) throw new ArchiveError(error.failure === 'too_large' ? 'Remote file larger than limit. (limit 10 GB)' : `Remote file could not be fetched: ${error.message}`);
    throw error;
  }
}

/** The remote's declared type and size, as the platform requires them; the first failure's message. */
export function remoteHeadersError(headers: Record<string, string | string[] | undefined>): string | null {
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (typeof type !== 'string' || type === '') return "Missing 'ContentType' header";
  if (type.split(';')[0].trim().toLowerCase() !== 'application/gzip') return `Remote file content type '${type}' not allowed. (Allowed content types: application/gzip)`;
  if (typeof length !== 'string' || !/^\d+$/.test(length) || Number(length) === 0) return "Missing 'ContentLength' header";
  if (Number(length) > REMOTE_FILE_LIMIT) return 'Remote file larger than limit. (limit 10 GB)';
  return null;
}

function checkRemoteHeaders(headers: Record<string, string | string[] | undefined>): void {
  const error = remoteHeadersError(headers);
  if (error) throw new ArchiveError(error);
}

/** The attributes of tree/project.json as project update parameters, capped to what the namespace allows. */
function attributeParams(attributes: Record<string, unknown>, namespace: NamespaceRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const copy = [
    'description',
    'request_access_enabled',
    'only_allow_merge_if_pipeline_succeeds',
    'only_allow_merge_if_all_discussions_are_resolved',
    'allow_merge_on_skipped_pipeline',
    'printing_merge_request_link_enabled',
    'remove_source_branch_after_merge',
    'resolve_outdated_diff_discussions',
    'autoclose_referenced_issues',
    'suggestion_commit_message',
    'service_desk_enabled',
    'shared_runners_enabled',
    'public_builds',
    'build_timeout',
    'ci_config_path',
    'build_coverage_regex',
    'auto_cancel_pending_pipelines',
    'squash_option',
  ];
  for (const key of copy) if (attributes[key] !== undefined && attributes[key] !== null) out[key] = attributes[key];
  if (attributes.merge_requests_ff_only_enabled === true) out.merge_method = 'ff';
  else if (attributes.merge_requests_rebase_enabled === true) out.merge_method = 'rebase_merge';
  else if (attributes.merge_requests_ff_only_enabled === false) out.merge_method = 'merge';
  const level = typeof attributes.visibility_level === 'number' ? attributes.visibility_level : 0;
  const capped = Math.min(level, namespace.visibility_level);
  out.visibility = capped >= 20 ? 'public' : capped >= 10 ? 'internal' : 'private';
  return out;
}

/** The import job. */
export async function runImport(base: ServiceContext, projectId: number): Promise<void> {
  const state = await base.db.selectFrom('project_import_states').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  const project = await base.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
  if (!state || !project || state.status !== 'scheduled') return;
  const importer = state.user_id === null ? undefined : await base.db.selectFrom('users').selectAll().where('id', '=', state.user_id).executeTakeFirst();
  const storage = artifactsStorage(base.config);
  if (!importer) {
    await setState(base, projectId, 'failed', 'The importing user no longer exists');
    return;
  }
  const ctx: ServiceContext = { ...base, actor: actingUser(importer) };
  await setState(ctx, projectId, 'started', null);
  const scratch = await newScratch(ctx.config, `import-${projectId}-`);
  const storageDir = storageDirectory(ctx.config.repositoryStorages, project.repository_storage);
  let staging: string | null = null;
  /** Uploads copied in by the restore, removed should it fail after all. */
  let uploadDirs: string[] = [];
  try {
    let archive: string;
    if (state.import_url) {
      archive = path.join(scratch, 'remote.tar.gz');
      await download(ctx, state.import_url, archive);
    } else if (state.file_path && (await storage.exists(state.file_path))) {
      archive = storage.localPath(state.file_path);
    } else {
      throw new ArchiveError('The import archive is missing');
    }
    const content = path.join(scratch, 'content');
    await unpackArchive(ctx, archive, content);
    const treeStat = await fs.lstat(path.join(content, 'tree')).catch(() => null);
    if (!treeStat?.isDirectory()) throw new ArchiveError('invalid import format');
    const attributes = await readAttributes(path.join(content, 'tree', 'project.json'));

    // The namespace, and with overwrite the project to replace and the right to do so.
    const namespace = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
    const replaced = state.original_path
      ? await ctx.db.selectFrom('projects').selectAll().where('namespace_id', '=', namespace.id).where('path', '=', state.original_path).executeTakeFirst()
      : undefined;
    if (replaced && !(await administers(ctx, importer, namespace))) {
      throw new ArchiveError(`User ${importer.username} (${importer.id}) cannot overwrite a project in ${namespace.full_path}`);
    }

    // The repository, built aside from the bundle after it verifies.
    let defaultBranch: string | null = null;
    const bundle = path.join(content, 'project.bundle');
    const bundleStat = await fs.lstat(bundle).catch(() => null);
    if (bundleStat?.isFile() && storageDir !== null) {
      staging = stagingRepositoryPath(storageDir);
      await createRepository(staging, { defaultBranch: 'main' });
      // Its header and prerequisites first; its pack is checked as it is indexed.
      try {
        await verifyBundle(staging, bundle);
        await fetchBundle(staging, bundle);
      } catch {
        throw new ArchiveError('The repository bundle failed verification');
      }
      const heads = await bundleHeads(staging, bundle);
      const branches = [...heads.keys()].filter((ref) => ref.startsWith('refs/heads/')).map((ref) => ref.slice('refs/heads/'.length));
      const wanted = typeof attributes.default_branch === 'string' ? attributes.default_branch : null;
      const headId = heads.get('HEAD');
      defaultBranch =
        (wanted && branches.includes(wanted) ? wanted : null) ??
        branches.find((b) => heads.get(`refs/heads/${b}`) === headId && (b === 'main' || b === 'master')) ??
        branches.find((b) => heads.get(`refs/heads/${b}`) === headId) ??
        branches[0] ??
        null;
      if (defaultBranch) await setDefaultBranch(staging, defaultBranch);
    }

    const relationsDir = path.join(content, 'tree', 'project');
    const uploads = await readUploads(content);
    const overrides = state.override_params ? (JSON.parse(state.override_params) as Record<string, unknown>) : {};
    const single = await readSingleRelations(relationsDir);
    const placedRepository = staging;
    const restore = () => withTransaction(ctx, async (tx) => {
      const { failures, memberIds } = await restoreProjectTree(tx, { projectId, importerId: importer.id, mapUsers: importer.admin, relationsDir });
      if (memberIds.length > 0) await refreshAuthorizations(tx.db, memberIds, tx.now());
      const current = await tx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
      const params = cleanOverrideParams({ ...single, ...attributeParams(attributes, namespace), ...overrides });
      const all = new Set<ProjectAbility>(['change_visibility_level', 'rename_project']);
      await updateProject(tx, { row: current, namespace, can: all }, params as UpdateProjectBody);
      const at = tx.now().toISOString();
      if (replaced) {
        await deleteProject(tx, replaced);
        const moved = await tx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
        await updateProject(tx, { row: moved, namespace, can: all }, { path: replaced.path, name: state.original_name ?? replaced.name });
      }
      if (failures.length > 0) {
        await tx.db
          .insertInto('import_failures')
          .values(failures.map((f) => ({ ...f, project_id: projectId, group_id: null, correlation_id: state.correlation_id, created_at: at })))
          .execute();
      }
      await tx.db.updateTable('project_import_states').set({ status: 'finished', last_error: null, file_path: null, updated_at: at }).where('project_id', '=', projectId).execute();
      await tx.db
        .updateTable('projects')
        .set({ import_status: 'finished', ...(placedRepository ? { default_branch: defaultBranch, empty_repo: defaultBranch === null } : {}), last_activity_at: at })
        .where('id', '=', projectId)
        .execute();
      await refreshStatisticsLater(tx.db, projectId);
      if (uploads.length > 0) uploadDirs = await addImportedUploads(tx, projectId, uploads);
      // Last: the repository takes the place of the empty one the project was created with.
      if (placedRepository) {
        const target = repositoryDir(tx.config, current) as string;
        await deleteRepository(target);
        await placeRepository(placedRepository, target);
        staging = null;
      }
    });
    // The repository takes its place under a push lease, as a push writes: refused (the import
    // fails with the platform's message) while a storage move holds the project's repository.
    if (placedRepository) await withRepositoryWrite(ctx, { kind: 'project', id: projectId, storage: project.repository_storage }, restore);
    else await restore();
  } catch (error) {
    const message = error instanceof ArchiveError ? error.message : error instanceof DomainError ? firstFullMessage(error) : `Import failed: ${error instanceof Error ? error.message : String(error)}`;
    if (uploadDirs.length > 0) await removeImportedUploads(ctx, uploadDirs);
    await setState(ctx, projectId, 'failed', message);
  } finally {
    if (staging) await deleteRepository(staging);
    await fs.rm(scratch, { recursive: true, force: true });
    if (state.file_path) await storage.remove(state.file_path);
  }
}

/** Marks an import that did not finish as failed (its job gave up). */
export async function markImportFailed(ctx: ServiceContext, projectId: number, message: string): Promise<void> {
  const state = await ctx.db.selectFrom('project_import_states').select('status').where('project_id', '=', projectId).executeTakeFirst();
  if (state && (state.status === 'scheduled' || state.status === 'started')) await setState(ctx, projectId, 'failed', message);
}
