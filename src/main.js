// @ts-check
// Process entry. Node's compile cache (in the system's temporary directory) keeps the compiled
// modules between starts: loading and compiling them is most of the start-up time. The command
// line is imported only once the cache is on, so that it covers every module; from the bundled
// server when one is current (src/bundle/current.js), from the sources otherwise. The runner is a
// client of the server's HTTP API and loads none of the server's modules.
//
// JavaScript, not TypeScript, for the reason current.js gives: a bundled start loads no .ts file.
import module from 'node:module';
import { buildBundleLater, currentBundle, runBundle } from './bundle/current.js';

module.enableCompileCache();
const command = process.argv[2];
if (command === 'runner') await import('./runner/main.ts');
else {
  const useBundle = process.env.QUARRY_BUNDLE !== '0';
  const bundle = useBundle ? currentBundle() : null;
  if (bundle) runBundle(bundle);
  else {
    // Only a server start builds one: the other commands are short, and their runs are not timed.
    if (useBundle && (command === undefined || command === 'serve')) buildBundleLater();
    await import('./cli.ts');
  }
}
