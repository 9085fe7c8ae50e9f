// Dotenv reports (`artifacts:reports:dotenv`), read as the platform's Ci::ParseDotenvArtifactService
// reads them on upload: a gzip stream of one member per file, each file's lines `KEY=VALUE` (the
// first `=` splits, both sides trimmed, quotes and `$` references kept as written, no comments and
// no empty lines); at most 20 variables in a report of less than 5 KB (14.x). A violation refuses
// the upload with the platform's message. A key given twice keeps its first place and its last
// value (as later releases do; 14.x failed).
import { gunzipMembers } from './gzip.ts';

/** The report file's size must stay below this (the platform's MAX_ACCEPTABLE_DOTENV_SIZE, 5 KB). */
export const DOTENV_MAX_BYTES = 5 * 1024;
export const DOTENV_MAX_VARIABLES = 20;

export class DotenvError extends Error {}

export interface DotenvVariable {
  key: string;
  value: string;
}

// Ruby's String#strip: ASCII whitespace and NUL.
const strip = (text: string) => text.replace(/^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g, '');

/** A CI/CD variable key's rules (the platform's HasVariable validations), in their order. */
function keyErrors(key: string): string[] {
  const errors: string[] = [];
  if (key === '') errors.push("Key can't be blank");
  if (key.length > 255) errors.push('Key is too long (maximum is 255 characters)');
  if (!/^[a-zA-Z0-9_]+$/.test(key)) errors.push("Key can contain only letters, digits and '_'.");
  return errors;
}

/**
 * The variables of an uploaded report, or the platform's refusal: too large (judged before it is
 * read), in another format than gzip (the only one the platform pairs with dotenv), or unreadable.
 */
export async function readDotenvReport(size: number, format: string, read: () => Promise<Uint8Array>): Promise<DotenvVariable[]> {
  if (size >= DOTENV_MAX_BYTES) throw new DotenvError(`Dotenv Artifact Too Big. Maximum Allowable Size: ${DOTENV_MAX_BYTES}`);
  if (format !== 'gzip') throw new DotenvError('Validation failed: Invalid file format with specified file type');
  const report = await read();
  let files: Buffer[];
  try {
    files = gunzipMembers(report);
  } catch {
    throw new DotenvError('Invalid Format');
  }
  return parseDotenv(files);
}

/** The variables of a report's files (each file a blob of text), or the platform's refusal. */
export function parseDotenv(files: readonly Uint8Array[]): DotenvVariable[] {
  const variables = new Map<string, string>();
  for (const file of files) {
    // UTF-8 (invalid bytes replaced), without a byte order mark.
    const text = new TextDecoder('utf-8').decode(file);
    for (const line of text.split(/(?<=\n)/)) {
      if (line === '') continue;
      const content = line.endsWith('\n') ? line.slice(0, -1) : line;
      const at = content.indexOf('=');
      if (at < 0) throw new DotenvError('Invalid Format');
      variables.set(strip(content.slice(0, at)), strip(content.slice(at + 1)));
    }
  }
  if (variables.size > DOTENV_MAX_VARIABLES) throw new DotenvError(`Dotenv files cannot have more than ${DOTENV_MAX_VARIABLES} variables`);
  for (const key of variables.keys()) {
    const errors = keyErrors(key);
    if (errors.length > 0) throw new DotenvError(`Validation failed: ${errors.join(', ')}`);
  }
  return [...variables].map(([key, value]) => ({ key, value }));
}
