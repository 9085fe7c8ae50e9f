// Libraries that only some requests or jobs use (mail, OpenPGP, SSH keys, certificates, cron
// lines, …) are loaded at their first use rather than at start-up: each costs 5 to 50 ms of a
// start, which ephemeral mode keeps short. `require` loads them synchronously (ES modules too), so
// their callers stay as they are; the types come from an `import type` of the same package.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package's exports, loaded at the first call and kept. */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
