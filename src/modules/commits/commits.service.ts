// Writing a commit from file actions, for the commits API and the files API alike (the platform's
// Commits::CreateService and Files::*Service, 14.x): whether the writer may push to the branch,
// where the commit starts, stale last_commit_id checks, the read-only flag, then one commit whose
// branch moves by compare-and-set from the head checked here (so that of two writers racing on a
// branch exactly one wins), and the push recorded.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { ServiceContext } from '../../core/context.ts';
import { apiError, forbidden, paramError } from '../../core/errors.ts';
import { ZERO_OID, safeRepoPath, validBranchName } from '../../git/args.ts';
import { type FileAction, createCommit } from '../../git/commits.ts';
import { lastCommitForPath } from '../../git/history.ts';
import { hasBranches, resolveCommit, resolveRef } from '../../git/refs.ts';
import { GitError } from '../../git/run.ts';
import type { Identity } from '../../git/signature.ts';
import { assertWritable, requireRepositoryDir } from '../../domain/project-repository.ts';
import { defaultBranchProtection } from '../../domain/settings/namespace-settings.ts';
import { canPushToBranch, pusherOf } from '../../domain/ref-protection.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { isCommitId } from './commits.finder.ts';

const PUSH_REFUSED = 'You are not allowed to push into this branch';
const NOT_ON_A_BRANCH = 'You can only create or edit files when you are on a branch';

export interface ActionInput {
  action: FileAction['action'];
  filePath: string;
  /** The file a move starts from. */
  previousPath?: string;
  /** Absent: an empty new file, or a moved file keeping its content. */
  content?: Buffer;
  executeFilemode?: boolean;
  /** The last commit the writer saw touching the file; a newer one refuses the change. */
  lastCommitId?: string;
}

export interface CommitChange {
  branch: string;
  /** Where a new branch starts; by default the branch itself (which must then exist, unless the repository is empty). */
  startBranch?: string;
  startSha?: string;
  /** Replace an existing branch with a commit on the start. */
  force?: boolean;
  actions: readonly ActionInput[];
  message: string;
  authorName?: string;
  authorEmail?: string;
  /** The refusal of a stale last_commit_id, for the path it was given for. */
  staleMessage?: (path: string) => string;
  /** The commits API refuses a push with 403 (authorize_push_to_branch!); the files API with 400. */
  pushForbidden?: boolean;
}

const refuse = (message: string) => apiError(400, message);

const commitsStale = (path: string) => `The file has changed since you started editing it: ${path}`;

/** A branch's head; null when it does not exist or could not be a branch. */
function branchHead(dir: string, name: string): Promise<string | null> {
  return validBranchName(name) ? resolveRef(dir, `refs/heads/${name}`) : Promise.resolve(null);
}

/** An action's path, normalized, or Gitaly's refusal of it. */
function actionPath(raw: string): string {
  if (raw === '') throw refuse('You must provide a file path');
  if (raw.split('/').includes('..')) throw refuse('Path cannot include directory traversal');
  const path = safeRepoPath(raw);
  if (path === null) throw refuse(`invalid path: '${raw}'`);
  return path;
}

function toFileAction(input: ActionInput): FileAction {
  const path = actionPath(input.filePath);
  switch (input.action) {
    case 'create':
    case 'update':
      return { action: input.action, path, content: input.content ?? '', executable: input.executeFilemode };
    case 'move':
      return { action: 'move', path, previousPath: actionPath(input.previousPath ?? ''), content: input.content };
    case 'delete':
      return { action: 'delete', path };
    case 'chmod':
      return { action: 'chmod', path, executable: input.executeFilemode ?? false };
  }
}

/** Content as sent: text, or base64 (decoded leniently, as the platform's Base64.decode64 does). */
export function decodeContent(content: string, encoding: 'text' | 'base64' | undefined): Buffer {
  return Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8');
}

/** An identity part the writer gave, unless git would find nothing left of it; the writer's own otherwise. */
const MAX_IDENTITY_BYTES = 1024;
function identityPart(given: string | undefined, own: string, param: string): string {
  if (given === undefined || given.replace(/[<>\n]/g, '').replace(/^[\0- .,:;"'\\]+|[\0- .,:;"'\\]+$/g, '') === '') return own;
  // Git takes identities from the environment, whose size is bounded.
  if (Buffer.byteLength(given) > MAX_IDENTITY_BYTES) throw paramError(`${param} is too long`);
  return given;
}

/**
 * The actor, when they may push to the branch by its protection (authorize_push_to_branch!), or the
 * refusal: 403 for the commits API, 400 for the files API. Anonymous callers may push nowhere.
 */
export async function requirePushToBranch(ctx: ServiceContext, project: LoadedProject, branch: string, options: { empty: boolean; refusal: 400 | 403 }) {
  const { actor } = ctx;
  const protections = await loadRefProtections(ctx.db, project.row.id);
  // While the repository is empty, the protection its default branch will get applies: its group's, or the instance's.
  const emptyRepository = options.empty ? { defaultBranchProtection: await defaultBranchProtection(ctx.db, project.namespace) } : undefined;
  const user = actor?.user;
  if (!user || !canPushToBranch(protections, branch, pusherOf(project, actor), emptyRepository)) {
    throw options.refusal === 403 ? forbidden(PUSH_REFUSED) : refuse(PUSH_REFUSED);
  }
  return user;
}

/** Whether the project's repository may be written now: read afresh, as a storage move sets the flag while it copies. */
export async function assertRepositoryWritable(ctx: ServiceContext, projectId: number): Promise<void> {
  assertWritable(await ctx.db.selectFrom('projects').select('repository_read_only').where('id', '=', projectId).executeTakeFirstOrThrow());
}

/**
 * Commits the change as the actor and returns the new commit's id. Refusals are 400s with the
 * platform's messages (an anonymous caller may push nowhere); the repository and the branch are
 * left as they were.
 */
export async function commitChange(ctx: ServiceContext, project: LoadedProject, change: CommitChange): Promise<string> {
  const dir = requireRepositoryDir(ctx.config, project.row);
  const { branch, startSha } = change;
  const startBranch = startSha === undefined ? (change.startBranch ?? branch) : change.startBranch;
  const empty = !(await hasBranches(dir));

  const user = await requirePushToBranch(ctx, project, branch, { empty, refusal: change.pushForbidden ? 403 : 400 });

  // The commit a new branch starts from.
  let start: string | null = null;
  if (startSha !== undefined) {
    if (!isCommitId(startSha)) throw refuse(`Invalid start_sha '${startSha}'`);
    start = await resolveCommit(dir, startSha.toLowerCase());
    if (start === null) throw refuse(`Cannot find start_sha '${startSha}'`);
  }
  if (startBranch !== undefined && !empty) {
    start = await branchHead(dir, startBranch);
    if (start === null) throw refuse(NOT_ON_A_BRANCH);
  }
  const newBranch = startBranch !== branch || startSha !== undefined;
  const head = await branchHead(dir, branch);
  if (newBranch && head !== null && !change.force) {
    throw refuse(`A branch called '${branch}' already exists. Switch to that branch in order to make changes`);
  }
  if (!validBranchName(branch)) throw refuse(`Something went wrong when we tried to create '${branch}' for you: Branch name is invalid`);

  const actions = change.actions.map(toFileAction);
  const base = newBranch ? start : head;
  if (base !== null) {
    for (const [i, input] of change.actions.entries()) {
      if (input.lastCommitId === undefined || input.action === 'create') continue;
      const action = actions[i];
      const path = action.action === 'move' ? action.previousPath : action.path;
      const last = await lastCommitForPath(dir, base, path);
      if (last !== null && last !== input.lastCommitId) throw refuse((change.staleMessage ?? commitsStale)(input.previousPath ?? input.filePath));
    }
  }

  const own: Identity = { name: user.name, email: user.commit_email || user.email };
  const author = { name: identityPart(change.authorName, own.name, 'author_name'), email: identityPart(change.authorEmail, own.email, 'author_email') };
  const ref = `refs/heads/${branch}`;
  const before = head ?? ZERO_OID;
  let id = '';
  // Under a push lease (changeRefs): refused while a storage move holds the repository.
  await changeRefs(ctx, project.row, user.id, [{ ref, before }], async () => {
    try {
      const made = await createCommit(dir, {
      branch,
      startRevision: newBranch && start !== null ? start : undefined,
      expectedHead: head,
      force: newBranch && change.force,
      actions,
      message: change.message,
      author,
      committer: own,
      date: ctx.now(),
      });
      id = made.id;
      return [{ ref, before, after: id }];
    } catch (error) {
      if (error instanceof GitError && error.kind === 'conflict') throw refuse(`Could not update ${ref}. Please refresh and try again.`);
      // An action that does not fit the tree (ActionError), or a start that vanished meanwhile.
      if (error instanceof GitError && error.kind === 'invalid') throw refuse(error.message);
      throw error;
    }
  });
  return id;
}
