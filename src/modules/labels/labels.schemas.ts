// Project and group labels (the platform's labels and group labels APIs, 14.x): the entities and
// the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

/** Issue and merge request counts, shown only when a list asks for them (with_counts=true). */
const COUNTS = {
  open_issues_count: Type.Optional(Type.Integer()),
  closed_issues_count: Type.Optional(Type.Integer()),
  open_merge_requests_count: Type.Optional(Type.Integer()),
};

const LABEL_FIELDS = {
  id: Type.Integer(),
  name: Type.String(),
  /** #RRGGBB or #RGB. */
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  /** #333333 on a light colour, #FFFFFF otherwise. */
  text_color: Type.String(),
  ...COUNTS,
  subscribed: Type.Boolean(),
};

/** A label as a group's routes show it (Entities::GroupLabel). */
export const GroupLabelEntity = Entity(LABEL_FIELDS);
export type GroupLabel = Static<typeof GroupLabelEntity>;

/** A label as a project's routes show it (Entities::ProjectLabel): its priority in the project too. */
export const ProjectLabelEntity = Entity({
  ...LABEL_FIELDS,
  priority: Nullable(Type.Integer()),
  /** false for a label of one of the project's groups. */
  is_project_label: Type.Boolean(),
});
export type ProjectLabel = Static<typeof ProjectLabelEntity>;

export const ParentParams = Params({ id: IdOrPath });
/** `label_id`: the label's id or its title, URL-encoded. */
export const LabelParams = Params({ id: IdOrPath, label_id: Type.String() });
export const SubscribableParams = Params({ id: IdOrPath, subscribable_id: Type.String() });

const includeAncestorGroups = Type.Optional(Bool({ default: true }));
const groupScope = {
  include_ancestor_groups: includeAncestorGroups,
  include_descendant_groups: Type.Optional(Bool({ default: false })),
  only_group_labels: Type.Optional(Bool({ default: true })),
};

export const ListProjectLabelsQuery = Params({
  with_counts: Type.Optional(Bool({ default: false })),
  include_ancestor_groups: includeAncestorGroups,
  search: Type.Optional(Type.String()),
  ...PageParams,
});
export type ListProjectLabelsQuery = Static<typeof ListProjectLabelsQuery>;

export const ListGroupLabelsQuery = Params({
  with_counts: Type.Optional(Bool({ default: false })),
  ...groupScope,
  search: Type.Optional(Type.String()),
  ...PageParams,
});
export type ListGroupLabelsQuery = Static<typeof ListGroupLabelsQuery>;

export const ShowProjectLabelQuery = Params({ include_ancestor_groups: includeAncestorGroups });
export const ShowGroupLabelQuery = Params(groupScope);

const CREATE_FIELDS = {
  name: Type.String(),
  /** #RRGGBB, #RGB, or a CSS colour name. */
  color: Type.String(),
  description: Type.Optional(Type.String()),
};
export const CreateGroupLabelBody = Params(CREATE_FIELDS);
/** A blank priority is no priority. */
export const CreateProjectLabelBody = Params({ ...CREATE_FIELDS, priority: Type.Optional(Nullable(Type.Integer())) });
export type CreateLabelBody = Static<typeof CreateProjectLabelBody>;

const UPDATE_FIELDS = {
  new_name: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
};
export const UpdateGroupLabelBody = Params(UPDATE_FIELDS);
/** priority null (or blank) removes the label's priority in the project. */
export const UpdateProjectLabelBody = Params({ ...UPDATE_FIELDS, priority: Type.Optional(Nullable(Type.Integer())) });
export type UpdateLabelBody = Static<typeof UpdateProjectLabelBody>;

/** The deprecated PUT /:parent/:id/labels names the label in the body. */
const NAMED = { label_id: Type.Optional(Type.Integer()), name: Type.Optional(Type.String()) };
const EXACTLY_ONE = { 'x-exactly-one-of': [['label_id', 'name']] };
export const UpdateNamedProjectLabelBody = Params({ ...NAMED, ...UpdateProjectLabelBody.properties }, EXACTLY_ONE);
export const UpdateNamedGroupLabelBody = Params({ ...NAMED, ...UpdateGroupLabelBody.properties }, EXACTLY_ONE);
/** The deprecated DELETE /projects/:id/labels: label_id or name; the groups' takes a name. */
export const DeleteNamedProjectLabelBody = Params(NAMED, EXACTLY_ONE);
export const NameBody = Params({ name: Type.String() });
