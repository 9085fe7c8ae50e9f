// GPG keys and commit signatures (the platform's GpgKey and CommitSignature entities, 14.x) and the
// parameters of their routes.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';

export const GpgKeyEntity = Entity({ id: Type.Integer(), key: Type.String(), created_at: Timestamp });
export type GpgKey = Static<typeof GpgKeyEntity>;

export const VERIFICATION_STATUSES = ['unverified', 'verified', 'same_user_different_email', 'other_user', 'unverified_key', 'unknown_key', 'multiple_signatures'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** GET …/commits/:sha/signature of a GPG-signed commit. */
export const CommitSignatureEntity = Entity({
  signature_type: Type.Literal('PGP'),
  gpg_key_id: Nullable(Type.Integer()),
  gpg_key_primary_keyid: Nullable(Type.String()),
  gpg_key_user_name: Nullable(Type.String()),
  gpg_key_user_email: Nullable(Type.String()),
  verification_status: Literals(VERIFICATION_STATUSES),
  gpg_key_subkey_id: Nullable(Type.Integer()),
  commit_source: Type.Literal('gitaly'),
});
export type CommitSignature = Static<typeof CommitSignatureEntity>;

export const ListGpgKeysQuery = Params({ ...PageParams });
export const KeyIdParams = Params({ key_id: Type.Integer() });
export const UserIdParams = Params({ id: Type.Integer() });
export const UserKeyParams = Params({ id: Type.Integer(), key_id: Type.Integer() });
export const CreateGpgKeyBody = Params({ key: Type.String() });
export const CommitParams = Params({ id: IdOrPath, sha: Type.String() });
