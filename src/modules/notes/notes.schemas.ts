// The note entity (14.x Entities::Note), the commit note entity (Entities::CommitNote) and the
// parameters of the notes endpoints.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

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
