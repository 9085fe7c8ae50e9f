// A release's and a release link's rules, in the platform's words (Release and Releases::Link,
// 14.x): a link needs a name and an http, https or ftp URL, both unique in their release, and an
// optional file path of the form /dir/file; a release's description is bounded.
import type { FieldErrors } from '../../core/errors.ts';
import { blockedUrlMessage } from '../../domain/url-blocker.ts';
import { BLANK, TAKEN, addError, tooLong } from '../../domain/validation.ts';

const URL_SCHEMES = ['http', 'https', 'ftp'];
const FILEPATH_MAX_LENGTH = 128;
/** Releases::Link::FILEPATH_REGEX: a slash, then no doubled slash, word characters, dots and dashes, ending in a letter or digit. */
const FILEPATH = /^\/[^/](?!.*\/\/)[-.\w/]+[\da-zA-Z]+$/;
/** Gitlab::Database::MAX_TEXT_SIZE_LIMIT. */
export const DESCRIPTION_MAX_LENGTH = 1_000_000;

/** Ruby's blank?: empty or whitespace only. */
const blank = (value: string) => value.trim() === '';

export interface LinkFields {
  name: string;
  /** Stripped of surrounding whitespace, as the URL validator stores it. */
  url: string;
  filepath: string | null;
}

/** Which of the link's unique fields another link of its release holds already. */
export interface LinkClashes {
  name: boolean;
  url: boolean;
  filepath: boolean;
}

/** The link's errors by field, in the model's order (url, name, filepath). */
export function linkErrors(link: LinkFields, clashes: LinkClashes): FieldErrors {
  const errors: FieldErrors = {};
  if (blank(link.url)) {
    addError(errors, 'url', BLANK);
    addError(errors, 'url', 'must be a valid URL');
  } else {
    const blocked = blockedUrlMessage(link.url, URL_SCHEMES);
    if (blocked) addError(errors, 'url', blocked);
    if (clashes.url) addError(errors, 'url', TAKEN);
  }
  if (blank(link.name)) addError(errors, 'name', BLANK);
  else if (clashes.name) addError(errors, 'name', TAKEN);
  if (link.filepath !== null) {
    if (clashes.filepath && !blank(link.filepath)) addError(errors, 'filepath', TAKEN);
    if (link.filepath.length > FILEPATH_MAX_LENGTH) addError(errors, 'filepath', tooLong(FILEPATH_MAX_LENGTH));
    else if (!FILEPATH.test(link.filepath)) addError(errors, 'filepath', 'is in an invalid format');
  }
  return errors;
}

/**
 * The values given to more than one of the new links of a release, per field (the platform's
 * nested_attributes_duplicates rule on name, url and filepath; links without a file path share none).
 */
export function duplicateLinkValues(links: readonly LinkFields[]): string[] {
  const found: string[] = [];
  for (const field of ['name', 'url', 'filepath'] as const) {
    const counts = new Map<string, number>();
    for (const link of links) {
      const value = link[field];
      if (value !== null && value !== '') counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    const repeated = [...counts].filter(([, n]) => n > 1).map(([value]) => value);
    if (repeated.length > 0) found.push(repeated.join(', '));
  }
  return found;
}

export function descriptionErrors(description: string | null | undefined): FieldErrors {
  const errors: FieldErrors = {};
  if (description && [...description].length > DESCRIPTION_MAX_LENGTH) addError(errors, 'description', tooLong(DESCRIPTION_MAX_LENGTH));
  return errors;
}
