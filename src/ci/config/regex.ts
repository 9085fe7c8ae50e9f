// Users' regular expressions, written `/pattern/flags` as in Ruby, run by RE2 (re2js) in linear
// time: the platform's Gitlab::UntrustedRegexp::RubySyntax. Never JavaScript's backtracking RegExp.
import { RE2JS } from 're2js';

export interface UserRegex {
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** Every non-overlapping match, in order (for coverage extraction). */
  matches(text: string): string[];
}

const RUBY_SYNTAX = /^\/(.*)\/([ismU]*)$/s;

/** Whether `text` is written as `/…/flags`. */
export function isRubyRegexSyntax(text: string): boolean {
  return RUBY_SYNTAX.test(text) && text.length > 2;
}

/** Compiles `/pattern/flags`; null when it is not one or RE2 rejects it. */
export function compileRubyRegex(text: string): UserRegex | null {
  const parts = RUBY_SYNTAX.exec(text);
  if (!parts || parts[1] === '') return null;
  return compileRegex(parts[1], parts[2]);
}

/** Compiles a bare pattern with Ruby-style inline flags (i, m, s, U as RE2 reads them). */
export function compileRegex(pattern: string, flags = ''): UserRegex | null {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(flags ? `(?${flags})${pattern}` : pattern);
  } catch {
    return null;
  }
  return {
    test: (subject) => compiled.matcher(subject).find(),
    matches: (subject) => {
      const found: string[] = [];
      const matcher = compiled.matcher(subject);
      while (matcher.find()) {
        found.push(matcher.group() ?? '');
        if (found.length > 10_000) break;
      }
      return found;
    },
  };
}
