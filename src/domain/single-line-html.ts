// The platform's single-line rendering of a short text (Banzai's SingleLinePipeline, as label
// descriptions are cached as description_html): no Markdown, the text HTML-escaped, and URLs made
// links, those leaving the instance marked rel="nofollow noreferrer noopener" target="_blank".
// Emoji and references (#1, @user, ~label) are not rendered yet: they stay as text.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Ruby's CGI.escapeHTML. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A scheme, ://, then anything up to white space or '>', not ending in ? ! . , or : (AutolinkFilter). */
const LINK = /[a-z][a-z0-9+.-]+:\/\/[^\s>]+/g;
const TRAILING_PUNCTUATION = /[?!.,:]+$/;
const TRAILING_ENTITIES = /(?:&[\w#]+;)+$/;
const PAIRS: Record<string, string> = { "'": "'", '"': '"', ')': '(', ']': '[', '}': '{' };
const UNSAFE_SCHEMES = ['javascript', 'vbscript', 'data'];

const count = (text: string, char: string) => text.split(char).length - 1;

/** One matched link (in escaped text) as an anchor, followed by what the platform leaves outside it. */
function linkFor(match: string, externalUrl: string): string {
  const scheme = match.slice(0, match.indexOf(':')).toLowerCase();
  if (UNSAFE_SCHEMES.some((unsafe) => scheme.includes(unsafe))) return match;
  let link = match;
  let dropped = TRAILING_ENTITIES.exec(link)?.[0] ?? '';
  link = link.slice(0, link.length - dropped.length);
  const last = link.at(-1) ?? '';
  if (last in PAIRS && (PAIRS[last] === last || count(link, last) !== count(link, PAIRS[last]))) {
    dropped = last + dropped;
    link = link.slice(0, -1);
  }
  const external = !`${link}/`.startsWith(`${externalUrl}/`);
  const attributes = external ? ' rel="nofollow noreferrer noopener" target="_blank"' : '';
  return `<a href="${link}"${attributes}>${link}</a>${dropped}`;
}

/** The HTML of a one-line text; `externalUrl` tells the instance's own links from the others. */
export function singleLineHtml(text: string, externalUrl: string): string {
  return escapeHtml(text).replace(LINK, (found) => {
    const trailing = TRAILING_PUNCTUATION.exec(found)?.[0] ?? '';
    const match = found.slice(0, found.length - trailing.length);
    return /:\/\/./.test(match) ? linkFor(match, externalUrl) + trailing : found;
  });
}
