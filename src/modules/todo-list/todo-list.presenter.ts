// The to-do entity (14.x Entities::Todo) from a row and what its page loaded (todo-targets.ts).
import type { ProjectRow, TodoRow } from '../../db/schema.ts';
import type { IssuableUser } from '../../domain/issuables.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import type { presentIssue } from '../issues/issues.presenter.ts';
import type { presentMergeRequestTodoTarget } from '../merge-requests/merge-requests.presenter.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import type { TODO_ACTIONS, TODO_STATES, TODO_TARGET_TYPES } from '../todos/todos.schemas.ts';
import { userBasicFields } from '../users/users.presenter.ts';

export type TodoProject = Pick<ProjectRow, 'id' | 'description' | 'name' | 'name_with_namespace' | 'path' | 'full_path' | 'created_at'>;

export interface PresentedTarget {
  entity: ReturnType<typeof presentIssue> | ReturnType<typeof presentMergeRequestTodoTarget> | { iid: number; title: string };
  iid: number;
  title: string;
  /** The target's page, for targets whose page is not `<project>/-/<kind>/<iid>` (an alert's details). */
  url?: string;
}

/** What a page of to-dos shows beyond its rows, each kind loaded once. */
export interface TodoPage {
  projects: Map<number, TodoProject>;
  authors: Map<number, IssuableUser>;
  /** The text of the notes that made to-dos. */
  notes: Map<number, string>;
  /** By targetKey(). */
  targets: Map<string, PresentedTarget>;
}

export const targetKey = (type: string, id: number) => `${type}:${id}`;

const TARGET_PATHS: Record<string, string> = { Issue: 'issues', MergeRequest: 'merge_requests' };

/** The to-do; null when its target is gone (its deletion takes its to-dos, so only in a race). */
export function presentTodo(todo: TodoRow, page: TodoPage, baseUrl: string) {
  const target = page.targets.get(targetKey(todo.target_type, todo.target_id));
  const project = page.projects.get(todo.project_id);
  const author = page.authors.get(todo.author_id);
  if (!target || !project || !author) return null;
  const note = todo.note_id === null ? undefined : page.notes.get(todo.note_id);
  return {
    id: todo.id,
    project: presentProjectIdentity(project),
    author: userBasicFields(author, baseUrl),
    action_name: todo.action as (typeof TODO_ACTIONS)[number],
    target_type: todo.target_type as (typeof TODO_TARGET_TYPES)[number],
    target: target.entity,
    target_url: `${target.url ?? `${projectWebUrl(baseUrl, project)}/-/${TARGET_PATHS[todo.target_type]}/${target.iid}`}${todo.note_id === null ? '' : `#note_${todo.note_id}`}`,
    body: note ?? target.title,
    state: todo.state as (typeof TODO_STATES)[number],
    created_at: todo.created_at,
    updated_at: todo.updated_at,
  };
}
