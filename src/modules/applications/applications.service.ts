// Creating, renewing and deleting OAuth applications: instance-wide ones (administrators, through
// the API, which reaches no user's) and a user's own (on their applications page). The secret is
// kept as a digest and shown once; deleting an application revokes everything it was given, its
// grants and tokens going with it.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { invalidFields, notFound } from '../../core/errors.ts';
import type { OauthApplicationRow } from '../../db/schema.ts';
import type { CreateApplicationBody } from './applications.schemas.ts';
import { applicationErrors, redirectUris, scopeList } from './applications.validation.ts';

/** Client ids and secrets are 64 hex characters, as the platform's 14.x ones (no prefix). */
const randomHex = () => randomBytes(32).toString('hex');

/** `ownerId`: the user registering it for themselves; absent for an instance-wide application. */
export async function createApplication(ctx: ServiceContext, input: CreateApplicationBody, ownerId: number | null = null): Promise<{ row: OauthApplicationRow; secret: string }> {
  const errors = applicationErrors(input);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const secret = randomHex();
  const at = ctx.now().toISOString();
  const row = await ctx.db
    .insertInto('oauth_applications')
    .values({
      name: input.name.trim(),
      uid: randomHex(),
      secret_digest: digest(secret),
      redirect_uri: redirectUris(input.redirect_uri).join('\n'),
      scopes: [...new Set(scopeList(input.scopes))].join(' '),
      confidential: input.confidential ?? true,
      owner_id: ownerId,
      owner_type: ownerId === null ? null : 'User',
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, secret };
}

/** A new secret; the old one stops working at once. Tokens already issued stay valid. */
export async function renewApplicationSecret(ctx: ServiceContext, id: number): Promise<{ row: OauthApplicationRow; secret: string }> {
  const secret = randomHex();
  const row = await ctx.db
    .updateTable('oauth_applications')
    .set({ secret_digest: digest(secret), updated_at: ctx.now().toISOString() })
    .where('id', '=', id)
    .where('owner_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Application');
  return { row, secret };
}

/** Deletes an instance-wide application (`ownerId` null) or one of the user's own. */
export async function deleteApplication(ctx: ServiceContext, id: number, ownerId: number | null = null): Promise<void> {
  let q = ctx.db.deleteFrom('oauth_applications').where('id', '=', id);
  q = ownerId === null ? q.where('owner_id', 'is', null) : q.where('owner_id', '=', ownerId).where('owner_type', '=', 'User');
  const deleted = await q.executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw notFound('Application');
}
