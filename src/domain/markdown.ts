// Markdown to HTML for the `*_html` fields (the platform's MarkupHelper.markdown_field): CommonMark
// with tables and strikethrough, raw HTML escaped rather than passed through and unsafe link
// schemes dropped, so that the HTML is safe to show. The platform's own extensions (references,
// emoji, source positions) are not rendered.
import MarkdownIt from 'markdown-it';

const renderer = new MarkdownIt({ html: false, linkify: true });

/** The HTML of a Markdown text; an empty string for none. */
export function renderMarkdown(text: string | null): string {
  if (text === null || text === '') return '';
  return renderer.render(text).trimEnd();
}
