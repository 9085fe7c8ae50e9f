// Project export and import (spec Part 2 §2.8, §4.10): the export status and import status
// entities (ProjectIdentity plus their fields), and the parameters of each route.
import { type Static, Type } from '@sinclair/typebox';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { projectIdentityFields } from '../projects/projects.schemas.ts';

export const EXPORT_STATUSES = ['none', 'queued', 'started', 'finished', 'regeneration_in_progress'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Entities::ProjectExportStatus: `_links` only once finished. */
export const ExportStatusEntity = Entity({
  ...projectIdentityFields,
  export_status: Type.Union(EXPORT_STATUSES.map((s) => Type.Literal(s))),
  _links: Type.Optional(Entity({ api_url: Type.String(), web_url: Type.String() })),
});
export type ExportStatusView = Static<typeof ExportStatusEntity>;

export const FailedRelationEntity = Entity({
  id: Type.Integer(),
  created_at: Timestamp,
  exception_class: Type.String(),
  exception_message: Type.String(),
  source: Type.String(),
  relation_name: Type.String(),
});

/** Entities::ProjectImportStatus. */
export const ImportStatusEntity = Entity({
  ...projectIdentityFields,
  import_status: Type.String(),
  import_type: Nullable(Type.String()),
  correlation_id: Nullable(Type.String()),
  failed_relations: Type.Array(FailedRelationEntity),
  import_error: Nullable(Type.String()),
});
export type ImportStatusView = Static<typeof ImportStatusEntity>;

export const ProjectParams = Params({ id: IdOrPath });

/** POST /projects/:id/export; `upload` is checked by the route (WebUploadStrategy's rules). */
export const ExportBody = Params({
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  upload: Type.Optional(Type.Object({ url: Type.Optional(Type.String({ maxLength: 2048 })), http_method: Type.Optional(Type.String({ maxLength: 16 })) })),
});

/** POST /projects/remote-import (the uploaded form is read by the route). */
export const RemoteImportBody = Params({
  url: Type.String({ maxLength: 2048 }),
  path: Type.String({ maxLength: 255 }),
  namespace: Type.Optional(Type.String({ maxLength: 2048 })),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  overwrite: Type.Optional(Bool({ default: false })),
  override_params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
