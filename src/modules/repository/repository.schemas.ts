// The repository as a whole (the platform's repositories API, 14.x): its tree and its archive.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals } from '../../core/schema.ts';

export const TreeObjectEntity = Entity({
  id: Type.String(),
  name: Type.String(),
  type: Literals(['tree', 'blob', 'commit'] as const),
  path: Type.String(),
  /** Octal, as git writes it: 040000, 100644, 100755, 120000, 160000. */
  mode: Type.String(),
});
export type TreeObject = Static<typeof TreeObjectEntity>;

export const ProjectParams = Params({ id: IdOrPath });

export const TreeQuery = Params({
  ...PageParams,
  ref: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  recursive: Type.Optional(Bool({ default: false })),
  // Keyset pages are accepted and served as offset pages.
  pagination: Type.Optional(OneOf(['legacy', 'keyset', 'none'] as const, { default: 'legacy' })),
  page_token: Type.Optional(Type.String()),
});
export type TreeQuery = Static<typeof TreeQuery>;

/** The extension of /repository/archive.<format> (Gitlab::PathRegex.archive_formats_regex). */
export const ARCHIVE_EXTENSIONS = ['zip', 'tar', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const;

export const ArchiveParams = Params({ id: IdOrPath, format: Type.Optional(Type.String()) });
export type ArchiveParams = Static<typeof ArchiveParams>;

export const ArchiveQuery = Params({
  sha: Type.Optional(Type.String()),
  format: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
});
export type ArchiveQuery = Static<typeof ArchiveQuery>;
