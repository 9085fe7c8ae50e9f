// Builds the bundled server (current.js says why): `node src/bundle/build.ts [LOCK]`,
// started in the background by a start that found no current bundle. It removes LOCK when done.
//
// The sources are bundled with the packages they import, but for those EXTERNAL names. A bundled
// package that looked for files next to its code (__dirname) would look in the cache directory:
// none that this server uses does (pino's transports, which start workers from files of pino's,
// are not used; @fastify/swagger reads its package.json only for defaults openapiOptions gives).
// In the sources, import.meta.url and import.meta.dirname are replaced by their value in the
// source file, so that paths made from them (templates, the pre-receive hook, package.json) still
// point into the sources. The bundle carries the schema image of the migrations it bundles
// (src/db/schema-image.ts).
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_FORMAT, BUNDLE_HEAD, BUNDLE_TAIL, CACHE_DIR, ENTRY, MANIFEST, type Manifest, PACKAGE_STAMPS, ROOT, codeCacheFile } from './current.js';
import { shareEsmFaces } from './esm-interop.ts';
import { routerClosures } from './router-closures.ts';

const lock = process.argv[2];
const SRC = path.join(ROOT, 'src') + path.sep;
const DB_DIR = path.join(SRC, 'db') + path.sep;
const IMAGE_MODULE = path.join(DB_DIR, 'bundled-schema-image.ts');
/**
 * Packages left in node_modules: native add-ons (ssh2, cpu-features), and the clients only some
 * deployments load, at their first use (Redis, PostgreSQL).
 */
const EXTERNAL = ['ioredis', 'ssh2', 'cpu-features', 'pg'];
/** The bundles kept (with their code caches): the new one and the one a starting process may be loading. */
const KEEP = 2;

function statOf(file: string): [number, number] {
  const stat = fs.statSync(file);
  return [stat.size, stat.mtimeMs];
}

/** Every file under `dir`, by path, with its stamp. */
function stampsUnder(dir: string): Map<string, [number, number]> {
  const stamps = new Map<string, [number, number]>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) stamps.set(path.join(entry.parentPath, entry.name), statOf(path.join(entry.parentPath, entry.name)));
  }
  return stamps;
}

/**
 * esbuild escapes what is not ASCII in strings, templates and names; what it leaves is in comments
 * and regular expression literals, where a \u escape of each UTF-16 unit means the same.
 */
function asciiOnly(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

async function build(): Promise<void> {
  const esbuild = await import('esbuild');
  // The migrations are stamped before they are loaded to make the image: if one changes before
  // the bundle reads it, bundle and image could disagree, and the build gives up.
  const before = stampsUnder(DB_DIR);
  const { makeSchemaImage } = await import('../db/make-schema-image.ts');
  const image = await makeSchemaImage();
  const inputs: Manifest['inputs'] = {};
  // Stamped before anything is built: a package installed meanwhile makes the result stale.
  for (const file of PACKAGE_STAMPS) if (fs.existsSync(path.join(ROOT, file))) inputs[file] = statOf(path.join(ROOT, file));
  const sourceMeta: import('esbuild').Plugin = {
    name: 'source-meta',
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(SRC)) return undefined;
        // Stamped before it is read: an edit while the bundle is built makes the bundle stale.
        const stamp = statOf(args.path);
        inputs[path.relative(ROOT, args.path)] = stamp;
        if (args.path.startsWith(DB_DIR) && String(before.get(args.path)) !== String(stamp)) throw new Error(`${args.path} changed while the bundle was built`);
        if (args.path === IMAGE_MODULE) return { contents: `export const BUNDLED_SCHEMA_IMAGE = ${JSON.stringify(image)};\n`, loader: 'js' };
        const contents = fs
          .readFileSync(args.path, 'utf8')
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        return { contents, loader: 'ts' };
      });
    },
  };
  // Node's own modules are required, not imported: an import makes Node build the ES module face
  // of each, reading every export (node:http's load undici, 10 ms), where require reads none.
  const builtins = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);
  const requiredBuiltins: import('esbuild').Plugin = {
    name: 'required-builtins',
    setup(plugin) {
      const id = (specifier: string) => (specifier.startsWith('node:') ? specifier : `node:${specifier}`);
      // The stand-in's own require is the real one.
      plugin.onResolve({ filter: builtins }, (args) => (args.namespace === 'builtin' ? { path: id(args.path), external: true } : { path: id(args.path), namespace: 'builtin' }));
      plugin.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
  const name = `server-${process.pid}-${Date.now()}.cjs`;
  const file = path.join(CACHE_DIR, name);
  const { outputFiles } = await esbuild.build({
    entryPoints: [ENTRY],
    outfile: file,
    write: false,
    bundle: true,
    platform: 'node',
    // The body of a module function, which current.js runs with a code cache of its own (see there).
    format: 'cjs',
    target: 'node24',
    external: EXTERNAL,
    plugins: [sourceMeta, requiredBuiltins, routerClosures],
    logLevel: 'silent',
    legalComments: 'none',
  });
  fs.writeFileSync(file, `${BUNDLE_HEAD}${asciiOnly(shareEsmFaces(outputFiles[0].text))}${BUNDLE_TAIL}`);
  // The manifest names the new bundle only once it is complete.
  const manifest: Manifest = { format: BUNDLE_FORMAT, bundle: name, inputs };
  const temporary = `${MANIFEST}.${process.pid}`;
  fs.writeFileSync(temporary, JSON.stringify(manifest));
  fs.renameSync(temporary, MANIFEST);
  const kept = fs
    .readdirSync(CACHE_DIR)
    .filter((entry) => /^server-.*\.cjs$/.test(entry))
    .map((entry) => ({ entry, mtimeMs: fs.statSync(path.join(CACHE_DIR, entry)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, KEEP)
    .flatMap(({ entry }) => [entry, path.basename(codeCacheFile(entry))]);
  for (const entry of fs.readdirSync(CACHE_DIR)) if (entry.startsWith('server-') && !kept.includes(entry)) fs.rmSync(path.join(CACHE_DIR, entry), { force: true });
}

try {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  await build();
} catch (error) {
  process.stderr.write(`quarry: building the server bundle failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (lock) fs.rmSync(lock, { force: true });
}
