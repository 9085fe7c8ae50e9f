// Opening the database for a configuration, migrating it, and making sure the administrator
// `root` (id 1) and its token exist.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import { systemContext } from './core/context.ts';
import type { Deps } from './core/deps.ts';
import { resolveJobToken } from './modules/ci-jobs/index.ts';
import { accessPolicy } from './domain/settings/application-settings.ts';
import { SCOPES } from './core/auth/scopes.ts';
import { digest } from './core/auth/secrets.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { secretBox } from './core/secret-box.ts';
import { checkInstanceIdentity } from './instance-identity.ts';
import { releaseOrphanedClaims } from './jobs/queue.ts';
import { removeLeftovers } from './jobs/remove-leftovers.ts';
import { issueToken } from './modules/access-tokens/access-tokens.service.ts';
import { createUser } from './modules/users/users.service.ts';

export const ROOT_TOKEN_FILE = 'initial_root_token';
export const ROOT_PASSWORD_FILE = 'initial_root_password';

export function sqliteFile(config: Config): string {
  return path.join(config.dataDir, 'quarry.sqlite3');
}

export function openConfiguredDatabase(config: Config): Database {
  // Ephemeral mode: one connection to a private in-memory database, which lives as long as the process.
  return openDatabase({ url: config.databaseUrl, sqliteFile: config.ephemeral ? ':memory:' : sqliteFile(config) });
}

export function createDeps(config: Config, database: Database): Deps {
  return { config, database, db: database.db, jobTokens: resolveJobToken, accessPolicy, now: () => new Date() };
}

function writeSecret(config: Config, file: string, secret: string): string {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const target = path.join(config.dataDir, file);
  fs.writeFileSync(target, `${secret}\n`, { mode: 0o600 });
  fs.chmodSync(target, 0o600);
  return target;
}

export interface RootSetup {
  created: boolean;
  /** Files a new secret was written to, for the log. */
  tokenFile: string | null;
  passwordFile: string | null;
  /** Root's token when this start issued it (QUARRY_ROOT_TOKEN, or a new one); null otherwise. */
  token: string | null;
}

/** Creates root and its all-scope token on first start; adds QUARRY_ROOT_TOKEN if it is new. */
export async function ensureRoot(deps: Deps): Promise<RootSetup> {
  const { db, config } = deps;
  const ctx = systemContext(deps);
  const existing = await db.selectFrom('users').select(['id', 'admin']).where('id', '=', 1).executeTakeFirst();
  const result: RootSetup = { created: false, tokenFile: null, passwordFile: null, token: null };
  let root = existing;
  if (!root) {
    const password = config.rootPassword ?? randomBytes(18).toString('base64url');
    try {
      const user = await createUser(ctx, {
        username: 'root',
        name: 'Administrator',
        email: 'admin@example.com',
        password,
        admin: true,
        skip_confirmation: true,
      });
      if (!config.rootPassword) result.passwordFile = writeSecret(config, ROOT_PASSWORD_FILE, password);
      root = { id: user.id, admin: user.admin };
      result.created = true;
    } catch (error) {
      // Nodes starting together on a new database: another one created root first.
      // (Its id may be other than 1 when the two took ids from the sequence in the other order.)
      root = await db.selectFrom('users').select(['id', 'admin']).where('username', '=', 'root').where('admin', '=', true).executeTakeFirst();
      if (!root) throw error;
    }
  }
  if (config.rootToken) {
    const secret = config.rootToken;
    const known = () => db.selectFrom('personal_access_tokens').select('id').where('token_digest', '=', digest(secret)).executeTakeFirst();
    if (!(await known())) {
      try {
        await issueToken(ctx, { userId: root.id, name: 'root token', scopes: SCOPES, secret }, root);
        result.token = secret;
      } catch (error) {
        // Another node starting at the same time added it.
        if (!(await known())) throw error;
      }
    }
  } else if (result.created) {
    const { token } = await issueToken(ctx, { userId: root.id, name: 'root token', scopes: SCOPES }, root);
    result.tokenFile = writeSecret(config, ROOT_TOKEN_FILE, token);
    result.token = token;
  }
  return result;
}

/**
 * Migrates, checks that the data directory is this database's, takes back the work of this
 * host's processes that died (background job claims, scratch leftovers) and ensures root; the one
 * start-up path of the server, the CLI and the tests.
 */
export async function prepare(deps: Deps): Promise<RootSetup> {
  await migrateToLatest(deps.db, secretBox(deps.config.dataDir));
  await checkInstanceIdentity(deps.db, deps.config);
  await releaseOrphanedClaims(deps.db);
  await removeLeftovers(deps);
  return ensureRoot(deps);
}
