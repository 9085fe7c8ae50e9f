// A diff note's position in a merge request (14.x Gitlab::Diff::Position and DiffNote's
// validations): a text position names a line of the diff between the merge request's base and
// head (an added line by its new number, a removed one by its old number, an unchanged one by
// both); an image position names a point of an image. The refs must be the merge request's diff
// refs: Quarry keeps no older versions of a merge request's diff.
import type { FieldErrors } from '../../core/errors.ts';
import { type DiffLine, fileDiffBetween } from '../../git/diffs.ts';

export interface DiffRefs {
  base_sha: string | null;
  start_sha: string | null;
  head_sha: string | null;
}

/** A position as the client sends it. */
export interface PositionInput {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: 'text' | 'image';
  new_path?: string;
  old_path?: string;
  new_line?: number;
  old_line?: number;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  line_range?: Record<string, unknown>;
}

/** A position as it is stored and shown (Gitlab::Diff::Position#to_h). */
export interface DiffNotePosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  old_path: string | null;
  new_path: string | null;
  position_type: string;
  old_line?: number | null;
  new_line?: number | null;
  line_range?: Record<string, unknown> | null;
  width?: number | null;
  height?: number | null;
  x?: number | null;
  y?: number | null;
}

/** A diff line's numbers as a position names them: an added line has no old number, a removed one no new number. */
const oldLine = (line: DiffLine) => (line.type === 'new' ? null : line.oldPos);
const newLine = (line: DiffLine) => (line.type === 'old' ? null : line.newPos);

/**
 * The position to store, and the model's errors in the platform's order (line_code before
 * position): a text position whose line is not in the diff has no line code.
 */
export async function checkPosition(gitDir: string | null, refs: DiffRefs, input: PositionInput): Promise<{ position: DiffNotePosition; errors: FieldErrors }> {
  const errors: FieldErrors = {};
  const path = input.new_path ?? input.old_path;
  const current = refs.base_sha === input.base_sha && refs.start_sha === input.start_sha && refs.head_sha === input.head_sha;
  const file = gitDir !== null && current && path !== undefined && refs.base_sha !== null ? await fileDiffBetween(gitDir, input.base_sha, input.head_sha, path) : null;
  const paths = { old_path: input.old_path ?? file?.oldPath ?? path ?? null, new_path: input.new_path ?? file?.newPath ?? path ?? null };
  const shas = { base_sha: input.base_sha, start_sha: input.start_sha, head_sha: input.head_sha };
  if (input.position_type === 'image') {
    const { width = null, height = null, x = null, y = null } = input;
    if ([width, height, x, y].some((v) => v === null)) errors.position = ['is incomplete'];
    return { position: { ...shas, ...paths, position_type: 'image', width, height, x, y }, errors };
  }
  const wanted = { old: input.old_line ?? null, new: input.new_line ?? null };
  const line = file?.lines.find((l) => oldLine(l) === wanted.old && newLine(l) === wanted.new);
  if (!line) errors.line_code = ["can't be blank", 'must be a valid line code'];
  if (wanted.old === null && wanted.new === null) errors.position = ['is incomplete'];
  return { position: { ...shas, ...paths, position_type: 'text', old_line: wanted.old, new_line: wanted.new, line_range: input.line_range ?? null }, errors };
}
