// The command a client asks the SSH server to run, split into words as the platform's shell
// splits it (go-shellwords: blanks separate words, single quotes keep everything, a backslash keeps
// the next character, double quotes group words; an unquoted ; & | < > ends the command line).
// Nothing is ever run through a shell: the words only name one of a few known commands.

export class CommandLineError extends Error {}

const BLANK = /[ \t\r\n]/;
const END_OF_COMMAND = /[;&|<>]/;

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: "'" | '"' | null = null;
  let escaped = false;
  for (const ch of line) {
    if (escaped) {
      word += ch;
      started = true;
      escaped = false;
    } else if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
    } else if (ch === '\\') {
      escaped = true;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (BLANK.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else if (END_OF_COMMAND.test(ch)) {
      break;
    } else {
      word += ch;
      started = true;
    }
  }
  if (quote !== null || escaped) throw new CommandLineError('invalid command line string');
  if (started) words.push(word);
  return words;
}

/**
 * The words of a command line, with `git upload-pack …` (as Git for Windows 2.14 sends it) read
 * as `git-upload-pack …`.
 */
export function parseCommandLine(line: string): string[] {
  const words = splitCommandLine(line);
  return words.length > 1 && words[0] === 'git' ? [`git-${words[1]}`, ...words.slice(2)] : words;
}
