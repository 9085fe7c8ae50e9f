// Issuing and revoking personal and impersonation tokens. The secret is returned once and stored
// only as a digest.
import type { Kysely } from 'kysely';
import type { DB, PersonalAccessTokenRow } from '../../db/schema.ts';
import { ADMIN_ONLY_SCOPES } from '../../core/auth/scopes.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import { invalidFields } from '../../core/errors.ts';

export interface IssueTokenInput {
  userId: number;
  name: string;
  scopes: readonly string[];
  expiresAt?: string | null;
  impersonation?: boolean;
  /** Use this exact secret (the configured root token); otherwise a new one is generated. */
  secret?: string;
}

/** Issues a token for a user; administrators' scopes (sudo, admin_mode) only for administrators. */
export async function issueToken(
  db: Kysely<DB>,
  input: IssueTokenInput,
  owner: { admin: boolean | number },
  now: Date,
): Promise<{ row: PersonalAccessTokenRow; token: string }> {
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw invalidFields({ scopes: ["can't be blank"] });
  if (!owner.admin && scopes.some((s) => ADMIN_ONLY_SCOPES.includes(s as never))) {
    throw invalidFields({ scopes: ['can only contain available scopes'] });
  }
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

export async function revokeToken(db: Kysely<DB>, id: number, now: Date): Promise<void> {
  await db.updateTable('personal_access_tokens').set({ revoked: true, updated_at: now.toISOString() }).where('id', '=', id).execute();
}
