// Files uploaded to a project for Markdown (the platform's POST /projects/:id/uploads, 14.x).
import { type Static, Type } from '@sinclair/typebox';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';

export const ProjectUploadEntity = Entity({
  alt: Type.String(),
  url: Type.String(),
  full_path: Type.String(),
  markdown: Type.String(),
});
export type ProjectUpload = Static<typeof ProjectUploadEntity>;

export const ProjectParams = Params({ id: IdOrPath });

