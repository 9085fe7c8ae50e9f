// Process entry. Node's compile cache (in the system's temporary directory) keeps the compiled
// modules between starts: loading and compiling them is most of the start-up time. The command
// line is imported only once the cache is on, so that it covers every module.
import module from 'node:module';

module.enableCompileCache();
await import('./cli.ts');
