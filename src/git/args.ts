// Validation of everything a user names before git sees it: ref names (git check-ref-format's
// rules, written out so that no process is needed to check a name), revisions, object ids and
// paths inside a repository. Functions in git/ refuse what fails here with a GitError 'invalid'.
import { GitError } from './run.ts';

/** The object id of "nothing": as an old value, the ref must not exist yet. */
export const ZERO_OID = '0'.repeat(40);

/** A loose ref is a file, and `<name>.lock` is written beside it: components stay within NAME_MAX. */
const MAX_COMPONENT_BYTES = 250;
const MAX_REF_BYTES = 1024;
const MAX_PATH_BYTES = 4096;

// Control characters, DEL, and what git reserves for revision syntax: space ~ ^ : ? * [ \.
const FORBIDDEN_REF_CHARS = /[\x00-\x20\x7f~^:?*[\\]/;

/**
 * A full ref name (refs/heads/x, refs/tags/v1) by git check-ref-format's rules: no `..`, no
 * control characters or any of ` ~^:?*[\`, no `@{`, not `@`, no empty component (so no leading,
 * trailing or doubled `/`), no component starting with `.` or ending with `.lock`, no trailing `.`,
 * at least two components.
 */
export function validRefName(name: string): boolean {
  if (typeof name !== 'string' || name === '' || name === '@' || !name.isWellFormed()) return false;
  if (Buffer.byteLength(name) > MAX_REF_BYTES) return false;
  if (FORBIDDEN_REF_CHARS.test(name) || name.includes('..') || name.includes('@{') || name.endsWith('.')) return false;
  const components = name.split('/');
  if (components.length < 2) return false;
  return components.every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock') && Buffer.byteLength(c) <= MAX_COMPONENT_BYTES);
}

/**
 * The platform's rule for names given to new branches and tags (Gitlab::GitRefValidator): not
 * blank, not starting with `refs/heads/`, `refs/remotes/` or `-`, not `HEAD`, and valid once
 * prefixed.
 */
function validShortName(name: string, prefix: string): boolean {
  if (typeof name !== 'string' || name === '' || name === 'HEAD') return false;
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/') || name.startsWith('-')) return false;
  return validRefName(`${prefix}${name}`);
}

export function validBranchName(name: string): boolean {
  return validShortName(name, 'refs/heads/');
}

export function validTagName(name: string): boolean {
  return validShortName(name, 'refs/tags/');
}

/** A full SHA-1 object id, lower case. */
export function isObjectId(value: string): boolean {
  return typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
}

/**
 * A revision a user may name: a branch, a tag, an object id (full or abbreviated), or an
 * expression on one (`main~2`, `v1.0^{commit}`). Never an option, never `rev:path` (paths are
 * validated separately), no whitespace or control characters.
 */
export function validRevision(value: string): boolean {
  if (typeof value !== 'string' || value === '' || !value.isWellFormed()) return false;
  if (Buffer.byteLength(value) > MAX_REF_BYTES) return false;
  return !value.startsWith('-') && !/[\x00-\x20\x7f:\\]/.test(value);
}

/** Names that would reach or shadow the repository's own directory, as git itself refuses them. */
const GIT_DIR_NAME = /^(\.git[. ]*|git~1)$/i;

/**
 * A path inside a repository's tree, normalized: `.` and empty components are dropped (so `./a//b/`
 * is `a/b`). Null when it is empty, absolute, contains NUL, climbs with `..`, or names `.git`.
 */
export function safeRepoPath(input: string): string | null {
  if (typeof input !== 'string' || input.startsWith('/') || input.includes('\0') || !input.isWellFormed()) return null;
  const components = input.split('/').filter((c) => c !== '' && c !== '.');
  if (components.length === 0) return null;
  if (components.some((c) => c === '..' || GIT_DIR_NAME.test(c))) return null;
  const path = components.join('/');
  return Buffer.byteLength(path) <= MAX_PATH_BYTES ? path : null;
}

// Throwing forms for the functions of git/, which refuse bad input before starting git.

export function requireRefName(name: string): string {
  if (!validRefName(name) || !name.startsWith('refs/')) throw new GitError('invalid', `invalid ref name: ${JSON.stringify(name)}`);
  return name;
}

export function requireBranchName(name: string): string {
  if (!validBranchName(name)) throw new GitError('invalid', `invalid branch name: ${JSON.stringify(name)}`);
  return name;
}

export function requireObjectId(value: string): string {
  if (!isObjectId(value)) throw new GitError('invalid', `invalid object id: ${JSON.stringify(value)}`);
  return value;
}

export function requireRevision(value: string): string {
  if (!validRevision(value)) throw new GitError('invalid', `invalid revision: ${JSON.stringify(value)}`);
  return value;
}

export function requireRepoPath(input: string): string {
  const path = safeRepoPath(input);
  if (path === null) throw new GitError('invalid', `invalid path: ${JSON.stringify(input)}`);
  return path;
}
