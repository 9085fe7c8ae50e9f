// Plain text out of what users send: Ruby's strip, and the text of an HTML fragment as the
// platform's sanitizer leaves it (titles of labels and milestones lose their markup).
import type * as Htmlparser2 from 'htmlparser2';
import { lazyModule } from '../core/lazy-module.ts';

const htmlparser2 = lazyModule<typeof Htmlparser2>('htmlparser2');

/** Ruby's String#strip: ASCII white space and NUL. */
export const rubyStrip = (text: string) => text.replace(/^[\t\n\v\f\r \0]+|[\t\n\v\f\r \0]+$/g, '');

/** Elements whose text the platform's sanitizer drops along with the tags. */
const DROPPED_CONTENTS = new Set(['iframe', 'math', 'noembed', 'noframes', 'noscript', 'plaintext', 'script', 'style', 'svg', 'xmp']);

/** The text of an HTML fragment, entities decoded (what Sanitize.clean and CGI.unescapeHTML leave). */
export function withoutHtml(value: string): string {
  const out: string[] = [];
  let dropping = 0;
  const parser = new (htmlparser2().Parser)(
    {
      onopentagname: (name) => void (DROPPED_CONTENTS.has(name) && dropping++),
      onclosetag: (name) => void (DROPPED_CONTENTS.has(name) && dropping > 0 && dropping--),
      ontext: (text) => void (dropping === 0 && out.push(text)),
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(value);
  parser.end();
  return out.join('');
}

/**
 * What a given title (or a label's description) is stored as: its text without the markup; blank
 * or absent leaves the stored value alone (undefined), as the models' setters ignore blank values.
 */
export function cleanText(value: string | null | undefined): string | undefined {
  if (value === undefined || value === null || rubyStrip(value) === '') return undefined;
  return withoutHtml(value);
}
