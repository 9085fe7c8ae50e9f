// Pure record → entity functions for repository storage moves.
import { moveStateName } from '../../domain/repository-storage-moves.ts';
import { groupWebUrl } from '../../domain/urls.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import { type SnippetView, presentBasicSnippet } from '../snippets/snippets.presenter.ts';
import type { GroupMoveRecord, ProjectMoveRecord, SnippetMoveRecord } from './repository-storage-moves.finder.ts';
import type { GroupStorageMove, ProjectStorageMove, SnippetStorageMove } from './repository-storage-moves.schemas.ts';

type MoveColumns = Pick<ProjectMoveRecord, 'id' | 'state' | 'source_storage_name' | 'destination_storage_name' | 'error_message' | 'created_at'>;

function moveFields(row: MoveColumns) {
  return {
    id: row.id,
    created_at: row.created_at,
    state: moveStateName(row.state),
    source_storage_name: row.source_storage_name,
    destination_storage_name: row.destination_storage_name,
    error_message: row.error_message,
  };
}

export function presentProjectMove(row: ProjectMoveRecord): ProjectStorageMove {
  const project = presentProjectIdentity({
    id: row.project_id,
    description: row.description,
    name: row.name,
    name_with_namespace: row.name_with_namespace,
    path: row.path,
    full_path: row.full_path,
    created_at: row.project_created_at,
  });
  return { ...moveFields(row), project };
}

export function presentGroupMove(row: GroupMoveRecord, baseUrl: string): GroupStorageMove {
  return { ...moveFields(row), group: { id: row.group_id, web_url: groupWebUrl(baseUrl, row.group_full_path), name: row.group_name } };
}

export function presentSnippetMove(row: SnippetMoveRecord, view: SnippetView): SnippetStorageMove {
  const snippet = presentBasicSnippet(
    {
      id: row.snippet_id,
      title: row.title,
      description: row.description,
      visibility_level: row.visibility_level,
      updated_at: row.snippet_updated_at,
      created_at: row.snippet_created_at,
      project_id: row.project_id,
      project_full_path: row.project_full_path,
    },
    view,
  );
  return { ...moveFields(row), snippet };
}
