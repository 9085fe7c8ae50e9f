// create-token and create-user: account chores from the command line.
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { systemContext } from '../core/context.ts';
import type { Deps } from '../core/deps.ts';
import { SCOPES } from '../core/auth/scopes.ts';
import { DomainError } from '../core/errors.ts';
import { issueToken } from '../modules/access-tokens/access-tokens.service.ts';
import { createUser } from '../modules/users/users.service.ts';

function fail(message: string): number {
  process.stderr.write(`quarry: ${message}\n`);
  return 1;
}

function describe(error: unknown): string {
  if (error instanceof DomainError) return error.fields ? JSON.stringify(error.fields) : error.message;
  throw error;
}

export async function createTokenCommand(deps: Deps, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { user: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' } },
  });
  if (!values.user || !values.scopes) return fail('create-token needs --user and --scopes');
  const scopes = values.scopes.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) return fail(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  const expiresAt = values['expires-at'];
  if (expiresAt !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(expiresAt)) return fail('--expires-at must be YYYY-MM-DD');
  const user = await deps.db
    .selectFrom('users')
    .select(['id', 'admin'])
    .where((eb) => (/^\d+$/.test(values.user as string) ? eb('id', '=', Number(values.user)) : eb(sql`lower(username)`, '=', (values.user as string).toLowerCase())))
    .executeTakeFirst();
  if (!user) return fail(`no user "${values.user}"`);
  try {
    const { token } = await issueToken(systemContext(deps), { userId: user.id, name: values.name ?? 'command line', scopes, expiresAt }, user);
    process.stdout.write(`${token}\n`);
    return 0;
  } catch (error) {
    return fail(describe(error));
  }
}

export async function createUserCommand(deps: Deps, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean' },
      external: { type: 'boolean' },
    },
  });
  if (!values.username || !values.email) return fail('create-user needs --username and --email');
  try {
    const user = await createUser(systemContext(deps), {
      username: values.username,
      email: values.email,
      name: values.name ?? values.username,
      password: values.password,
      force_random_password: values.password === undefined,
      admin: values.admin ?? false,
      external: values.external ?? false,
      skip_confirmation: true,
    });
    process.stdout.write(`created user ${user.username} (id ${user.id})\n`);
    return 0;
  } catch (error) {
    return fail(describe(error));
  }
}
