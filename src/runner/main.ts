// Process entry of `quarry runner`.
import { runnerCommand } from './cli.ts';

runnerCommand(process.argv.slice(3)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`quarry runner: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
