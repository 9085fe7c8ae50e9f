// Wikis of projects and groups (the platform's wikis API, 14.x): entities and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals } from '../../core/schema.ts';
import { WIKI_FORMATS } from './wiki-pages.ts';

/** Entities::WikiPageBasic: what a list shows without content. */
export const WikiPageBasicEntity = Entity({
  format: Literals(WIKI_FORMATS),
  slug: Type.String(),
  title: Type.String(),
});

/** Entities::WikiPage: the page with its content (raw, or rendered with render_html) and the content's encoding. */
export const WikiPageEntity = Entity({
  ...WikiPageBasicEntity.properties,
  content: Type.String(),
  encoding: Type.String(),
});
export type WikiPageEntity = Static<typeof WikiPageEntity>;

/** Entities::WikiAttachment. */
export const WikiAttachmentEntity = Entity({
  file_name: Type.String(),
  file_path: Type.String(),
  branch: Type.String(),
  link: Entity({ url: Type.String(), markdown: Type.String() }),
});

export const ContainerParams = Params({ id: IdOrPath });
/** The slug holds no slash unless encoded (%2F), as the platform's NO_SLASH_URL_PART_REGEX. */
export const PageParams = Params({ id: IdOrPath, slug: Type.String({ minLength: 1 }) });

export const ListPagesQuery = Params({ with_content: Type.Optional(Bool({ default: false })) });

export const GetPageQuery = Params({
  version: Type.Optional(Type.String({ description: 'A commit of the wiki: the page as it was there' })),
  render_html: Type.Optional(Bool({ default: false })),
});

/** The platform gives `format` a default on both writes (14.x), so an update without it writes Markdown. */
const format = Type.Optional(OneOf(WIKI_FORMATS, { default: 'markdown', description: 'Format of a wiki page: markdown, rdoc, asciidoc or org' }));

export const CreatePageBody = Params({
  title: Type.String(),
  content: Type.String(),
  format,
});
export type CreatePageBody = Static<typeof CreatePageBody>;

export const UpdatePageBody = Params({
  title: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  format,
});
export type UpdatePageBody = Static<typeof UpdatePageBody>;
