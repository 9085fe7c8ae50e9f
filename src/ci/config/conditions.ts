// The clauses rules and only/except share, evaluated against one pipeline: expressions, changed
// paths, existing files (listed once, lazily) and ref patterns.
import { evaluateExpression } from './expressions.ts';
import { expandString } from './expand-string.ts';
import { globMatches, hasWildcard } from './glob.ts';
import { compileRubyRegex, isRubyRegexSyntax } from './regex.ts';
import type { SeedContext } from './types.ts';

/** The platform stops comparing `exists` patterns after this many and counts the clause as met. */
const MAX_PATTERN_COMPARISONS = 10_000;

export class PipelineFacts {
  readonly context: SeedContext;
  private paths: Promise<string[]> | null = null;

  constructor(context: SeedContext) {
    this.context = context;
  }

  listPaths(): Promise<string[]> {
    this.paths ??= this.context.listPaths().then((paths) => [...paths].sort());
    return this.paths;
  }

  expression(expression: string, variables: Record<string, string>): boolean {
    return evaluateExpression(expression, variables);
  }

  /** True when any changed path matches a glob; true without a diff. */
  changes(globs: readonly string[], variables: Record<string, string>): boolean {
    const changed = this.context.changedPaths;
    if (changed === null) return true;
    const expanded = globs.map((glob) => expandString(glob, (name) => variables[name]));
    return changed.some((path) => expanded.some((glob) => globMatches(glob, path)));
  }

  async exists(globs: readonly string[]): Promise<boolean> {
    const paths = await this.listPaths();
    const exact = globs.filter((glob) => !hasWildcard(glob));
    if (exact.some((glob) => binarySearch(paths, glob))) return true;
    let comparisons = 0;
    for (const glob of globs.filter(hasWildcard)) {
      for (const path of paths) {
        if (++comparisons > MAX_PATTERN_COMPARISONS) return true;
        if (globMatches(glob, path)) return true;
      }
    }
    return false;
  }

  /** One only/except `refs` entry (build/policy/refs.rb). */
  refMatches(pattern: string): boolean {
    const { source, refType, ref } = this.context;
    // A merge request pipeline runs on refs/merge-requests/…: neither a branch nor a tag.
    const mergeRequest = source === 'merge_request_event';
    if (!mergeRequest && refType === 'tag' && pattern === 'tags') return true;
    if (!mergeRequest && refType === 'branch' && pattern === 'branches') return true;
    const sourceName = source === 'merge_request_event' ? 'merge_request' : source;
    if (pattern === sourceName || pattern === pluralize(sourceName)) return true;
    // A `ref@project/path` pattern also names the project.
    let refPattern = pattern;
    const at = pattern.lastIndexOf('@');
    if (at > 0 && !isRubyRegexSyntax(pattern)) {
      if (pattern.slice(at + 1) !== this.context.variables.CI_PROJECT_PATH) return false;
      refPattern = pattern.slice(0, at);
    }
    // Ref patterns are for branch and tag pipelines only, not merge request ones.
    if (mergeRequest) return false;
    const regex = isRubyRegexSyntax(refPattern) ? compileRubyRegex(refPattern) : null;
    return regex ? regex.test(ref) : refPattern === ref;
  }
}

function pluralize(word: string): string {
  return /(s|sh|ch|x)$/.test(word) ? `${word}es` : `${word}s`;
}

function binarySearch(sorted: readonly string[], target: string): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] === target) return true;
    if (sorted[mid] < target) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
