// What a wiki page is in its repository, as the platform (14.x) reads and writes wikis: a file
// `<slug>.<extension>` on the wiki's branch, where the extension names the markup format, the
// slug is the title with its spaces as hyphens (directories kept), and the title shown is the
// file's base name with its hyphens as spaces. Pure: no git, no database.
import { BLANK, tooLarge } from '../../domain/validation.ts';

/** The formats a page may be written in, in the platform's order (Wiki::MARKUPS). */
export const WIKI_FORMATS = ['markdown', 'rdoc', 'asciidoc', 'org'] as const;
export type WikiFormat = (typeof WIKI_FORMATS)[number];

/** The extension a page of each format is written with. */
const WRITTEN_EXTENSION: Record<WikiFormat, string> = { markdown: 'md', rdoc: 'rdoc', asciidoc: 'asciidoc', org: 'org' };

/** Every extension a page is recognized by (pages pushed over git may use the longer or shorter forms). */
const FORMAT_OF_EXTENSION: Record<string, WikiFormat> = { md: 'markdown', markdown: 'markdown', mkd: 'markdown', mkdn: 'markdown', mdown: 'markdown', rdoc: 'rdoc', asciidoc: 'asciidoc', adoc: 'asciidoc', org: 'org' };

/** The branch every wiki writes to (Gitlab::Git::Wiki.default_ref in 14.x). */
export const WIKI_BRANCH = 'master';

/** Where uploaded attachments go in the wiki repository (Wikis::CreateAttachmentService). */
export const ATTACHMENT_DIRECTORY = 'uploads';

/** The platform's limits on a title's file name and on each directory name in it (WikiPage). */
export const MAX_TITLE_BYTES = 245;
export const MAX_DIRECTORY_BYTES = 255;

export interface PageFile {
  /** The file's path in the repository. */
  path: string;
  slug: string;
  title: string;
  format: WikiFormat;
}

/** The page a file of the repository is, or null for a file that is no page (an attachment, say). */
export function pageOfPath(path: string): PageFile | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return null;
  const format = FORMAT_OF_EXTENSION[base.slice(dot + 1).toLowerCase()];
  if (format === undefined) return null;
  const slug = path.slice(0, path.length - (base.length - dot));
  return { path, slug, title: unhyphenize(base.slice(0, dot)), format };
}

/** WikiPage.unhyphenize: runs of hyphens read as one space. */
export const unhyphenize = (name: string): string => name.replace(/-+/g, ' ');

/**
 * A title as the platform keeps it: each directory component squished (blanks trimmed, runs of
 * whitespace one space), `.` and empty components dropped and `..` climbing no higher than the
 * root, as the platform expands the title against `/`.
 */
export function normalizeTitle(title: string): string {
  const parts: string[] = [];
  for (const raw of title.split('/')) {
    const part = raw.trim().replace(/\s+/g, ' ');
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** The slug a title is written under: its spaces as hyphens. */
export const slugOfTitle = (title: string): string => normalizeTitle(title).replaceAll(' ', '-');

/** The file a page of this slug and format is written to. */
export const pagePath = (slug: string, format: WikiFormat): string => `${slug}.${WRITTEN_EXTENSION[format]}`;

/** The directory of a slug ('' at the root). */
export const directoryOf = (slug: string): string => (slug.includes('/') ? slug.slice(0, slug.lastIndexOf('/')) : '');

/**
 * The new title of a page being renamed (WikiPage#process_title): a title without a directory
 * keeps the page in its directory, one starting with `/` places it from the root.
 */
export function renamedTitle(currentSlug: string, title: string): string {
  const squished = title
    .split('/')
    .map((c) => c.trim().replace(/\s+/g, ' '))
    .join('/');
  if (squished.startsWith('/') && !squished.slice(1).includes('/')) return squished.slice(1);
  if (!squished.includes('/')) return [directoryOf(currentSlug), squished].filter((p) => p !== '').join('/');
  return squished;
}

/** The validation errors of a page about to be written (WikiPage's validations), by field. */
export function pageErrors(title: string, content: string, maxContentBytes: number): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (title.trim() === '') add('title', BLANK);
  if (content.trim() === '') add('content', BLANK);
  const components = title.split('/');
  const file = components.pop() ?? '';
  if (Buffer.byteLength(file) > MAX_TITLE_BYTES) add('title', `exceeds the limit of ${MAX_TITLE_BYTES} bytes`);
  for (const dir of components) {
    if (Buffer.byteLength(dir) > MAX_DIRECTORY_BYTES) add('title', `exceeds the limit of ${MAX_DIRECTORY_BYTES} bytes for directory name "${dir}"`);
  }
  const size = Buffer.byteLength(content);
  if (size > maxContentBytes) add('content', tooLarge(size, maxContentBytes));
  return errors;
}

/** Whether an attachment's name makes it embeddable (FileTypeDetection: an image or a video). */
const EMBEDDABLE = /\.(png|jpe?g|gif|bmp|tiff?|ico|webp|svg|mp4|m4v|mov|webm|ogv)$/i;

/** The upload's file name as the platform keeps it: at most 255 characters, the extension kept. */
export function attachmentFileName(name: string): string {
  const chars = [...name];
  if (chars.length <= 255) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot) : '';
  return [...name.slice(0, name.length - extension.length)].slice(0, 255 - [...extension].length).join('') + extension;
}

/** Gitlab::FileMarkdownLinkBuilder: `![name](path)` for an image or video (named without extension), else `[file](path)`. */
export function attachmentMarkdown(fileName: string, filePath: string): string {
  const embeddable = EMBEDDABLE.test(fileName);
  const dot = fileName.lastIndexOf('.');
  const name = embeddable && dot > 0 ? fileName.slice(0, dot) : fileName;
  return `${embeddable ? '!' : ''}[${name.replaceAll(']', '\\]')}](${filePath})`;
}
