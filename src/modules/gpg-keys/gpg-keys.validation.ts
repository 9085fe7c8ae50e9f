// The GPG key model's rules (the platform's GpgKey, 14.x): a key present and armored as one public
// key block, that reads as an OpenPGP key, no other key's text, fingerprint or primary key id.
import type { Kysely } from 'kysely';
import type { FieldErrors } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import { type ParsedGpgKey, parseGpgKey } from '../../domain/openpgp.ts';
import { BLANK, TAKEN, addError } from '../../domain/validation.ts';

const KEY_PREFIX = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const KEY_SUFFIX = '-----END PGP PUBLIC KEY BLOCK-----';
export const KEY_FORMAT_MESSAGE = `is invalid. A valid public GPG key begins with '${KEY_PREFIX}' and ends with '${KEY_SUFFIX}'`;

/** One block: the prefix, then text holding neither marker, then the suffix. */
function isOneBlock(key: string): boolean {
  if (!key.startsWith(KEY_PREFIX) || !key.endsWith(KEY_SUFFIX)) return false;
  const inner = key.slice(KEY_PREFIX.length, key.length - KEY_SUFFIX.length);
  return inner.length > 0 && !inner.includes(KEY_PREFIX) && !inner.includes(KEY_SUFFIX);
}

type KeyCheck = { key: string; parsed: ParsedGpgKey; errors: null } | { errors: FieldErrors };

/** Checks a key about to be stored; the key is kept without surrounding white space. */
export async function checkGpgKey(db: Kysely<DB>, input: string): Promise<KeyCheck> {
  const key = input.trim();
  const errors: FieldErrors = {};
  if (key === '') addError(errors, 'key', BLANK);
  else if (!isOneBlock(key)) addError(errors, 'key', KEY_FORMAT_MESSAGE);
  else if (await db.selectFrom('gpg_keys').select('id').where('key', '=', key).executeTakeFirst()) addError(errors, 'key', TAKEN);
  // What is read from the key is judged only when the key itself passed.
  if (errors.key) return { errors };
  const parsed = await parseGpgKey(key);
  if (!parsed) {
    addError(errors, 'fingerprint', BLANK);
    addError(errors, 'primary_keyid', BLANK);
    return { errors };
  }
  if (await db.selectFrom('gpg_keys').select('id').where('fingerprint', '=', parsed.fingerprint).executeTakeFirst()) addError(errors, 'fingerprint', TAKEN);
  if (await db.selectFrom('gpg_keys').select('id').where('primary_keyid', '=', parsed.primaryKeyid).executeTakeFirst()) addError(errors, 'primary_keyid', TAKEN);
  if (Object.keys(errors).length > 0) return { errors };
  return { key, parsed, errors: null };
}
