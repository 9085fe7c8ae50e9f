// The path rules every namespace shares (usernames and group paths): the allowed characters, the
// words the web routes reserve, at the top level and below a group, and full paths that groups and
// projects may not share.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Letters, digits, '_', '-', '.'; not starting with '-'; not ending in '.', '.git' or '.atom'. */
const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;

export const NAMESPACE_FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Routes at the top level of the web interface: no user or top-level group may take these paths. */
const TOP_LEVEL_ROUTES = new Set([
  '-', '.well-known', '404.html', '422.html', '500.html', '502.html', '503.html', 'admin', 'api',
  'apple-touch-icon-precomposed.png', 'apple-touch-icon.png', 'assets', 'dashboard', 'deploy.html', 'explore',
  'favicon.ico', 'favicon.png', 'files', 'groups', 'health_check', 'help', 'import', 'jwt', 'login', 'oauth',
  'profile', 'projects', 'public', 'robots.txt', 's', 'search', 'sitemap', 'sitemap.xml', 'sitemap.xml.gz',
  'slash-command-logo.png', 'snippets', 'unsubscribes', 'uploads', 'users', 'v2',
]);

/** Words that follow a project path in wildcard routes, and the group routes: no subgroup may take these. */
const NESTED_ROUTES = new Set([
  '-', 'badges', 'blame', 'blob', 'builds', 'commits', 'create', 'create_dir', 'edit', 'files', 'find_file',
  'new', 'preview', 'raw', 'refs', 'tree', 'update', 'wikis',
]);

export function isNamespaceFormat(path: string): boolean {
  return NAMESPACE_FORMAT.test(path) && !/\.(git|atom)$/i.test(path);
}

/** Whether the path is a word the routes reserve, at the top level or below a group. */
export function isReservedPath(path: string, topLevel: boolean): boolean {
  return (topLevel ? TOP_LEVEL_ROUTES : NESTED_ROUTES).has(path.toLowerCase());
}

/**
 * A free path close to `path`: the part before any '@', only allowed characters, without trailing
 * '.git', '.atom' or '.' and leading '-', 'blank' when nothing is left; then `base`, `base1`,
 * `base2`, … up to the first that `taken` refuses.
 */
export async function suggestPath(path: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  let base = path
    .replace(/@.*$/s, '')
    .replace(/[^a-zA-Z0-9_\-.]/g, '')
    .replace(/(\.atom|\.git|\.)*$/, '')
    .replace(/^-+/, '');
  if (base.trim() === '') base = 'blank';
  let candidate = base;
  for (let counter = 1; await taken(candidate); counter++) candidate = `${base}${counter}`;
  return candidate;
}

/**
 * Whether a namespace or a project (groups and projects share web routes) already uses this full
 * path, ignoring case; `except` leaves out the namespace or project being renamed.
 */
export async function fullPathTaken(db: Kysely<DB>, fullPath: string, except: { namespaceId?: number; projectId?: number } = {}): Promise<boolean> {
  const lower = fullPath.toLowerCase();
  let namespaces = db.selectFrom('namespaces').select('id').where(sql`lower(full_path)`, '=', lower);
  if (except.namespaceId !== undefined) namespaces = namespaces.where('id', '!=', except.namespaceId);
  if (await namespaces.executeTakeFirst()) return true;
  let projects = db.selectFrom('projects').select('id').where(sql`lower(full_path)`, '=', lower);
  if (except.projectId !== undefined) projects = projects.where('id', '!=', except.projectId);
  return (await projects.executeTakeFirst()) !== undefined;
}
