// Trailers ("Signed-off-by: …") of a commit message, found as git finds them (trailer.c, with the
// default configuration: ':' separates, '#' starts a comment), so that a commit read through the
// object reader needs no `git log` process for them. git's rules, in short: the trailer block is
// the last paragraph (after the title) once trailing comments and blank lines are set aside; it
// counts when all its lines are trailers, or when at least a quarter are and one starts with a
// prefix git writes itself; a line starting with whitespace continues the trailer before it.
// trailers.test.ts holds this against git's own output on many messages.

const COMMENT = '#';
/** The line `git commit --cleanup=scissors` cuts at. */
const SCISSORS = `\n${COMMENT} ------------------------ >8 ------------------------`;
const GIT_GENERATED_PREFIXES = ['Signed-off-by: ', '(cherry picked from commit '];

/** git's isspace and isalnum: ASCII only. */
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isAlnum = (c: string | undefined) => c !== undefined && /^[A-Za-z0-9]$/.test(c);
const trim = (text: string) => text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');

/** Whether the line starting at `at` holds only whitespace. */
function isBlankLine(text: string, at: number): boolean {
  let i = at;
  while (i < text.length && text[i] !== '\n' && isSpace(text[i])) i++;
  return i >= text.length || text[i] === '\n';
}

function nextLine(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}

/** Where the last line of text[0, end) starts; -1 for none. */
function lastLine(text: string, end: number): number {
  if (end === 0) return -1;
  for (let i = end - 2; i >= 0; i--) if (text[i] === '\n') return i + 1;
  return 0;
}

/** Where the separator of a line "<token><optional blanks>:…" starting at `at` is, relative to it; -1 when none. */
function findSeparator(text: string, at: number): number {
  let blanks = false;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === ':') return i - at;
    if (!blanks && (isAlnum(c) || c === '-')) continue;
    if (i !== at && (c === ' ' || c === '\t')) {
      blanks = true;
      continue;
    }
    break;
  }
  return -1;
}

/** Where the trailing comments and blank lines (and anything below a scissors line) begin. */
function trailerEnd(text: string): number {
  let cutoff = text.length;
  if (text.startsWith(SCISSORS.slice(1))) cutoff = 0;
  else if (text.includes(SCISSORS)) cutoff = text.indexOf(SCISSORS) + 1;
  // Git's quirk kept: a run of comments that starts the text counts as none (0 means "not in one").
  let runStart = 0;
  let inConflicts = false;
  for (let bol = 0; bol < cutoff; bol = nextLine(text, bol)) {
    if (text[bol] === COMMENT || text[bol] === '\n') {
      if (runStart === 0) runStart = bol;
    } else if (text.startsWith('Conflicts:\n', bol)) {
      inConflicts = true;
      if (runStart === 0) runStart = bol;
    } else if (inConflicts && text[bol] === '\t') {
      // A path of an old conflicts block.
    } else if (runStart !== 0) {
      runStart = 0;
      inConflicts = false;
    }
  }
  return runStart !== 0 ? runStart : cutoff;
}

/** Where the trailer block of text[0, end) starts; `end` when there is none. */
function trailerStart(text: string, end: number): number {
  let title = 0;
  for (; title < end; title = nextLine(text, title)) {
    if (text[title] === COMMENT) continue;
    if (isBlankLine(text, title)) break;
  }
  let onlySpaces = true;
  let recognizedPrefix = false;
  let trailerLines = 0;
  let otherLines = 0;
  // Lines starting with whitespace: continuations of a trailer above, or else not trailers.
  let continuations = 0;
  for (let bol = lastLine(text, end); bol >= title; bol = lastLine(text, bol)) {
    if (text[bol] === COMMENT) {
      otherLines += continuations;
      continuations = 0;
      continue;
    }
    if (isBlankLine(text, bol)) {
      if (onlySpaces) continue;
      otherLines += continuations;
      if ((recognizedPrefix && trailerLines * 3 >= otherLines) || (trailerLines > 0 && otherLines === 0)) return nextLine(text, bol);
      return end;
    }
    onlySpaces = false;
    if (GIT_GENERATED_PREFIXES.some((prefix) => text.startsWith(prefix, bol))) {
      trailerLines++;
      continuations = 0;
      recognizedPrefix = true;
    } else if (findSeparator(text, bol) >= 1 && !isSpace(text[bol])) {
      trailerLines++;
      continuations = 0;
    } else if (isSpace(text[bol])) {
      continuations++;
    } else {
      otherLines += 1 + continuations;
      continuations = 0;
    }
  }
  return end;
}

/** Collapses each line break (and the whitespace after it) of a folded value into one space. */
const unfold = (value: string) => trim(value.replace(/\n[ \t\n\r]*/g, ' '));

/** The trailers of a text as git parses it: key → value, unfolded, the last of a repeated key winning. */
function trailersOf(text: string): Record<string, string> {
  const end = trailerEnd(text);
  const start = trailerStart(text, end);
  const lines = text.slice(start, end).split(/(?<=\n)/);
  const trailers: string[] = [];
  let continuable = false;
  for (const line of lines) {
    if (line === '') continue;
    if (continuable && isSpace(line[0])) {
      trailers[trailers.length - 1] += line;
      continue;
    }
    trailers.push(line);
    continuable = findSeparator(line, 0) >= 1;
  }
  const found: Record<string, string> = {};
  for (const trailer of trailers) {
    const separator = findSeparator(trailer, 0);
    if (separator < 1) continue;
    found[trim(trailer.slice(0, separator))] = unfold(trim(trailer.slice(separator + 1)));
  }
  return found;
}

/** git reads a message as a C string: nothing after a NUL. */
const upToNul = (message: string) => {
  const nul = message.indexOf('\0');
  return nul === -1 ? message : message.slice(0, nul);
};

/** A commit message's trailers as `git log --format=%(trailers:only,unfold)` shows them (blank lines before the title skipped). */
export function logTrailers(message: string): Record<string, string> {
  let text = upToNul(message);
  while (text !== '' && isBlankLine(text, 0)) text = text.slice(nextLine(text, 0));
  return trailersOf(text);
}

/** A commit's or tag's message as `git for-each-ref --format=%(contents)` shows it: empty lines before the title skipped. */
export const refMessage = (message: string) => upToNul(message).replace(/^\n+/, '');

/** A commit message's trailers as `git for-each-ref --format=%(trailers:only,unfold)` shows them. */
export function refTrailers(message: string): Record<string, string> {
  return trailersOf(refMessage(message));
}
