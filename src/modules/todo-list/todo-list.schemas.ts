// To-do items (spec Part 2 §2.5, §4.5; 14.x lib/api/todos.rb and Entities::Todo): the entity,
// whose target is the issue, merge request or alert it is about, and the parameters of the list.
import { type TSchema, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Timestamp } from '../../core/schema.ts';
import { NotifiedAlertEntity } from '../alert-management/alert-management.schemas.ts';
import { IssueEntity } from '../issues/issues.schemas.ts';
import { MergeRequestTodoTargetEntity } from '../merge-requests/merge-requests.schemas.ts';
import { ProjectIdentityEntity } from '../projects/projects.schemas.ts';
import { TODO_ACTIONS, TODO_STATES, TODO_TARGET_TYPES, TODO_TYPE_FILTERS } from '../todos/todos.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

/** The to-do entity around a target of this schema. */
const todoEntity = <T extends TSchema>(target: T) =>
  Entity({
    id: Type.Integer(),
    project: ProjectIdentityEntity,
    author: Entity(userBasicFields),
    action_name: Literals(TODO_ACTIONS),
    target_type: Literals(TODO_TARGET_TYPES),
    target,
    target_url: Type.String(),
    /** The note's text for a to-do a note made, else the target's title. */
    body: Type.String(),
    state: Literals(TODO_STATES),
    created_at: Timestamp,
    updated_at: Timestamp,
  });

/** An alert as a to-do's target (14.x Entities::AlertManagement::Alert): its iid and title. */
const AlertTodoTargetEntity = NotifiedAlertEntity;

export const TodoEntity = todoEntity(Type.Union([IssueEntity, MergeRequestTodoTargetEntity, AlertTodoTargetEntity]));
/** The same, for one kind of target (what the tests hold each answer to). */
export const IssueTodoEntity = todoEntity(IssueEntity);
export const MergeRequestTodoEntity = todoEntity(MergeRequestTodoTargetEntity);
export const AlertTodoEntity = todoEntity(AlertTodoTargetEntity);

export const ListTodosQuery = Params({
  ...PageParams,
  action: Type.Optional(OneOf(TODO_ACTIONS)),
  author_id: Type.Optional(Type.Integer()),
  project_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
  state: Type.Optional(OneOf(TODO_STATES)),
  type: Type.Optional(OneOf(TODO_TYPE_FILTERS)),
});

export const TodoParams = Params({ id: Type.Integer() });
export const IssueTodoParams = Params({ id: IdOrPath, issue_iid: Type.Integer() });
export const MergeRequestTodoParams = Params({ id: IdOrPath, merge_request_iid: Type.Integer() });
