// The `quarry` command line (serve, migrate, create-token, create-user, reset, seed, jobs, runner-token;
// `runner` is dispatched by main.ts to src/runner without loading the server).
import { parseArgs } from 'node:util';
import { createDeps, openConfiguredDatabase, prepare } from './bootstrap.ts';
import { ConfigError, type Config, loadConfig } from './config.ts';
import { resetData } from './cli/reset.ts';
import { createTokenCommand, createUserCommand } from './cli/accounts.ts';
import { jobsCommand } from './cli/jobs.ts';
import { migrateToLatest } from './db/migrate.ts';
import { secretBox } from './core/secret-box.ts';
import { serveFromEnvironment } from './serve.ts';
import { systemContext } from './core/context.ts';
import { instanceRegistrationToken } from './modules/runners/runners.service.ts';

const USAGE = `usage: quarry <command> [options]

commands:
  serve [--ephemeral] [--seed FILE]
                             start the API server (the default); --ephemeral: in memory and a
                             temporary directory, for tests (QUARRY_EPHEMERAL=1); --seed: apply
                             a seed document at start (QUARRY_SEED)
  migrate                    bring the database schema up to date
  create-token --user U --scopes api,read_user [--name N] [--expires-at YYYY-MM-DD]
                             issue a personal access token and print it
  create-user --username U --email E --name N [--password P] [--admin]
                             create a user
  reset [--yes]              delete every row of every table (keeps the schema)
  seed FILE                  create the users, tokens, groups, projects, files, branches and
                             members a YAML or JSON document describes, when missing
  jobs [retry <id>]          background jobs by kind and state, the failed ones, and retrying one
  runner-token               print the instance's runner registration token (made on first use)
  runner [--url URL] [--registration-token T | --token T] [--concurrent N] [--tag-list a,b]
         [--run-untagged] [--work-dir DIR] [--sandbox none|bwrap]
                             run CI jobs with the shell executor (quarry runner --help)
`;

async function withDatabase<T>(config: Config, run: (deps: ReturnType<typeof createDeps>) => Promise<T>): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    return await run(createDeps(config, database));
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'serve') {
    let values: { ephemeral?: boolean; seed?: string };
    try {
      ({ values } = parseArgs({ args: rest, options: { ephemeral: { type: 'boolean' }, seed: { type: 'string' } } }));
    } catch (error) {
      process.stderr.write(`quarry: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    const env = { ...process.env };
    if (values.ephemeral) env.QUARRY_EPHEMERAL = '1';
    if (values.seed !== undefined) env.QUARRY_SEED = values.seed;
    await serveFromEnvironment(env);
    return -1; // keeps running
  }
  const config = loadConfig();
  switch (command) {
    case 'seed': {
      if (config.ephemeral) {
        process.stderr.write('quarry: an ephemeral server keeps its database in its own memory: seed it with `quarry serve --ephemeral --seed FILE` (QUARRY_SEED) or POST /-/test/seed\n');
        return 1;
      }
      // Loaded when used: the seed's schema and YAML parser stay out of every other command.
      return (await import('./cli/seed.ts')).seedCommand(config, rest);
    }
    case 'migrate': {
      // A new SQLite database made from the schema image has its migrations from there.
      const applied = await withDatabase(config, async (deps) => [...deps.database.imageMigrations, ...(await migrateToLatest(deps.db, secretBox(config.dataDir)))]);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
      return 0;
    }
    case 'create-token':
      return withDatabase(config, async (deps) => {
        await prepare(deps);
        return createTokenCommand(deps, rest);
      });
    case 'create-user':
      return withDatabase(config, async (deps) => {
        await prepare(deps);
        return createUserCommand(deps, rest);
      });
    case 'jobs':
      return withDatabase(config, async (deps) => {
        await migrateToLatest(deps.db);
        return jobsCommand(deps, rest, (line) => process.stdout.write(`${line}\n`));
      });
    case 'runner-token':
      return withDatabase(config, async (deps) => {
        await prepare(deps);
        process.stdout.write(`${await instanceRegistrationToken(systemContext(deps))}\n`);
        return 0;
      });
    case 'reset': {
      const { values } = parseArgs({ args: rest, options: { yes: { type: 'boolean' } } });
      if (!values.yes && process.stdin.isTTY) {
        process.stderr.write('reset deletes every user, token and record; run it again with --yes\n');
        return 1;
      }
      await withDatabase(config, async (deps) => {
        await migrateToLatest(deps.db, secretBox(config.dataDir));
        await resetData(deps);
        await prepare(deps);
      });
      process.stdout.write('data reset; root recreated\n');
      return 0;
    }
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    // Reasons the user can act on: one line each, without a stack.
    if (error instanceof ConfigError || (error instanceof Error && (error.name === 'SeedDocumentError' || error.name === 'SeedError'))) {
      for (const line of error.message.split('\n')) process.stderr.write(`quarry: ${line}\n`);
    } else process.stderr.write(`quarry: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
