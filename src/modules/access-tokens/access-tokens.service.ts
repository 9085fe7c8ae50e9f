// Issuing and revoking personal and impersonation tokens. The secret is returned once and stored
// only as a digest.
import type { Kysely } from 'kysely';
import type { DB, PersonalAccessTokenRow } from '../../db/schema.ts';
import { ADMIN_ONLY_SCOPES, SCOPES } from '../../core/auth/scopes.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import { type FieldErrors, apiError, invalidFields } from '../../core/errors.ts';
import { BLANK, fullMessagesSentence } from '../../domain/validation.ts';

export interface IssueTokenInput {
  userId: number;
  name: string;
  scopes: readonly string[];
  expiresAt?: string | null;
  impersonation?: boolean;
  /** Use this exact secret (the configured root token); otherwise a new one is generated. */
  secret?: string;
}

type Owner = { admin: boolean };

/**
 * The token model's validation: a name, at least one scope, only known scopes; the administrators'
 * scopes (sudo, admin_mode) only for administrators.
 */
export function tokenErrors(input: Pick<IssueTokenInput, 'name' | 'scopes'>, owner: Owner): FieldErrors | null {
  const errors: FieldErrors = {};
  if (input.name.trim() === '') errors.name = [BLANK];
  const known = (s: string) => (SCOPES as readonly string[]).includes(s) && (owner.admin || !ADMIN_ONLY_SCOPES.includes(s as never));
  if (input.scopes.length === 0) errors.scopes = [BLANK];
  else if (!input.scopes.every(known)) errors.scopes = ['can only contain available scopes'];
  return Object.keys(errors).length > 0 ? errors : null;
}

/** Issues a token for a user; a failed validation is the platform's 400 field message. */
export async function issueToken(db: Kysely<DB>, input: IssueTokenInput, owner: Owner, now: Date): Promise<{ row: PersonalAccessTokenRow; token: string }> {
  const scopes = [...new Set(input.scopes)];
  const errors = tokenErrors({ name: input.name, scopes }, owner);
  if (errors) throw invalidFields(errors);
  const token = input.secret ?? generateToken();
  const at = now.toISOString();
  const row = await db
    .insertInto('personal_access_tokens')
    .values({
      user_id: input.userId,
      name: input.name,
      token_digest: digest(token),
      scopes: JSON.stringify(scopes),
      impersonation: input.impersonation ?? false,
      revoked: false,
      expires_at: input.expiresAt ?? null,
      last_used_at: null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, token };
}

/**
 * POST /users/:user_id/personal_access_tokens: the platform's creation service answers a failed
 * validation with 422 and the errors as one sentence (unlike impersonation tokens' 400 fields).
 */
export async function createPersonalToken(db: Kysely<DB>, input: IssueTokenInput, owner: Owner, now: Date) {
  const errors = tokenErrors(input, owner);
  if (errors) throw apiError(422, fullMessagesSentence(errors));
  return issueToken(db, input, owner, now);
}

export async function revokeToken(db: Kysely<DB>, id: number, now: Date): Promise<void> {
  await db.updateTable('personal_access_tokens').set({ revoked: true, updated_at: now.toISOString() }).where('id', '=', id).execute();
}
