// Issuing and revoking personal and impersonation tokens. The secret is returned once and stored
// only as a digest.
import type { ServiceContext } from '../../core/context.ts';
import type { PersonalAccessTokenRow } from '../../db/schema.ts';
import { ADMIN_ONLY_SCOPES, SCOPES } from '../../core/auth/scopes.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import { type FieldErrors, apiError, invalidFields } from '../../core/errors.ts';
import { BLANK, fullMessagesSentence } from '../../domain/validation.ts';

export interface IssueTokenInput {
  /** The token's owner, not necessarily the actor: administrators, commands and start-up issue tokens for others. */
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
export async function issueToken(ctx: ServiceContext, input: IssueTokenInput, owner: Owner): Promise<{ row: PersonalAccessTokenRow; token: string }> {
  const scopes = [...new Set(input.scopes)];
  const errors = tokenErrors({ name: input.name, scopes }, owner);
  if (errors) throw invalidFields(errors);
  const token = input.secret ?? generateToken();
  const at = ctx.now().toISOString();
  const row = await ctx.db
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
export async function createPersonalToken(ctx: ServiceContext, input: IssueTokenInput, owner: Owner) {
  const errors = tokenErrors(input, owner);
  if (errors) throw apiError(422, fullMessagesSentence(errors));
  return issueToken(ctx, input, owner);
}

export async function revokeToken(ctx: ServiceContext, id: number): Promise<void> {
  await ctx.db.updateTable('personal_access_tokens').set({ revoked: true, updated_at: ctx.now().toISOString() }).where('id', '=', id).execute();
}
