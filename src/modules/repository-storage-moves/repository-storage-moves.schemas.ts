// Repository storage moves (spec Part 2 §2.10, §4.12; the platform's project, snippet and group
// repository storage moves APIs): the move entity of each container kind, and the parameters.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { MOVE_STATE_NAMES } from '../../domain/repository-storage-moves.ts';
import { ProjectIdentityEntity } from '../projects/projects.schemas.ts';
import { BasicSnippetEntity } from '../snippets/snippets.schemas.ts';

const moveFields = {
  id: Type.Integer(),
  created_at: Timestamp,
  /** The human state name: initial, scheduled, started, replicated, finished, failed, cleanup failed. */
  state: Literals(MOVE_STATE_NAMES),
  source_storage_name: Type.String(),
  destination_storage_name: Type.String(),
  /** Why the move failed (or why its cleanup did); null otherwise. */
  error_message: Nullable(Type.String()),
};

export const ProjectStorageMoveEntity = Entity({ ...moveFields, project: ProjectIdentityEntity });
export type ProjectStorageMove = Static<typeof ProjectStorageMoveEntity>;

/** BasicGroupDetails. */
export const GroupStorageMoveEntity = Entity({ ...moveFields, group: Entity({ id: Type.Integer(), web_url: Type.String(), name: Type.String() }) });
export type GroupStorageMove = Static<typeof GroupStorageMoveEntity>;

/** BasicSnippet. */
export const SnippetStorageMoveEntity = Entity({ ...moveFields, snippet: BasicSnippetEntity });
export type SnippetStorageMove = Static<typeof SnippetStorageMoveEntity>;

export const ListMovesQuery = Params({ ...PageParams });
export const MoveParams = Params({ repository_storage_move_id: Type.Integer() });
export const ContainerParams = Params({ id: IdOrPath });
export const ContainerMoveParams = Params({ id: IdOrPath, repository_storage_move_id: Type.Integer() });

/** One container's move: to the storage given, or one chosen by the storages' weights. */
export const CreateMoveBody = Params({ destination_storage_name: Type.Optional(Type.String()) });
export type CreateMoveBody = Static<typeof CreateMoveBody>;

/** Every container of the kind on the source storage. */
export const BulkMoveBody = Params({ source_storage_name: Type.String(), destination_storage_name: Type.Optional(Type.String()) });
export type BulkMoveBody = Static<typeof BulkMoveBody>;
