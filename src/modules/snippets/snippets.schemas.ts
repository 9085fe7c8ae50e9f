// Snippets (the platform's snippets and project snippets APIs, 14.x): the entities and the
// parameters of every route. Files come as `files` (each with a path and content, or, when
// updating, an action) or, the legacy way, as one `file_name` with its `content`.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { VISIBILITY_NAMES } from '../../core/access/levels.ts';
import { UserBasicEntity } from '../users/users.schemas.ts';

/** BasicSnippet: what a storage move shows of its snippet. Every snippet here has its repository, so the git URLs are always there. */
export const basicSnippetFields = {
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  visibility: Literals(VISIBILITY_NAMES),
  updated_at: Timestamp,
  created_at: Timestamp,
  project_id: Nullable(Type.Integer()),
  web_url: Type.String(),
  raw_url: Type.String(),
  ssh_url_to_repo: Type.String(),
  http_url_to_repo: Type.String(),
};
export const BasicSnippetEntity = Entity(basicSnippetFields);
export type BasicSnippet = Static<typeof BasicSnippetEntity>;

export const SnippetFileEntity = Entity({ path: Type.String(), raw_url: Type.String() });

/** Snippet (PersonalSnippet and ProjectSnippet alike): the first file's name and every file's raw URL. */
export const SnippetEntity = Entity({
  ...basicSnippetFields,
  author: UserBasicEntity,
  /** The first file's path; null for a snippet whose repository holds no file. */
  file_name: Nullable(Type.String()),
  files: Type.Array(SnippetFileEntity),
});
export type Snippet = Static<typeof SnippetEntity>;

export const UserAgentDetailEntity = Entity({ user_agent: Nullable(Type.String()), ip_address: Nullable(Type.String()), akismet_submitted: Type.Boolean() });
export type UserAgentDetail = Static<typeof UserAgentDetailEntity>;

// ---- Parameters ----------------------------------------------------------------------------

const NonBlank = Type.String({ 'x-blank': false });
const Visibility = OneOf(VISIBILITY_NAMES);

export const SnippetParams = Params({ id: Type.Integer() });
export const ProjectParams = Params({ id: IdOrPath });
export const ProjectSnippetParams = Params({ id: IdOrPath, snippet_id: Type.Integer() });
export const SnippetFileParams = Params({ id: Type.Integer(), ref: Type.String({ minLength: 1 }), file_path: Type.String({ minLength: 1 }) });
export const ProjectSnippetFileParams = Params({ id: IdOrPath, snippet_id: Type.Integer(), ref: Type.String({ minLength: 1 }), file_path: Type.String({ minLength: 1 }) });

export const ListSnippetsQuery = Params({
  ...PageParams,
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
});
export type ListSnippetsQuery = Static<typeof ListSnippetsQuery>;
export const ProjectSnippetsQuery = Params({ ...PageParams });

const CreateFile = Params({ file_path: NonBlank, content: NonBlank });

const createFields = {
  title: NonBlank,
  description: Type.Optional(Type.String()),
  files: Type.Optional(Type.Array(CreateFile)),
  content: Type.Optional(NonBlank),
  file_name: Type.Optional(Type.String()),
};
const CREATE_RULES = { 'x-exactly-one-of': [['files', 'content']] };

/** A personal snippet is internal unless the request says otherwise (14.x). */
export const CreatePersonalSnippetBody = Params({ ...createFields, visibility: Type.Optional(OneOf(VISIBILITY_NAMES, { default: 'internal' })) }, CREATE_RULES);
/** A project's snippet names its visibility. */
export const CreateProjectSnippetBody = Params({ ...createFields, visibility: Visibility }, CREATE_RULES);
export type CreateSnippetBody = Static<typeof CreateProjectSnippetBody>;

export const FILE_ACTIONS = ['create', 'update', 'delete', 'move'] as const;
const UpdateFile = Params({
  action: OneOf(FILE_ACTIONS),
  content: Type.Optional(Type.String()),
  file_path: Type.Optional(Type.String()),
  previous_path: Type.Optional(Type.String()),
});

export const UpdateSnippetBody = Params(
  {
    title: Type.Optional(NonBlank),
    description: Type.Optional(Type.String()),
    visibility: Type.Optional(Visibility),
    content: Type.Optional(NonBlank),
    file_name: Type.Optional(Type.String()),
    files: Type.Optional(Type.Array(UpdateFile)),
  },
  {
    'x-mutually-exclusive': [
      ['files', 'content'],
      ['files', 'file_name'],
    ],
    'x-at-least-one-of': [['content', 'description', 'files', 'file_name', 'title', 'visibility']],
  },
);
export type UpdateSnippetBody = Static<typeof UpdateSnippetBody>;
