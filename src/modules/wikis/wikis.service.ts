// Writing wiki pages and attachments (14.x WikiPages::CreateService, UpdateService, DestroyService
// and Wikis::CreateAttachmentService): each write is one commit on the wiki's branch, made in the
// caller's name with the platform's default message; the repository is created on the first.
// Each write holds a push lease (withWikiWrite), so that a storage move refuses it or waits for it.
// A project wiki's page writes are then told to the project's hooks that ask for wiki page events
// (the platform builds no payload for group wikis in 14.x).
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { apiError, invalidFields } from '../../core/errors.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { safeRepoPath, validBranchName } from '../../git/args.ts';
import { type FileAction, createCommit } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { GitError } from '../../git/run.ts';
import type { Identity } from '../../git/signature.ts';
import type { DB } from '../../db/schema.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { type WikiPage, findWikiPage, listWikiPages, pageNamed } from './wikis.finder.ts';
import {
  ATTACHMENT_DIRECTORY,
  WIKI_BRANCH,
  type WikiFormat,
  attachmentFileName,
  normalizeTitle,
  pageErrors,
  pagePath,
  renamedTitle,
  slugOfTitle,
} from './wiki-pages.ts';
import { type WikiContainer, groupWikisIn, withWikiWrite } from './wiki-repositories.ts';

/** The platform's answer when a page of the title exists (Wiki#create_page). */
export const DUPLICATE_PAGE = 'Duplicate page: A page with that title already exists';
/** WikiPage::PageRenameError's message. */
export const PAGE_RENAME_TAKEN = 'There is already a page with the same title in that path.';

export interface CreatePageInput {
  title: string;
  content: string;
  format: WikiFormat;
}

export interface UpdatePageInput {
  title?: string;
  content?: string;
  format: WikiFormat;
}

type Action = 'create' | 'update' | 'delete';

function writer(ctx: ServiceContext): { username: string; id: number; identity: Identity } {
  const { user } = requireActor(ctx);
  return { username: user.username, id: user.id, identity: { name: user.name, email: user.commit_email || user.email } };
}

/** One commit on the wiki's branch, moving it only from the head it was checked against. */
async function commitOnWiki(ctx: ServiceContext, gitDir: string, actions: FileAction[], message: string, branch = WIKI_BRANCH): Promise<string> {
  const { identity } = writer(ctx);
  const head = await resolveRef(gitDir, `refs/heads/${branch}`);
  try {
    const made = await createCommit(gitDir, { branch, expectedHead: head, actions, message, author: identity, date: ctx.now() });
    return made.id;
  } catch (error) {
    // Someone wrote to the wiki meanwhile, or the tree no longer fits what was checked.
    if (error instanceof GitError && (error.kind === 'conflict' || error.kind === 'invalid')) throw invalidFields({ base: [error.message] });
    throw error;
  }
}

/** Tells a project's hooks of a page write; group wikis have none in 14.x. */
async function recordPageEvent(ctx: ServiceContext, container: WikiContainer, action: Action, path: string, message: string, versionId: string): Promise<void> {
  if (container.kind !== 'project') return;
  const userId = writer(ctx).id;
  const projectId = container.project.id;
  await withTransaction(ctx, (tx) => enqueueHookEvent(tx.db, { projectId }, { kind: 'wiki_page', projectId, userId, action, path, message, versionId }));
}

async function validatePage(ctx: ServiceContext, title: string, content: string): Promise<void> {
  const { wiki_page_max_content_bytes: max } = await applicationSettings(ctx.db);
  const errors = pageErrors(title, content, max);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** A page's file must be a path git can hold (no `.git` component, within git's path length). */
function requirePagePath(path: string): string {
  if (safeRepoPath(path) !== path) throw invalidFields({ title: ['is invalid'] });
  return path;
}

/** The page as written, read back at the commit that wrote it. */
async function writtenPage(gitDir: string, slug: string, commit: string): Promise<WikiPage & { content: string }> {
  const page = await findWikiPage(gitDir, slug, commit);
  if (page === null) throw new Error(`the wiki page ${slug} was not found at the commit that wrote it`);
  return page;
}

/** POST …/wikis. */
export async function createWikiPage(ctx: ServiceContext, container: WikiContainer, input: CreatePageInput): Promise<WikiPage & { content: string }> {
  const title = normalizeTitle(input.title);
  await validatePage(ctx, title, input.content);
  const slug = slugOfTitle(title);
  const message = `${writer(ctx).username} created page: ${title}`;
  const { gitDir, path, commit } = await withWikiWrite(ctx, container, async (gitDir) => {
    if (pageNamed(await listWikiPages(gitDir, false), slug) !== null) throw invalidFields({ base: [DUPLICATE_PAGE] });
    const path = requirePagePath(pagePath(slug, input.format));
    return { gitDir, path, commit: await commitOnWiki(ctx, gitDir, [{ action: 'create', path, content: input.content }], message) };
  });
  await recordPageEvent(ctx, container, 'create', path, message, commit);
  return writtenPage(gitDir, slug, commit);
}

/**
 * PUT …/wikis/:slug. A new title renames the page (in its directory unless the title names
 * another), a new format changes its file's extension; content not given is kept.
 */
export async function updateWikiPage(ctx: ServiceContext, container: WikiContainer, page: WikiPage & { content: string }, input: UpdatePageInput): Promise<WikiPage & { content: string }> {
  // A blank title is no rename, as the platform ignores it.
  const given = input.title !== undefined && input.title.trim() !== '' ? renamedTitle(page.slug, input.title) : null;
  const content = input.content ?? page.content;
  await validatePage(ctx, given ?? page.title, content);
  const slug = given === null ? page.slug : slugOfTitle(given);
  const message = `${writer(ctx).username} updated page: ${page.title}`;
  const { gitDir, path, commit } = await withWikiWrite(ctx, container, async (gitDir) => {
    if (slug !== page.slug) {
      const other = pageNamed(await listWikiPages(gitDir, false), slug);
      if (other !== null && other.path !== page.path) throw invalidFields({ base: [PAGE_RENAME_TAKEN] });
    }
    const path = requirePagePath(pagePath(slug, input.format));
    const action: FileAction = path === page.path ? { action: 'update', path, content } : { action: 'move', path, previousPath: page.path, content };
    return { gitDir, path, commit: await commitOnWiki(ctx, gitDir, [action], message) };
  });
  await recordPageEvent(ctx, container, 'update', path, message, commit);
  return writtenPage(gitDir, slug, commit);
}

/** DELETE …/wikis/:slug. */
export async function deleteWikiPage(ctx: ServiceContext, container: WikiContainer, page: WikiPage): Promise<void> {
  const message = `${writer(ctx).username} deleted page: ${page.title}`;
  const commit = await withWikiWrite(ctx, container, (gitDir) => commitOnWiki(ctx, gitDir, [{ action: 'delete', path: page.path }], message));
  await recordPageEvent(ctx, container, 'delete', page.path, message, commit);
}

export interface Attachment {
  file_name: string;
  file_path: string;
  branch: string;
}

/** CarrierWave's sanitize_regexp: what is not a word character, `.`, `-` or `+` becomes `_` (links may hold no blanks). */
const sanitizeFileName = (name: string) => name.replace(/[^\p{L}\p{M}\p{N}\p{Pc}.\-+]/gu, '_');

/** POST …/wikis/attachments: the file committed under uploads/<random>/ on the branch (the wiki's by default). */
export async function createWikiAttachment(ctx: ServiceContext, container: WikiContainer, file: { name: string; content: Buffer }, branch?: string): Promise<Attachment> {
  const name = file.name === '' ? '' : sanitizeFileName(attachmentFileName(file.name));
  if (name === '') throw apiError(400, 'The file name cannot be empty');
  const target = branch ?? WIKI_BRANCH;
  if (!validBranchName(target)) throw apiError(400, 'Branch name is invalid');
  const filePath = `${ATTACHMENT_DIRECTORY}/${randomBytes(16).toString('hex')}/${name}`;
  if (safeRepoPath(filePath) !== filePath) throw apiError(400, 'The file name is invalid');
  await withWikiWrite(ctx, container, (gitDir) => commitOnWiki(ctx, gitDir, [{ action: 'create', path: filePath, content: file.content }], `Upload attachment ${name}`, target));
  return { file_name: name, file_path: filePath, branch: target };
}

export const removeGroupWikiDeclaration = {
  name: 'group.wiki.remove',
  payload: Type.Object({ groupId: Type.Integer(), storage: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  maxAttempts: 3,
} satisfies JobDeclaration;

/** Called in the transaction that removes groups: their wikis' repositories go once it commits. */
export async function scheduleGroupWikiRemovals(db: Kysely<DB>, groupIds: readonly number[]): Promise<void> {
  for (const wiki of await groupWikisIn(db, groupIds)) await enqueue(db, removeGroupWikiDeclaration, { groupId: wiki.group_id, storage: wiki.repository_storage });
}
