// Repository files (the platform's files API, 14.x): one file's metadata and content at a ref, its
// raw content, and commits that create, update or delete it.
import { type Static, Type } from '@sinclair/typebox';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';
import { ENCODINGS } from '../commits/commits.schemas.ts';

/** The blob_data of GET and HEAD, sent as X-Gitlab-* headers too. */
export const fileDataFields = {
  file_name: Type.String(),
  file_path: Type.String(),
  size: Type.Integer(),
  encoding: Type.Literal('base64'),
  content_sha256: Type.String(),
  ref: Type.String(),
  blob_id: Type.String(),
  commit_id: Type.String(),
  last_commit_id: Type.String(),
  execute_filemode: Type.Boolean(),
};

export const FileEntity = Entity({ ...fileDataFields, content: Type.String() });
export type FileJson = Static<typeof FileEntity>;

/** What a create or an update answers. */
export const FileCommitEntity = Entity({ file_path: Type.String(), branch: Type.String() });

export const FileParams = Params({ id: IdOrPath, file_path: Type.String() });
export type FileParams = Static<typeof FileParams>;

const NonBlank = Type.String({ 'x-blank': false });

export const ShowFileQuery = Params({ ref: NonBlank });
export type ShowFileQuery = Static<typeof ShowFileQuery>;

/** Without a ref, the default branch. LFS objects are not stored here, so `lfs` changes nothing. */
export const RawFileQuery = Params({ ref: Type.Optional(NonBlank), lfs: Type.Optional(Bool({ default: false })) });
export type RawFileQuery = Static<typeof RawFileQuery>;

const commitFields = {
  branch: NonBlank,
  commit_message: NonBlank,
  start_branch: Type.Optional(Type.String()),
  author_email: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
  last_commit_id: Type.Optional(Type.String()),
};

export const DeleteFileBody = Params(commitFields);
export type DeleteFileBody = Static<typeof DeleteFileBody>;

export const WriteFileBody = Params({
  ...commitFields,
  content: Type.String(),
  encoding: Type.Optional(OneOf(ENCODINGS, { default: 'text' })),
  execute_filemode: Type.Optional(Bool()),
});
export type WriteFileBody = Static<typeof WriteFileBody>;
