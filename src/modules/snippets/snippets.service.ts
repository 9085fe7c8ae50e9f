// Creating, changing and removing snippets. Every snippet has its own repository: a creation
// builds it aside (its files in one "Initial commit"), then records the row and places the
// repository as the transaction's last step; a change of files is one "Update snippet" commit,
// made before the transaction that changes the row. Refusals are the platform's: the service's
// message as `{"message": {"error": …}}`, 403 for a restricted visibility, 422 for file actions
// that make no sense, 400 for what the model or the repository refuses.
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import { DomainError, messageError, paramError } from '../../core/errors.ts';
import { VISIBILITY, type VisibilityName } from '../../core/access/levels.ts';
import type { SnippetRow } from '../../db/schema.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { applicationSettings, chooseRepositoryStorage, defaultBranchName, restrictedVisibility } from '../../domain/settings/application-settings.ts';
import { removeSnippets, snippetRepositoryDir } from '../../domain/snippet-repositories.ts';
import { tooLarge, tooLong } from '../../domain/validation.ts';
import { ActionError, type FileAction, createCommit } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { createRepository, deleteRepository, placeNewRepository, snippetRepositoryPath, stagingRepositoryPath } from '../../git/repository.ts';
import { GitError } from '../../git/run.ts';
import { storageDirectory } from '../../git/storages.ts';
import { type SnippetRecord, readSnippetFiles } from './snippets.finder.ts';
import type { UpdateSnippetBody } from './snippets.schemas.ts';

const TITLE_MAX = 255;
const INITIAL_COMMIT = 'Initial commit';
const UPDATE_COMMIT = 'Update snippet';

// The platform's file_path validator (Gitlab::Utils.check_path_traversal!), as the files API checks it.
const TRAVERSAL = /^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n/;

/** A parameter check of a file's path, before anything is written. */
function checkPath(param: string, value: string | undefined): void {
  if (value !== undefined && (TRAVERSAL.test(value) || value.startsWith('/'))) throw paramError(`${param} should be a valid file path`);
}

export interface NewSnippet {
  projectId: number | null;
  title: string;
  description?: string;
  visibility: VisibilityName;
  files: { path: string; content: string }[];
  /** What the creating client sent, for the administrators' user agent detail. */
  userAgent: string | null;
  ipAddress: string | null;
}

const failure = (status: number, message: string) => messageError(status, message);

/** The platform's refusal of a visibility the instance restricts, for any caller but an administrator. */
async function checkVisibility(ctx: ServiceContext, level: number): Promise<void> {
  const restricted = restrictedVisibility(await applicationSettings(ctx.db), level, requireActor(ctx).isAdmin);
  if (restricted) throw failure(403, `Visibility level ${restricted.charAt(0).toUpperCase()}${restricted.slice(1)}`);
}

/**
 * The model's limit on its content (the first file's text), the instance's snippet_size_limit,
 * counted in characters as the platform's length validation counts them.
 */
function checkContentSize(content: string | undefined, limit: number): void {
  if (content === undefined) return;
  const size = [...content].length;
  if (size > limit) throw failure(400, `Content ${tooLarge(size, limit)}`);
}

function checkTitle(title: string | undefined): void {
  if (title !== undefined && [...title].length > TITLE_MAX) throw failure(400, `Title ${tooLong(TITLE_MAX)}`);
}

/**
 * The repository's answer as the platform words it: a refused file action (a CommitError there)
 * without its detail, any other git failure with it.
 */
function repositoryError(error: unknown, creating: boolean): DomainError {
  const message = creating ? 'Repository Error creating the snippet' : 'Repository Error updating the snippet';
  if (error instanceof ActionError) return failure(400, message);
  if (error instanceof GitError) return failure(400, `${message} - ${error.message}`);
  throw error;
}

/** A path left blank gets a name of its own, as the platform's repository does (snippetfile1.txt, …). */
function nameBlankPaths<T extends { path: string }>(files: T[], taken: Iterable<string>): T[] {
  const used = new Set(taken);
  let n = 0;
  return files.map((file) => {
    if (file.path.trim() !== '') return file;
    let name: string;
    do name = `snippetfile${++n}.txt`;
    while (used.has(name));
    used.add(name);
    return { ...file, path: name };
  });
}

export async function createSnippet(ctx: ServiceContext, input: NewSnippet): Promise<SnippetRow> {
  const actor = requireActor(ctx);
  for (const file of input.files) checkPath('file_path', file.path);
  const level = VISIBILITY[input.visibility];
  await checkVisibility(ctx, level);
  checkTitle(input.title);
  const instance = await applicationSettings(ctx.db);
  checkContentSize(input.files[0]?.content, instance.snippet_size_limit);
  const storage = chooseRepositoryStorage(instance, Object.keys(ctx.config.repositoryStorages));
  const storageDir = storageDirectory(ctx.config.repositoryStorages, storage) as string;
  const branch = defaultBranchName(instance);
  const now = ctx.now();
  const files = nameBlankPaths(input.files, []);
  // Built aside, outside the transaction: a git failure leaves no row.
  const staging = stagingRepositoryPath(storageDir);
  try {
    await createRepository(staging, { defaultBranch: branch });
    const author = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };
    const actions: FileAction[] = files.map((f) => ({ action: 'create', path: f.path, content: f.content }));
    await createCommit(staging, { branch, expectedHead: null, actions, message: INITIAL_COMMIT, author, date: now });
  } catch (error) {
    await deleteRepository(staging);
    throw repositoryError(error, true);
  }
  let placed: string | null = null;
  try {
    return await withTransaction(atTime(ctx, now), async (tx) => {
      const at = now.toISOString();
      const row = await tx.db
        .insertInto('snippets')
        .values({
          title: input.title,
          description: input.description ?? null,
          author_id: actor.user.id,
          project_id: input.projectId,
          visibility_level: level,
          file_name: files[0]?.path ?? null,
          repository_storage: storage,
          user_agent: input.userAgent,
          ip_address: input.ipAddress,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const target = snippetRepositoryPath(storageDir, row.id);
      await placeNewRepository(staging, target);
      placed = target;
      return row;
    });
  } catch (error) {
    await deleteRepository(placed ?? staging);
    throw error;
  }
}

type UpdateAction = NonNullable<UpdateSnippetBody['files']>[number];

/** SnippetInputAction's rules: false when any action lacks what it needs or contradicts itself. */
function actionsValid(actions: readonly UpdateAction[]): boolean {
  const present = (s: string | undefined) => s !== undefined && s.trim() !== '';
  return actions.every((a) => {
    if (a.action === 'move' && (!present(a.previous_path) || a.file_path === a.previous_path)) return false;
    if ((a.action === 'update' || a.action === 'delete') && !present(a.file_path)) return false;
    if ((a.action === 'create' || a.action === 'update') && !present(a.content)) return false;
    if (a.action === 'update' && present(a.previous_path) && present(a.file_path) && a.previous_path !== a.file_path) return false;
    return true;
  });
}

/** The commit's file actions for `files`, or for the legacy file_name/content (the snippet's one file); empty when no file changes. */
function fileActions(body: UpdateSnippetBody, current: readonly string[]): FileAction[] {
  if (body.files) {
    const actions = nameBlankPaths(
      body.files.map((a) => ({ ...a, path: a.file_path ?? '' })),
      current,
    );
    return actions.map((a): FileAction => {
      switch (a.action) {
        case 'create':
          return { action: 'create', path: a.path, content: a.content ?? '' };
        case 'update':
          return { action: 'update', path: a.path, content: a.content ?? '' };
        case 'delete':
          return { action: 'delete', path: a.path };
        default:
          return { action: 'move', path: a.path, previousPath: a.previous_path as string, ...(present(a.content) ? { content: a.content } : {}) };
      }
    });
  }
  if (body.file_name === undefined && body.content === undefined) return [];
  const previous = current[0];
  if (previous === undefined) return [{ action: 'create', path: body.file_name || 'snippetfile1.txt', content: body.content ?? '' }];
  const path = body.file_name || previous;
  if (path !== previous) return [{ action: 'move', path, previousPath: previous, ...(body.content !== undefined ? { content: body.content } : {}) }];
  return body.content === undefined ? [] : [{ action: 'update', path, content: body.content }];
}

const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

/** The paths after the actions (for the refusal of a snippet left without files). */
function pathsAfter(current: readonly string[], actions: readonly FileAction[]): Set<string> {
  const paths = new Set(current);
  for (const a of actions) {
    if (a.action === 'delete') paths.delete(a.path);
    if (a.action === 'move') paths.delete(a.previousPath);
    if (a.action !== 'delete') paths.add(a.path);
  }
  return paths;
}

/** PUT …/snippets/:id. The caller has checked that it may change the snippet. */
export async function updateSnippet(ctx: ServiceContext, snippet: SnippetRecord, body: UpdateSnippetBody): Promise<void> {
  const actor = requireActor(ctx);
  for (const file of body.files ?? []) {
    checkPath('files[file_path]', file.file_path);
    checkPath('files[previous_path]', file.previous_path);
  }
  checkPath('file_name', body.file_name);
  if (body.files && !actionsValid(body.files)) throw failure(422, 'Snippet actions have invalid data');
  const level = body.visibility !== undefined ? VISIBILITY[body.visibility] : snippet.visibility_level;
  if (level !== snippet.visibility_level) await checkVisibility(ctx, level);
  checkTitle(body.title);

  const gitDir = snippetRepositoryDir(ctx.config, snippet);
  const instance = await applicationSettings(ctx.db);
  // What the model's content becomes: the first action's text, or the legacy content.
  checkContentSize(body.files ? body.files[0]?.content : body.content, instance.snippet_size_limit);
  const current = await readSnippetFiles(gitDir, defaultBranchName(instance));
  // The legacy parameters name the snippet's one file: with several, `files` must say which.
  if ((body.content !== undefined || body.file_name !== undefined) && current.paths.length > 1) {
    throw failure(400, 'To update Snippets with multiple files, you must use the `files` parameter');
  }
  const actions = fileActions(body, current.paths);
  const now = ctx.now();
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    visibility_level: level,
    updated_at: now.toISOString(),
  };
  const save = (fileName?: string | null) =>
    withTransaction(atTime(ctx, now), async (tx) => {
      await tx.db.updateTable('snippets').set({ ...changes, ...(fileName !== undefined ? { file_name: fileName } : {}) }).where('id', '=', snippet.id).execute();
    });
  if (actions.length === 0 || gitDir === null) return save();
  // A change of files holds a push lease while it commits: refused while a storage move holds the
  // repository, and waited for by a move that begins meanwhile. The commit comes first, outside any
  // transaction (git's processes would hold the database meanwhile): a refused commit changes no
  // row.
  const repository = { kind: 'snippet', id: snippet.id, storage: snippet.repository_storage } as const;
  await withRepositoryWrite(
    ctx,
    repository,
    async () => {
      if (pathsAfter(current.paths, actions).size === 0) throw failure(400, 'Repository Error updating the snippet');
      try {
        const head = await resolveRef(gitDir, `refs/heads/${current.ref}`);
        const author = { name: actor.user.name, email: actor.user.commit_email || actor.user.email };
        await createCommit(gitDir, { branch: current.ref, expectedHead: head, actions, message: UPDATE_COMMIT, author, date: now });
      } catch (error) {
        throw repositoryError(error, false);
      }
      const after = await readSnippetFiles(gitDir, current.ref);
      await save(after.paths[0] ?? null);
    },
    () => failure(400, REPOSITORY_READ_ONLY_MESSAGE),
  );
}

/** DELETE …/snippets/:id: the row goes now, its repository in the background. */
export async function deleteSnippet(ctx: ServiceContext, snippet: Pick<SnippetRow, 'id'>): Promise<void> {
  await withTransaction(ctx, (tx) => removeSnippets(tx.db, { snippetId: snippet.id }));
}
