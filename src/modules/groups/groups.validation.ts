// Model validation of a group, with the platform's messages, in the order its validations run:
// name, description, path, nesting, visibility, grace period, name format, then path uniqueness.
import type { FieldErrors } from '../../core/errors.ts';
import { visibilityName } from '../../core/access/levels.ts';
import { NAMESPACE_FORMAT_MESSAGE, isNamespaceFormat, isReservedPath } from '../../domain/namespace-paths.ts';
import { BLANK, TAKEN, addError, atLeast, tooLong, tooShort } from '../../domain/validation.ts';

/** Ancestors a group may have. */
export const MAX_ANCESTORS = 20;

const NAME_FORMAT = /^[\p{L}\p{N}\u{00A9}-\u{1f9ff}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1f9ff}_(). ]*$/u;
export const NAME_FORMAT_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

export interface GroupChanges {
  /** Given only when set or changed. */
  name?: string;
  path?: string;
  description?: string;
  two_factor_grace_period?: number;
  visibility_level?: number;
}

/** What the checks need to know about the group's surroundings, looked up by the caller. */
export interface GroupContext {
  topLevel: boolean;
  /** Ancestors the group would have. */
  ancestors: number;
  parentVisibility: number | null;
  /** Highest visibility among the group's direct subgroups and among its direct projects. */
  childVisibility: number;
  projectVisibility: number;
  pathTaken: boolean;
}

const length = (s: string) => [...s].length;

export function validateGroup(changes: GroupChanges, ctx: GroupContext): FieldErrors {
  const errors: FieldErrors = {};
  const { name, path, description } = changes;
  if (name !== undefined) {
    if (name.trim() === '') addError(errors, 'name', BLANK);
    if (length(name) > 255) addError(errors, 'name', tooLong(255));
  }
  if (description !== undefined && length(description) > 255) addError(errors, 'description', tooLong(255));
  if (path !== undefined) {
    if (path.trim() === '') addError(errors, 'path', BLANK);
    if (length(path) > 255) addError(errors, 'path', tooLong(255));
    if (!isNamespaceFormat(path)) addError(errors, 'path', NAMESPACE_FORMAT_MESSAGE);
    else if (isReservedPath(path, ctx.topLevel)) addError(errors, 'path', `${path} is a reserved name`);
    if (length(path) < 2) addError(errors, 'path', tooShort(2));
  }
  if (ctx.ancestors > MAX_ANCESTORS) addError(errors, 'parent_id', 'has too deep level of nesting');
  const level = changes.visibility_level;
  if (level !== undefined) {
    const name = visibilityName(level);
    if (ctx.projectVisibility > level) addError(errors, 'visibility_level', `${name} is not allowed since this group contains projects with higher visibility.`);
    if (ctx.childVisibility > level) addError(errors, 'visibility_level', `${name} is not allowed since there are sub-groups with higher visibility.`);
    if (ctx.parentVisibility !== null && level > ctx.parentVisibility) {
      addError(errors, 'visibility_level', `${name} is not allowed since the parent group has a ${visibilityName(ctx.parentVisibility)} visibility.`);
    }
  }
  if (changes.two_factor_grace_period !== undefined && changes.two_factor_grace_period < 0) {
    addError(errors, 'two_factor_grace_period', atLeast(0));
  }
  if (name !== undefined && !NAME_FORMAT.test(name)) addError(errors, 'name', NAME_FORMAT_MESSAGE);
  if (ctx.pathTaken) addError(errors, 'path', TAKEN);
  return errors;
}
