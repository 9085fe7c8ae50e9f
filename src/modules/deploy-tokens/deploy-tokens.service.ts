// Creating and deleting deploy tokens. A model refusal is the platform's 400 with every full
// message in one sentence; the secret is shown once, in the answer to the creation.
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { apiError, paramError } from '../../core/errors.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import type { DeployTokenRow } from '../../db/schema.ts';
import { BLANK, tooLong, toSentence } from '../../domain/validation.ts';
import { type DeployTokenOwner, findDeployToken } from './deploy-tokens.finder.ts';
import type { CreateDeployTokenBody } from './deploy-tokens.schemas.ts';

const USERNAME = /^[a-zA-Z0-9.+_-]+$/;
const MAX_LENGTH = 255;

export const deployTokenNotFound = () => apiError(404, '404 Not found');

/** The expiry as stored (an ISO time), null for never; a value that is no date is a parameter error. */
function expiryOf(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw paramError('expires_at is invalid');
  return new Date(time).toISOString();
}

function validationErrors(name: string, username: string | null, scopes: readonly string[]): string[] {
  const errors: string[] = [];
  if (scopes.length === 0) errors.push(`Scopes ${BLANK}`);
  if (username !== null && username.length > MAX_LENGTH) errors.push(`Username ${tooLong(MAX_LENGTH)}`);
  if (username !== null && !USERNAME.test(username)) errors.push("Username can contain only letters, digits, '_', '-', '+', and '.'");
  if (name.length > MAX_LENGTH) errors.push(`Name ${tooLong(MAX_LENGTH)}`);
  return errors;
}

export async function createDeployToken(ctx: ServiceContext, owner: Exclude<DeployTokenOwner, 'instance'>, body: CreateDeployTokenBody): Promise<{ row: DeployTokenRow; token: string }> {
  const actor = requireActor(ctx);
  const expiresAt = expiryOf(body.expires_at);
  const username = body.username?.trim() ? body.username : null;
  const errors = validationErrors(body.name, username, body.scopes);
  if (errors.length > 0) throw apiError(400, toSentence(errors));
  const token = generateToken('', 20);
  const scopes = new Set<string>(body.scopes);
  const row = await ctx.db
    .insertInto('deploy_tokens')
    .values({
      name: body.name,
      username,
      token_digest: digest(token),
      project_id: 'projectId' in owner ? owner.projectId : null,
      group_id: 'groupId' in owner ? owner.groupId : null,
      creator_id: actor.user.id,
      read_repository: scopes.has('read_repository'),
      read_registry: scopes.has('read_registry'),
      write_registry: scopes.has('write_registry'),
      read_package_registry: scopes.has('read_package_registry'),
      write_package_registry: scopes.has('write_package_registry'),
      revoked: false,
      expires_at: expiresAt,
      created_at: ctx.now().toISOString(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, token };
}

export async function deleteDeployToken(ctx: ServiceContext, owner: Exclude<DeployTokenOwner, 'instance'>, id: number): Promise<void> {
  const row = await findDeployToken(ctx.db, owner, id);
  if (!row) throw deployTokenNotFound();
  await ctx.db.deleteFrom('deploy_tokens').where('id', '=', row.id).execute();
}
