// The note entity (14.x Entities::Note), the commit note entity (Entities::CommitNote) and the
// parameters of the notes endpoints.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

/** One end of a multi-line comment's range, as the client gave it. */
const LineRangeEnd = Entity({
  line_code: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  old_line: Type.Optional(Type.String()),
  new_line: Type.Optional(Type.String()),
});

/** Where a diff note sits in a merge request's diff (Gitlab::Diff::Position#to_h of a text or an image position). */
export const PositionEntity = Entity({
  base_sha: Type.String(),
  start_sha: Type.String(),
  head_sha: Type.String(),
  old_path: Nullable(Type.String()),
  new_path: Nullable(Type.String()),
  position_type: Type.String(),
  old_line: Type.Optional(Nullable(Type.Integer())),
  new_line: Type.Optional(Nullable(Type.Integer())),
  line_range: Type.Optional(Nullable(Entity({ start: Type.Optional(LineRangeEnd), end: Type.Optional(LineRangeEnd) }))),
  width: Type.Optional(Nullable(Type.Integer())),
  height: Type.Optional(Nullable(Type.Integer())),
  x: Type.Optional(Nullable(Type.Integer())),
  y: Type.Optional(Nullable(Type.Integer())),
});

export const NoteEntity = Entity({
  id: Type.Integer(),
  type: Nullable(Type.String()),
  body: Type.String(),
  attachment: Type.Null(),
  /** Null once its author's account was deleted for good (hard_delete). */
  author: Nullable(Entity(userBasicFields)),
  created_at: Timestamp,
  updated_at: Timestamp,
  system: Type.Boolean(),
  noteable_id: Nullable(Type.Integer()),
  noteable_type: Type.String(),
  /** Diff notes only. */
  position: Type.Optional(PositionEntity),
  resolvable: Type.Boolean(),
  resolved: Type.Optional(Type.Boolean()),
  resolved_by: Type.Optional(Nullable(Entity(userBasicFields))),
  resolved_at: Nullable(Timestamp),
  confidential: Type.Boolean(),
  noteable_iid: Nullable(Type.Integer()),
  commands_changes: Entity({}),
});

export const ListNotesQuery = Params({
  ...PageParams,
  order_by: Type.Optional(OneOf(['created_at', 'updated_at'] as const, { default: 'created_at' })),
  sort: Type.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
  activity_filter: Type.Optional(OneOf(['all_notes', 'only_comments', 'only_activity'] as const, { default: 'all_notes' })),
});
export const CreateNoteBody = Params({ body: Type.String(), confidential: Type.Optional(Bool()), created_at: Type.Optional(Type.String()) });
export const UpdateNoteBody = Params({ body: Type.Optional(Type.String({ 'x-blank': false })), confidential: Type.Optional(Bool()) });

export const CommitNoteEntity = Entity({
  note: Type.String(),
  path: Nullable(Type.String()),
  line: Nullable(Type.Integer()),
  line_type: Nullable(Type.String()),
  author: Nullable(Entity(userBasicFields)),
  created_at: Timestamp,
});

export const CommitNotesParams = Params({ id: IdOrPath, sha: Type.String() });
export const ListCommitNotesQuery = Params({ ...PageParams });
/** `line` and `line_type` are read only with `path` (Grape's `given :path`). */
export const CreateCommitNoteBody = Params({
  note: Type.String(),
  path: Type.Optional(Type.String()),
  line: Type.Optional(Type.Integer()),
  line_type: Type.Optional(OneOf(['new', 'old'] as const, { default: 'new' })),
});

/** A thread of notes, or an individual note (14.x Entities::Discussion). */
export const DiscussionEntity = Entity({
  /** 40 hexadecimal digits. */
  id: Type.String(),
  individual_note: Type.Boolean(),
  notes: Type.Array(NoteEntity),
});

export const ListDiscussionsQuery = Params({ ...PageParams });

/** A note's position in a merge request's diff, as POST …/merge_requests/:iid/discussions takes it. */
const PositionParam = Params({
  base_sha: Type.String(),
  start_sha: Type.String(),
  head_sha: Type.String(),
  position_type: OneOf(['text', 'image'] as const),
  new_path: Type.Optional(Type.String()),
  new_line: Type.Optional(Type.Integer()),
  old_path: Type.Optional(Type.String()),
  old_line: Type.Optional(Type.Integer()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
  x: Type.Optional(Type.Integer()),
  y: Type.Optional(Type.Integer()),
  line_range: Type.Optional(
    Params({
      start: Type.Optional(Params({ line_code: Type.Optional(Type.String()), type: Type.Optional(Type.String()), old_line: Type.Optional(Type.String()), new_line: Type.Optional(Type.String()) })),
      end: Type.Optional(Params({ line_code: Type.Optional(Type.String()), type: Type.Optional(Type.String()), old_line: Type.Optional(Type.String()), new_line: Type.Optional(Type.String()) })),
    }),
  ),
});

export const CreateDiscussionBody = Params({ body: Type.String(), created_at: Type.Optional(Type.String()) });
export const CreateDiffDiscussionBody = Params({ body: Type.String(), created_at: Type.Optional(Type.String()), position: Type.Optional(PositionParam) });
export const ReplyBody = Params({ body: Type.String(), created_at: Type.Optional(Type.String()) });
/** A note of a thread takes a new text or a resolution, exactly one of them. */
export const UpdateDiscussionNoteBody = Params({ body: Type.Optional(Type.String()), resolved: Type.Optional(Bool()) }, { 'x-exactly-one-of': [['body', 'resolved']] });
export const ResolveDiscussionBody = Params({ resolved: Bool() });
