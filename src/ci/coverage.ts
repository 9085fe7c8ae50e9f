// Test coverage from a job's trace with the job's `coverage:` regex (`Gitlab::Ci::Trace::Stream#
// extract_coverage`): lines are scanned from the last one backwards; in a line with matches, the last
// match (its last group when the regex has groups) is taken, and the first number in it is the
// coverage; a match without a number sends the scan on to earlier lines. Users' regexes run on RE2
// (re2js), linear in the input, never on JavaScript's backtracking engine. Only a bounded tail of the
// trace is read: coverage summaries are printed at the end of a job.
import { RE2JS } from 're2js';

/** How much of the end of a trace is scanned by default. */
export const DEFAULT_COVERAGE_TAIL_BYTES = 1024 * 1024;

const FIRST_NUMBER = /\d+(\.\d+)?/;

/** The pattern inside a YAML `coverage: '/…/'` value (the platform stores it without the slashes). */
export function coveragePattern(yamlValue: string): string {
  return yamlValue.length >= 2 && yamlValue.startsWith('/') && yamlValue.endsWith('/') ? yamlValue.slice(1, -1) : yamlValue;
}

function compile(pattern: string): RE2JS | null {
  try {
    return RE2JS.compile(pattern);
  } catch {
    return null; // a bad regex yields no coverage, as on the platform
  }
}

/** The text `scan` keeps from a line: the last match, or its last group; undefined when no match. */
function lastMatch(regex: RE2JS, line: string): string | null | undefined {
  const matcher = regex.matcher(line);
  const groups = matcher.groupCount();
  let last: string | null | undefined;
  let from = 0;
  while (from <= line.length && matcher.find(from)) {
    last = groups > 0 ? matcher.group(groups) : matcher.group();
    from = matcher.end() > matcher.start() ? matcher.end() : matcher.end() + 1;
  }
  return last;
}

/** Coverage found in `text` (the whole text is scanned, last line first), or null. */
export function extractCoverage(text: string, pattern: string): number | null {
  if (pattern === '') return null;
  const regex = compile(pattern);
  if (regex === null) return null;
  let end = text.endsWith('\n') ? text.length - 1 : text.length; // no empty line after the last break
  while (end >= 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).replace(/\r$/, '');
    const match = lastMatch(regex, line);
    if (match === null) return null; // the platform's scan yields nil for an unset group: it gives up
    if (match !== undefined) {
      const number = FIRST_NUMBER.exec(match);
      if (number) return Number.parseFloat(number[0]);
    }
    if (start === 0) break;
    end = start - 1;
  }
  return null;
}

/** Random access to a stored trace: its size and a read of `length` bytes at `position`. */
export interface TraceSource {
  size: number;
  read(position: number, length: number): Promise<Uint8Array>;
}

export interface TailOptions {
  /** Bytes read from the end of the trace at most (default 1 MiB). */
  maxBytes?: number;
}

/**
 * Coverage from the last `maxBytes` of a trace. A line cut by the start of the tail is dropped, so
 * only whole lines are matched; nothing before the tail is read.
 */
export async function extractCoverageFromTail(source: TraceSource, pattern: string, options: TailOptions = {}): Promise<number | null> {
  const maxBytes = options.maxBytes ?? DEFAULT_COVERAGE_TAIL_BYTES;
  const position = Math.max(0, source.size - maxBytes);
  const bytes = await source.read(position, source.size - position);
  let text = new TextDecoder('utf-8').decode(bytes);
  if (position > 0) {
    const firstBreak = text.indexOf('\n');
    text = firstBreak === -1 ? '' : text.slice(firstBreak + 1);
  }
  return extractCoverage(text, pattern);
}

/** A TraceSource over an open file. */
export async function fileTraceSource(handle: import('node:fs/promises').FileHandle): Promise<TraceSource> {
  const { size } = await handle.stat();
  return {
    size,
    async read(position, length) {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    },
  };
}
