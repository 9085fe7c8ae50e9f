// Issue boards of projects and groups and their label lists, as the platform shows them in its
// licensed edition (14.x Entities::Board with EE's group and scope; Entities::List with EE's
// work-in-progress limits). A board's lists are its label lists (backlog and closed are no list).
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';
import { MilestoneEntity } from '../milestones/milestones.schemas.ts';
import { ProjectSimpleEntity } from '../projects/projects.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

/** Entities::LabelBasic. */
export const BoardLabelEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  text_color: Type.String(),
});

export const BoardListEntity = Entity({
  id: Type.Integer(),
  label: BoardLabelEntity,
  position: Type.Integer(),
  max_issue_count: Type.Integer(),
  max_weight: Type.Integer(),
  limit_metric: Nullable(Type.String()),
});

export { ProjectSimpleEntity };

export const BoardEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  hide_backlog_list: Type.Boolean(),
  hide_closed_list: Type.Boolean(),
  project: Nullable(ProjectSimpleEntity),
  lists: Type.Array(BoardListEntity),
  group: Nullable(Entity({ id: Type.Integer(), web_url: Type.String(), name: Type.String() })),
  milestone: Nullable(MilestoneEntity),
  assignee: Nullable(Entity(userBasicFields)),
  labels: Type.Array(BoardLabelEntity),
  weight: Nullable(Type.Integer()),
});

export const ParentParams = Params({ id: IdOrPath });
export const BoardParams = Params({ id: IdOrPath, board_id: Type.Integer() });
export const ListParams = Params({ id: IdOrPath, board_id: Type.Integer(), list_id: Type.Integer() });

export const PageQuery = Params(PageParams);

/** The column holds 255 characters: a longer name is refused as invalid rather than failing the write. */
const BoardName = Type.String({ maxLength: 255 });
export const CreateBoardBody = Params({ name: BoardName });

export const UpdateBoardBody = Params({
  name: Type.Optional(BoardName),
  hide_backlog_list: Type.Optional(Bool()),
  hide_closed_list: Type.Optional(Bool()),
  assignee_id: Type.Optional(Type.Integer()),
  milestone_id: Type.Optional(Type.Integer()),
  weight: Type.Optional(Type.Integer()),
});
export type UpdateBoardBody = typeof UpdateBoardBody.static;

export const CreateListBody = Params({ label_id: Type.Integer() });

export const MoveListBody = Params({ position: Type.Integer() });
