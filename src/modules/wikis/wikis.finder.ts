// Reading a wiki's pages from its repository: the page files on the wiki's branch (or at a
// version), each with its content when asked. A wiki without a repository has no pages.
import { validRevision } from '../../git/args.ts';
import { getBlob, readTree } from '../../git/commits.ts';
import { resolveCommit } from '../../git/refs.ts';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB, ProjectRow } from '../../db/schema.ts';
import { type PageFile, pageOfPath } from './wiki-pages.ts';
import { existingWikiDir } from './wiki-repositories.ts';

export interface WikiPage extends PageFile {
  /** The page file's blob. */
  blobId: string;
  /** Its content as UTF-8 text; present when it was asked for. */
  content?: string;
}

/** Every page at a revision (the wiki's branch by default), ordered by slug; null when the revision does not exist. */
async function pagesAt(gitDir: string, revision: string): Promise<WikiPage[] | null> {
  const entries = await readTree(gitDir, revision, '', { recursive: true });
  if (entries === null) return null;
  const pages: WikiPage[] = [];
  for (const entry of entries) {
    const page = entry.type === 'blob' ? pageOfPath(entry.path) : null;
    if (page) pages.push({ ...page, blobId: entry.id });
  }
  return pages.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

async function withContent(gitDir: string, page: WikiPage): Promise<WikiPage> {
  const blob = await getBlob(gitDir, page.blobId);
  return { ...page, content: blob === null ? '' : blob.toString('utf8') };
}

/** The wiki's pages; their content too with `loadContent`. */
export async function listWikiPages(gitDir: string | null, loadContent: boolean): Promise<WikiPage[]> {
  if (gitDir === null) return [];
  const pages = (await pagesAt(gitDir, 'HEAD')) ?? [];
  return loadContent ? Promise.all(pages.map((page) => withContent(gitDir, page))) : pages;
}

/** How the platform matches a slug to a page name: whitespace as hyphens, letters in any case. */
const canonical = (slug: string) => slug.replace(/\s/g, '-').toLowerCase();

/** The page a slug names among pages: its exact slug first, else the same ignoring case and blanks. */
export function pageNamed<T extends PageFile>(pages: readonly T[], slug: string): T | null {
  return pages.find((p) => p.slug === slug) ?? pages.find((p) => canonical(p.slug) === canonical(slug)) ?? null;
}

/**
 * The page a slug names, with its content, on the wiki's branch or at `version` (a commit); null
 * when there is no such page (or version). Also the revision it was read at.
 */
export async function findWikiPage(gitDir: string | null, slug: string, version?: string): Promise<(WikiPage & { content: string; commit: string }) | null> {
  if (gitDir === null) return null;
  if (version !== undefined && !validRevision(version)) return null;
  const commit = await resolveCommit(gitDir, version ?? 'HEAD');
  if (commit === null) return null;
  const page = pageNamed((await pagesAt(gitDir, commit)) ?? [], slug);
  if (page === null) return null;
  const read = await withContent(gitDir, page);
  return { ...read, content: read.content ?? '', commit };
}

/** The page at a path at a revision of a project's wiki, with its content (what a webhook tells of a page it reports). */
export async function projectWikiPageAt(
  db: Kysely<DB>,
  config: Config,
  project: Pick<ProjectRow, 'id' | 'repository_storage'>,
  revision: string,
  path: string,
): Promise<(WikiPage & { content: string }) | null> {
  const gitDir = await existingWikiDir(db, config, { kind: 'project', project });
  if (gitDir === null || !validRevision(revision)) return null;
  const pages = await pagesAt(gitDir, revision);
  const page = pages?.find((p) => p.path === path) ?? null;
  if (page === null) return null;
  const read = await withContent(gitDir, page);
  return { ...read, content: read.content ?? '' };
}
