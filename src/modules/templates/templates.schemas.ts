// File templates (the platform's templates and project templates APIs, 14.x): licenses, gitignores,
// GitLab CI YAML files and Dockerfiles shipped with Quarry, and a project's issue and merge request
// description templates; the entities and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

/** A license of choosealicense.com, its text with the placeholders the request fills. */
export const LicenseEntity = Entity({
  key: Type.String(),
  name: Type.String(),
  nickname: Nullable(Type.String()),
  /** The same as `popular`: the platform's documentation shows it under this name. */
  featured: Type.Boolean(),
  html_url: Type.String(),
  /** choosealicense.com no longer records a source, so neither does the platform's data. */
  source_url: Nullable(Type.String()),
  description: Type.String(),
  conditions: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
  limitations: Type.Array(Type.String()),
  content: Type.String(),
  popular: Type.Boolean(),
});
export type License = Static<typeof LicenseEntity>;

/** One line of a list of templates. */
export const TemplatesListEntity = Entity({ key: Type.String(), name: Type.String() });
export type TemplatesListItem = Static<typeof TemplatesListEntity>;

/** A template's text. */
export const TemplateEntity = Entity({ name: Type.String(), content: Type.String() });
export type Template = Static<typeof TemplateEntity>;

/** The kinds served under /templates besides licenses, in the platform's words. */
export const GLOBAL_TEMPLATE_TYPES = ['gitignores', 'gitlab_ci_ymls', 'dockerfiles'] as const;
export type GlobalTemplateType = (typeof GLOBAL_TEMPLATE_TYPES)[number];

/** The kinds a project offers: Quarry's own, and the description templates of its repository. */
export const PROJECT_TEMPLATE_TYPES = ['dockerfiles', 'gitignores', 'gitlab_ci_ymls', 'licenses', 'issues', 'merge_requests'] as const;
export type ProjectTemplateType = (typeof PROJECT_TEMPLATE_TYPES)[number];

export const ListLicensesQuery = Params({ ...PageParams, popular: Type.Optional(Bool()) });
export type ListLicensesQuery = Static<typeof ListLicensesQuery>;

/** What fills a license's placeholders: the project's name and the copyright holder's. */
const Placeholders = {
  project: Type.Optional(Type.String()),
  fullname: Type.Optional(Type.String()),
};

export const NameParams = Params({ name: Type.String() });
export const LicenseQuery = Params(Placeholders);
export type LicenseQuery = Static<typeof LicenseQuery>;
export const PageQuery = Params(PageParams);

export const ProjectTypeParams = Params({ id: IdOrPath, type: OneOf(PROJECT_TEMPLATE_TYPES) });
export const ProjectTemplateParams = Params({ id: IdOrPath, type: OneOf(PROJECT_TEMPLATE_TYPES), name: Type.String() });
export const ProjectTemplateQuery = Params({
  /** Where the paid tiers keep custom templates; this edition has none, so it changes nothing. */
  source_template_project_id: Type.Optional(Type.Integer()),
  ...Placeholders,
});
export type ProjectTemplateQuery = Static<typeof ProjectTemplateQuery>;
