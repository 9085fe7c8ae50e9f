// Deploy keys (spec part 1 §2.11, §4.6; the platform's 14.x DeployKey and DeployKeysProject
// entities): the key as it was given, and in a project's views whether it may push there.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';
import { sshKeyFields } from './keys.schemas.ts';

/** The instance-wide list and the answer to enabling a key: no can_push. */
export const DeployKeyEntity = Entity(sshKeyFields);
export type DeployKey = Static<typeof DeployKeyEntity>;

export const DeployKeysProjectEntity = Entity({ ...sshKeyFields, can_push: Type.Boolean() });
export type DeployKeysProject = Static<typeof DeployKeysProjectEntity>;

export const ListDeployKeysQuery = Params({ ...PageParams });
export const ProjectParams = Params({ id: IdOrPath });
export const ProjectKeyParams = Params({ id: IdOrPath, key_id: Type.Integer() });

export const AddDeployKeyBody = Params({
  key: Type.String(),
  title: Type.String(),
  can_push: Type.Optional(Bool()),
});
export type AddDeployKeyBody = Static<typeof AddDeployKeyBody>;

export const UpdateDeployKeyBody = Params(
  {
    title: Type.Optional(Type.String()),
    can_push: Type.Optional(Bool()),
  },
  { 'x-at-least-one-of': [['title', 'can_push']] },
);
export type UpdateDeployKeyBody = Static<typeof UpdateDeployKeyBody>;
