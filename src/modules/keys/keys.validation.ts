// The key model's rules, shared by users' keys and deploy keys (the platform's Key, 14.x): a title,
// a key of at most 5000 characters that reads as an SSH public key of a technology and size the
// instance allows, and a fingerprint no other key has, whichever kind.
import type { Kysely } from 'kysely';
import type { FieldErrors } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { ApplicationSettings } from '../../domain/settings/application-settings.ts';
import { KEY_TECHNOLOGIES, type KeyTechnology, parseSshPublicKey, sanitizeSshPublicKey } from '../../domain/ssh-public-keys.ts';
import { BLANK, INVALID, TAKEN, addError, toSentence, tooLong } from '../../domain/validation.ts';
import { liveKeys } from './keys.finder.ts';

const MAX_TITLE = 255;
const MAX_KEY = 5000;
/** A restriction's value that forbids its technology; 0 allows any size. */
const FORBIDDEN_KEY = -1;

/** The key's settings: the smallest size of each technology, 0 for any, -1 forbidden. */
export type KeyRestrictions = Pick<ApplicationSettings, `${KeyTechnology}_key_restriction`>;

interface CheckedKey {
  title: string;
  /** As stored: repaired, with at most one word of comment. */
  key: string;
  fingerprint: string;
  fingerprintSha256: string;
}

type KeyCheck = { key: CheckedKey; errors: null } | { key: null; errors: FieldErrors };

const KEY_FORMAT = /^(ssh|ecdsa)-.*$/;

/** Pasted text longer than this is not repaired: it could not come out of the repair short enough. */
const REPAIRABLE = 4 * MAX_KEY;

/** The text a key is stored as: repaired when it can be, empty when blank. */
export function storedKeyText(text: string): string {
  if (text.trim() === '') return '';
  return text.length > REPAIRABLE ? text : sanitizeSshPublicKey(text);
}

function restrictionError(restrictions: KeyRestrictions, technology: KeyTechnology | undefined, bits: number): string | null {
  const minimum = technology ? restrictions[`${technology}_key_restriction`] : FORBIDDEN_KEY;
  if (minimum === FORBIDDEN_KEY) {
    const allowed = KEY_TECHNOLOGIES.filter((t) => restrictions[`${t}_key_restriction`] !== FORBIDDEN_KEY).map((t) => t.toUpperCase());
    return `type is forbidden. Must be ${toSentence(allowed, 'or')}`;
  }
  return bits < minimum ? `must be at least ${minimum} bits` : null;
}

/**
 * Checks a key about to be stored (`exceptId`: the key itself, when it is being changed). Errors
 * come by field in the platform's order and words; an unreadable key fails its technology's
 * restriction too, as on the platform ("type is forbidden").
 */
export async function checkKey(
  db: Kysely<DB>,
  restrictions: KeyRestrictions,
  input: { title: string; key: string },
  exceptId?: number,
): Promise<KeyCheck> {
  const errors: FieldErrors = {};
  if (input.title.trim() === '') addError(errors, 'title', BLANK);
  if ([...input.title].length > MAX_TITLE) addError(errors, 'title', tooLong(MAX_TITLE));

  const key = storedKeyText(input.key);
  if (key === '') addError(errors, 'key', BLANK);
  if ([...key].length > MAX_KEY) addError(errors, 'key', tooLong(MAX_KEY));
  if (!KEY_FORMAT.test(key)) addError(errors, 'key', INVALID);

  const parsed = key.length <= MAX_KEY ? parseSshPublicKey(key) : null;
  if (parsed) {
    let taken = liveKeys(db).where((eb) => eb.or([eb('fingerprint', '=', parsed.fingerprint), eb('fingerprint_sha256', '=', parsed.fingerprintSha256)]));
    if (exceptId !== undefined) taken = taken.where('id', '!=', exceptId);
    if (await taken.executeTakeFirst()) addError(errors, 'fingerprint', TAKEN);
  } else {
    addError(errors, 'fingerprint', 'cannot be generated');
  }
  const restriction = restrictionError(restrictions, parsed?.technology, parsed?.bits ?? 0);
  if (restriction) addError(errors, 'key', restriction);

  if (Object.keys(errors).length > 0 || !parsed) return { key: null, errors };
  return { key: { title: input.title, key, fingerprint: parsed.fingerprint, fingerprintSha256: parsed.fingerprintSha256 }, errors: null };
}
