// Prepares a database for the benchmark: migrations and root through the server's own start-up
// path, then 10,000 users inserted in batches (one password hash shared, since scrypt is slow on
// purpose) and a regular user with a token for GET /user.
import { loadConfig } from '../src/config.ts';
import { createDeps, openConfiguredDatabase, prepare } from '../src/bootstrap.ts';
import { hashPassword } from '../src/core/auth/secrets.ts';
import type { NewUser } from '../src/db/schema.ts';
import { issueToken } from '../src/modules/access-tokens/access-tokens.service.ts';
import { NEW_USER_DEFAULTS } from '../src/modules/users/users.service.ts';

export interface Seeded {
  /** Highest user id; ids 1..maxUserId all exist. */
  maxUserId: number;
  userToken: string;
  seedMs: number;
}

const BATCH = 500;

function newUser(username: string, name: string, passwordHash: string, at: string): NewUser {
  return {
    ...NEW_USER_DEFAULTS,
    username,
    name,
    email: `${username}@bench.example.com`,
    encrypted_password: passwordHash,
    user_type: 'human',
    confirmed_at: at,
    created_at: at,
    updated_at: at,
  };
}

/** env is the server's environment (QUARRY_DATA_DIR, DATABASE_URL, QUARRY_ROOT_TOKEN…). */
export async function seed(env: Record<string, string | undefined>, users: number): Promise<Seeded> {
  const started = performance.now();
  const config = loadConfig(env);
  const database = openConfiguredDatabase(config);
  try {
    const deps = createDeps(config, database);
    await prepare(deps);
    const { db } = database;
    const passwordHash = await hashPassword('bench-password-1', config.passwordHashCost);
    const base = Date.parse('2024-01-01T00:00:00.000Z');
    for (let from = 0; from < users; from += BATCH) {
      const rows: NewUser[] = [];
      for (let i = from; i < Math.min(from + BATCH, users); i++) {
        rows.push(newUser(`user${i}`, `User ${i}`, passwordHash, new Date(base + i * 1000).toISOString()));
      }
      await db.insertInto('users').values(rows).execute();
    }
    const member = await db
      .insertInto('users')
      .values(newUser('bench-member', 'Bench Member', passwordHash, new Date().toISOString()))
      .returning('id')
      .executeTakeFirstOrThrow();
    const { token } = await issueToken(db, { userId: member.id, name: 'bench', scopes: ['api'] }, { admin: false }, new Date());
    return { maxUserId: member.id, userToken: token, seedMs: performance.now() - started };
  } finally {
    await database.close();
  }
}
