// `quarry seed FILE`: applies a seed document (YAML or JSON) to the configured database and data
// directory, creating what it describes and is missing; a second run changes nothing. Prints one
// line per thing created, and the value of each token it generated (shown this once).
import path from 'node:path';
import { createDeps, openConfiguredDatabase, prepare } from '../bootstrap.ts';
import type { Config } from '../config.ts';
import { readSeedFile } from '../testing/seed-document.ts';
import { applySeed } from '../testing/seed.ts';

export async function seedCommand(config: Config, args: string[], out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  if (args.length !== 1 || args[0].startsWith('-')) {
    process.stderr.write('usage: quarry seed FILE (YAML or JSON)\n');
    return 2;
  }
  const file = path.resolve(args[0]);
  // Checked whole before anything is written; a SeedDocumentError lists every problem.
  const doc = readSeedFile(file);
  const database = openConfiguredDatabase(config);
  try {
    const deps = createDeps(config, database);
    await prepare(deps);
    const { buildApp } = await import('../app.ts');
    const app = await buildApp(deps);
    try {
      const result = await applySeed(app, doc);
      for (const line of result.created) out(`created ${line}`);
      for (const [name, value] of Object.entries(result.tokens)) out(`token ${name}: ${value}`);
      if (result.created.length === 0) out(`nothing to do: everything ${path.basename(file)} describes exists`);
      return 0;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
