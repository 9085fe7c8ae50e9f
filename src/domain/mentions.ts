// The names a text mentions (`@user`, `@group/subgroup`, `@all`), read as the platform's reference
// filters read them: Markdown is parsed, and code (spans, fences, indented blocks) and link texts
// mention nobody. A mention that begins a line of a top-level paragraph, alone or in a run of
// mentions, addresses its user directly (Gitlab::ReferenceExtractor#directly_addressed_users);
// mentions in list items, quotes or further along a line do not.
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';

const parser = new MarkdownIt({ html: false, linkify: true });

/** One path segment of a namespace (Gitlab::PathRegex's namespace format), and a full path of them. */
const SEGMENT = '(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])';
const MENTION = new RegExp(`(?<!\\w)@(${SEGMENT}(?:/${SEGMENT})*)`, 'g');

/** Names in lower case (paths compare without case), each once, in the order met. */
export interface Mentions {
  directlyAddressed: string[];
  /** The others: those mentioned but not directly addressed. */
  mentioned: string[];
}

/** The platform's multi-line quote (`>>>` … `>>>`) as the quoted lines it stands for. */
function expandQuoteFences(text: string): string {
  return text.replace(/^>>>[ \t]*\n([\s\S]*?)\n>>>[ \t]*$/gm, (_, body: string) => body.replace(/^/gm, '> '));
}

/** The mentions of one paragraph's (or a title's) inline tokens; `addressable`: whether its lines may address someone. */
function scanInline(children: readonly Token[], addressable: boolean, out: { direct: Set<string>; other: Set<string> }): void {
  let lineStart = addressable;
  let inLink = 0;
  for (const token of children) {
    if (token.type === 'softbreak' || token.type === 'hardbreak') {
      lineStart = addressable;
    } else if (token.type === 'link_open') {
      inLink += 1;
      lineStart = false;
    } else if (token.type === 'link_close') {
      inLink -= 1;
    } else if (token.type === 'text' && inLink === 0) {
      let from = 0;
      for (const match of token.content.matchAll(MENTION)) {
        if (token.content.slice(from, match.index).trim() !== '') lineStart = false;
        (lineStart ? out.direct : out.other).add(match[1].toLowerCase());
        from = match.index + match[0].length;
      }
      if (token.content.slice(from).trim() !== '') lineStart = false;
    } else if (token.type !== 'text') {
      // Code, emphasis, images: whatever follows is no longer at the start of its line.
      lineStart = false;
    }
  }
}

function result(out: { direct: Set<string>; other: Set<string> }): Mentions {
  return { directlyAddressed: [...out.direct], mentioned: [...out.other].filter((name) => !out.direct.has(name)) };
}

/** The mentions of a Markdown text (a description, a note). */
export function markdownMentions(text: string | null): Mentions {
  const out = { direct: new Set<string>(), other: new Set<string>() };
  if (!text || !text.includes('@')) return result(out);
  const tokens = parser.parse(expandQuoteFences(text), {});
  tokens.forEach((token, i) => {
    if (token.type !== 'inline' || !token.children) return;
    const opener = tokens[i - 1];
    scanInline(token.children, opener?.type === 'paragraph_open' && opener.level === 0, out);
  });
  return result(out);
}

/** The mentions of a single line of Markdown (a title): none addresses anybody directly. */
export function lineMentions(text: string | null): string[] {
  const out = { direct: new Set<string>(), other: new Set<string>() };
  if (text && text.includes('@')) scanInline(parser.parseInline(text, {})[0]?.children ?? [], false, out);
  return result(out).mentioned;
}
