// Process entry. Node's compile cache (in the system's temporary directory) keeps the compiled
// modules between starts: loading and compiling them is most of the start-up time. The command
// line is imported only once the cache is on, so that it covers every module. The runner is a
// client of the server's HTTP API and loads none of the server's modules.
import module from 'node:module';

module.enableCompileCache();
if (process.argv[2] === 'runner') await import('./runner/main.ts');
else await import('./cli.ts');
