// SSH keys (the platform's 14.x SSHKey, SSHKeyWithUser and DeployKeyWithUser entities) and the
// parameters of the users' keys routes and of /keys.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { UserSelfEntity } from '../users/users.schemas.ts';

/** The fields every key shows; a user key's `key` has its comment replaced by its owner's name and the host. */
export const sshKeyFields = {
  id: Type.Integer(),
  title: Type.String(),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
  key: Type.String(),
};

export const SshKeyEntity = Entity(sshKeyFields);
export type SshKey = Static<typeof SshKeyEntity>;

/** GET /keys/:id and GET /keys?fingerprint=: the key with its owner in the public form. */
export const SshKeyWithUserEntity = Entity({ ...sshKeyFields, user: Nullable(UserSelfEntity) });
export type SshKeyWithUser = Static<typeof SshKeyWithUserEntity>;

/** A deploy key's join to a project, as the platform shows the record itself. */
export const DeployKeysProjectRecordEntity = Entity({
  id: Type.Integer(),
  deploy_key_id: Type.Integer(),
  project_id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  can_push: Type.Boolean(),
});

/** GET /keys?fingerprint= of a deploy key: which projects use it, too. */
export const DeployKeyWithUserEntity = Entity({ ...sshKeyFields, user: Nullable(UserSelfEntity), deploy_keys_projects: Type.Array(DeployKeysProjectRecordEntity) });
export type DeployKeyWithUser = Static<typeof DeployKeyWithUserEntity>;

// ---- Parameters ---------------------------------------------------------------------------------

export const ListKeysQuery = Params({ ...PageParams });
export const KeyIdParams = Params({ key_id: Type.Integer() });
/** GET /users/:user_id/keys takes an id or a username; the administrators' writes, an id. */
export const UserRefParams = Params({ user_id: Type.String() });
export const UserRefKeyParams = Params({ user_id: Type.String(), key_id: Type.Integer() });
export const UserIdParams = Params({ user_id: Type.Integer() });
export const UserKeyParams = Params({ user_id: Type.Integer(), key_id: Type.Integer() });
/** GET /keys/:id: anything that is not a key's id is a key not found. */
export const AnyKeyParams = Params({ id: Type.String() });
export const FingerprintQuery = Params({ fingerprint: Type.String() });

export const CreateKeyBody = Params({
  key: Type.String(),
  title: Type.String(),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type CreateKeyBody = Static<typeof CreateKeyBody>;
