// Pipeline triggers (14.x lib/api/ci/triggers.rb, entity Trigger): the tokens a project's
// maintainers create, and the request that runs a pipeline with one.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const TriggerEntity = Entity({
  id: Type.Integer(),
  token: Type.String(),
  description: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_used: Nullable(Timestamp),
  owner: Nullable(Entity(userBasicFields)),
});

export const ProjectParams = Params({ id: IdOrPath });
export const TriggerParams = Params({ id: IdOrPath, trigger_id: Type.Integer() });
export const RefParams = Params({ id: IdOrPath, ref: Type.String({ minLength: 1 }) });
export const ListQuery = Params({ ...PageParams });
export const CreateTriggerBody = Params({ description: Type.String() });
export const UpdateTriggerBody = Params({ description: Type.Optional(Type.String()) });

/** `variables` is checked by the route as the platform does (a map of strings); the rest of the request is the payload. */
export const TriggerPipelineBody = Params({ token: Type.String(), ref: Type.String({ minLength: 1 }) });
export const TriggerRefPipelineBody = Params({ token: Type.String() });
