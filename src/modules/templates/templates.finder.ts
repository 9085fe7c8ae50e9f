// Reads of templates: Quarry's own (licenses, gitignores, CI files, Dockerfiles) and a project's
// description templates, read from its repository at the default branch through the object
// readers (no process per request).
import { safeRepoPath } from '../../git/args.ts';
import { readBlob, readTree } from '../../git/commits.ts';
import { GitError } from '../../git/run.ts';
import type { GlobalTemplateType } from './templates.schemas.ts';
import { type VendoredLicense, type VendoredTemplate, byteOrder, vendoredLicenses, vendoredTemplate, vendoredTemplateNames } from './vendored-templates.ts';

/**
 * The licenses, sorted by name: only the popular ones with `popular` true, only the others with
 * false, all without it.
 */
export function findLicenses(popular?: boolean): readonly VendoredLicense[] {
  const all = vendoredLicenses();
  return popular === undefined ? all : all.filter((license) => license.featured === popular);
}

/** A license by its key (case matters, as on the platform); null when there is none. */
export function findLicense(key: string): VendoredLicense | null {
  return vendoredLicenses().find((license) => license.key === key) ?? null;
}

/**
 * The licenses a project lists, keys and names: grouped as the platform groups them, popular or
 * not, the groups in the order their first license comes by name.
 */
export function findProjectLicenseNames(): { key: string; name: string }[] {
  const groups = new Map<boolean, VendoredLicense[]>();
  for (const license of vendoredLicenses()) {
    const group = groups.get(license.featured) ?? [];
    groups.set(license.featured, group);
    group.push(license);
  }
  return [...groups.values()].flat().map(({ key, name }) => ({ key, name }));
}

export function findTemplateNames(type: GlobalTemplateType): readonly string[] {
  return vendoredTemplateNames(type);
}

export function findTemplate(type: GlobalTemplateType, key: string): VendoredTemplate | null {
  return vendoredTemplate(type, key);
}

/** Where a project keeps its description templates, and their extension. */
export const DESCRIPTION_TEMPLATE_DIRS = { issues: '.gitlab/issue_templates', merge_requests: '.gitlab/merge_request_templates' } as const;
export type DescriptionTemplateType = keyof typeof DESCRIPTION_TEMPLATE_DIRS;
export const isDescriptionTemplateType = (type: string): type is DescriptionTemplateType => Object.hasOwn(DESCRIPTION_TEMPLATE_DIRS, type);
const MARKDOWN = '.md';

/** The repository's commit the templates are read at; null for an empty repository. */
export interface RepositoryAt {
  dir: string;
  commitId: string;
}

/** The names of the Markdown files in the type's folder at the commit, sorted. */
export async function findDescriptionTemplateNames(at: RepositoryAt | null, type: DescriptionTemplateType): Promise<string[]> {
  if (at === null) return [];
  const entries = await readTree(at.dir, at.commitId, DESCRIPTION_TEMPLATE_DIRS[type]);
  return (entries ?? [])
    .filter((entry) => entry.type === 'blob' && entry.name.endsWith(MARKDOWN) && entry.name.length > MARKDOWN.length)
    .map((entry) => entry.name.slice(0, -MARKDOWN.length))
    .sort(byteOrder);
}

/** Largest description template read. */
const MAX_TEMPLATE_BYTES = 1024 * 1024;

/** One description template by name; null when the folder has no such file (or a larger one). */
export async function findDescriptionTemplate(at: RepositoryAt | null, type: DescriptionTemplateType, name: string): Promise<VendoredTemplate | null> {
  if (at === null) return null;
  const path = safeRepoPath(`${DESCRIPTION_TEMPLATE_DIRS[type]}/${name}${MARKDOWN}`);
  if (path === null || name.split('/').some((part) => part === '' || part === '.' || part === '..')) return null;
  const blob = await readBlob(at.dir, at.commitId, path, { maxBytes: MAX_TEMPLATE_BYTES }).catch((error: unknown) => {
    if (error instanceof GitError && error.kind === 'output_limit') return null;
    throw error;
  });
  if (blob === null) return null;
  return { name: name.slice(name.lastIndexOf('/') + 1), content: blob.content.toString('utf8') };
}
