// Ruby's File.fnmatch? with FNM_PATHNAME | FNM_DOTMATCH | FNM_EXTGLOB, as `changes:` and `exists:`
// use it: `*` and `?` stay within a directory, `**/` spans directories, `[…]` classes, `{a,b}`
// alternatives. Compiled to RE2 (globs are users' text too).
import { RE2JS } from 're2js';

const cache = new Map<string, RE2JS | null>();

export function globMatches(glob: string, path: string): boolean {
  let compiled = cache.get(glob);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(`^${globToRegex(glob)}$`);
    } catch {
      compiled = null;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(glob, compiled);
  }
  return compiled !== null && compiled.matches(path);
}

export function hasWildcard(glob: string): boolean {
  return /[*?[{]/.test(glob);
}

const SPECIAL = /[\\^$.|?*+()[\]{}]/;

function globToRegex(glob: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) {
      out += escape(glob[++i]);
    } else if (c === '*') {
      if (glob[i + 1] === '*' && (i === 0 || glob[i - 1] === '/') && glob[i + 2] === '/') {
        out += '(?:[^/]*/)*';
        i += 2;
      } else {
        while (glob[i + 1] === '*') i++;
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\[/g, '\\[')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else {
      out += escape(c);
    }
  }
  return out + ')'.repeat(braces);
}

function escape(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
}
