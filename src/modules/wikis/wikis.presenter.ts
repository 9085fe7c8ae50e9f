// Wiki pages and attachments as the API shows them (Entities::WikiPageBasic, WikiPage, WikiAttachment).
import { escapeHtml } from '../../domain/single-line-html.ts';
import { renderMarkdown } from '../../domain/markdown.ts';
import type { PageFile } from './wiki-pages.ts';
import { attachmentMarkdown } from './wiki-pages.ts';
import type { Attachment } from './wikis.service.ts';

export function presentWikiPageBasic(page: PageFile): { format: PageFile['format']; slug: string; title: string } {
  return { format: page.format, slug: page.slug, title: page.title };
}

/** A page's content as HTML: Markdown rendered; the other formats, which Quarry does not render, as escaped text. */
function contentHtml(page: PageFile & { content: string }): string {
  if (page.format === 'markdown') return renderMarkdown(page.content);
  return page.content === '' ? '' : `<pre>${escapeHtml(page.content)}</pre>`;
}

export function presentWikiPage(page: PageFile & { content: string }, options: { renderHtml?: boolean } = {}) {
  return {
    ...presentWikiPageBasic(page),
    content: options.renderHtml ? contentHtml(page) : page.content,
    // The content is read as UTF-8 text, which is what the platform reports for it.
    encoding: 'UTF-8',
  };
}

export function presentWikiAttachment(attachment: Attachment) {
  return {
    file_name: attachment.file_name,
    file_path: attachment.file_path,
    branch: attachment.branch,
    link: { url: attachment.file_path, markdown: attachmentMarkdown(attachment.file_name, attachment.file_path) },
  };
}
