// Pure row → entity functions for GPG keys and commit signatures.
import type { GpgKeyRow, GpgSignatureRow } from '../../db/schema.ts';
import type { CommitSignature, GpgKey, VerificationStatus } from './gpg-keys.schemas.ts';

export function presentGpgKey(row: GpgKeyRow): GpgKey {
  return { id: row.id, key: row.key, created_at: row.created_at };
}

export function presentCommitSignature(row: GpgSignatureRow): CommitSignature {
  return {
    signature_type: 'PGP',
    gpg_key_id: row.gpg_key_id,
    gpg_key_primary_keyid: row.gpg_key_primary_keyid,
    gpg_key_user_name: row.gpg_key_user_name,
    gpg_key_user_email: row.gpg_key_user_email,
    verification_status: row.verification_status as VerificationStatus,
    gpg_key_subkey_id: row.gpg_key_subkey_id,
    commit_source: 'gitaly',
  };
}
