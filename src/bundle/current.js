// @ts-check
// The bundled server: the command line and every module it imports in one file, built by esbuild
// from the sources and kept under node_modules/.cache. Node's loader spends a few tenths of a
// millisecond on each of the server's ~1,900 module files; loading one file instead takes about
// 40 % of the start-up time away. The sources stay the program: a bundle is used only while every
// source file it was built from is unchanged, and a start that finds none current runs from the
// sources and builds one in the background for the next start; runBundle keeps the bundle's
// compiled code in a code cache of its own. QUARRY_BUNDLE=0 runs from the sources.
//
// JavaScript, like src/main.js, which imports it before anything else: a TypeScript file would
// make Node load its type stripper (about 40 ms), which a bundled start otherwise never needs.
// tsc checks it through the JSDoc types.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'quarry-server');
const MANIFEST_NAME = 'manifest.json';
export const MANIFEST = path.join(CACHE_DIR, MANIFEST_NAME);
/** Where the command line starts: the bundle's entry point. */
export const ENTRY = path.join(ROOT, 'src', 'cli.ts');
const LOCK = path.join(CACHE_DIR, 'build.lock');
/** A lock older than this belongs to a build that died. */
const STALE_LOCK_MS = 120_000;
/** How long after the bundle starts its code cache is written: by then the server is up. */
const CODE_CACHE_AFTER_MS = 3000;

/**
 * The bundle's file is one function expression, `(function (exports, require, module, __filename,
 * __dirname) {…})`, of ASCII only: runBundle compiles it as it is read, as a string outside V8's
 * heap (Node makes one of a large latin1 read), not as a copy wrapped in a module function (about
 * 35 ms of a start, most of them the garbage collector's). A bundle of an earlier format is not
 * current.
 */
export const BUNDLE_FORMAT = 2;
export const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname) {';
export const BUNDLE_TAIL = '\n})';

/**
 * What a bundle was built from: each file's size and modification time, by path from ROOT.
 * @typedef {{ format: number, bundle: string, inputs: Record<string, [size: number, mtimeMs: number]> }} Manifest
 */

/** The files whose change makes a bundle stale besides its inputs: the installed packages. */
export const PACKAGE_STAMPS = ['package.json', 'package-lock.json', path.join('node_modules', '.package-lock.json')];

/**
 * The bundle built from the sources as they are now, or null. Costs a stat of each source file
 * (a few milliseconds). `cacheDir` and `root`: where the manifest is and what its paths are from.
 * @returns {string | null}
 */
export function currentBundle(cacheDir = CACHE_DIR, root = ROOT) {
  /** @type {Manifest} */
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(cacheDir, MANIFEST_NAME), 'utf8'));
  } catch {
    return null;
  }
  if (manifest.format !== BUNDLE_FORMAT) return null;
  // The loop runs once per start, in V8's interpreter: it is kept plain (no path.join, one options
  // object), which halves its 7 ms.
  const options = { throwIfNoEntry: false };
  const from = `${root}/`;
  for (const file in manifest.inputs) {
    const [size, mtimeMs] = manifest.inputs[file];
    const stat = fs.statSync(from + file, options);
    if (!stat || stat.size !== size || stat.mtimeMs !== mtimeMs) return null;
  }
  const bundle = path.join(cacheDir, manifest.bundle);
  return fs.existsSync(bundle) ? bundle : null;
}

/**
 * Starts a build of the bundle in a process of its own, which outlives this one, unless another
 * build holds the lock. Best effort: a start never waits for it nor fails because of it.
 */
export function buildBundleLater() {
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    const lock = fs.statSync(LOCK, { throwIfNoEntry: false });
    if (lock && Date.now() - lock.mtimeMs < STALE_LOCK_MS) return;
    if (lock) fs.rmSync(LOCK, { force: true });
    fs.closeSync(fs.openSync(LOCK, 'wx'));
  } catch {
    return;
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'src', 'bundle', 'build.ts'), LOCK], { detached: true, stdio: 'ignore', cwd: ROOT });
  child.on('error', () => fs.rmSync(LOCK, { force: true }));
  child.unref();
}

/** Where the code cache of a bundle is kept. */
export function codeCacheFile(/** @type {string} */ bundle) {
  return `${bundle}.v8`;
}

/**
 * Runs a bundle, the function of a CommonJS module. Not through require: V8's code cache of a
 * script made once it has run holds every function compiled by then (Node's compile cache, made
 * before a module runs, holds only its top level), so that the next start compiles almost
 * nothing; about 90 ms of a start.
 * The cache is written once per bundle (V8 refuses a cache of another source or version of Node,
 * and then it is written again), a few seconds after the start or at exit if that comes first.
 * @param {string} bundle
 */
export function runBundle(bundle) {
  const cacheFile = codeCacheFile(bundle);
  /** @type {Buffer | undefined} */
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(fs.readFileSync(bundle, 'latin1'), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      try {
        const temporary = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
      } catch {
        // Best effort: the next start runs without a cache and tries again.
      }
    };
    setTimeout(write, CODE_CACHE_AFTER_MS).unref();
    process.once('exit', write);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
}
