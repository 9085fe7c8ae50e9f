// Checking a login and password, for every way of signing in with one: the web form, the OAuth
// password grant, git over HTTP.
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { spendPasswordCheck, verifyPassword } from '../../core/auth/secrets.ts';
import type { DB, UserRow } from '../../db/schema.ts';

async function findLogin(db: Kysely<DB>, login: string): Promise<UserRow | undefined> {
  const lower = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', lower), eb(eb.fn('lower', ['email']), '=', lower)]))
    .executeTakeFirst();
}

/**
 * The user whose login (username or email, any case) and password these are, or undefined. An
 * unknown login costs one password hash too, so that timing does not tell which logins exist.
 */
export async function authenticatePassword(ctx: ServiceContext, login: string, password: string): Promise<UserRow | undefined> {
  const user = await findLogin(ctx.db, login);
  if (!user || user.user_type !== 'human' || user.encrypted_password === null) {
    await spendPasswordCheck(password, ctx.config.passwordHashCost);
    return undefined;
  }
  return (await verifyPassword(password, user.encrypted_password)) ? user : undefined;
}
