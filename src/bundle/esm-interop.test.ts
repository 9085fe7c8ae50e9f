// Shared ES module faces of CommonJS modules: every importer sees the same exports as with one face
// each, including one that imports a module still loading in a cycle and one that imports it after.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { after, test } from 'node:test';
import { build } from 'esbuild';
import { shareEsmFaces } from './esm-interop.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-esm-interop-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const files: Record<string, string> = {
  'main.mjs': `import { fromOne, fromTwo } from './one.mjs'; import { whenLoaded } from './three.mjs'; result = { one: fromOne(), two: fromTwo(), whenLoaded: whenLoaded() };`,
  'one.mjs': `import util, { a } from './util.cjs'; import { b } from './util.cjs'; import './cycle.cjs'; export const fromOne = () => [a, b, util.a]; export { fromTwo } from './two.mjs';`,
  'two.mjs': `import * as util from './util.cjs'; export const fromTwo = () => [util.a, util.default.b];`,
  'util.cjs': `exports.a = 1; exports.b = 2;`,
  // Loading, it has its first export only when middle.mjs imports it.
  'cycle.cjs': `exports.early = 1; require('./middle.mjs'); exports.late = 2;`,
  'middle.mjs': `import * as cycle from './cycle.cjs'; export const inCycle = () => [cycle.early, cycle.late];`,
  'three.mjs': `import { early, late } from './cycle.cjs'; export const whenLoaded = () => [early, late];`,
};

test('importers of a CommonJS module share its face and see what they saw with one each', async () => {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const { outputFiles } = await build({ entryPoints: [path.join(dir, 'main.mjs')], bundle: true, write: false, format: 'cjs', platform: 'node', logLevel: 'silent' });
  const code = shareEsmFaces(outputFiles[0].text);
  assert.match(code, /__toESMShared/);
  const context = vm.createContext({ result: null });
  vm.runInContext(code, context);
  assert.deepEqual(JSON.parse(JSON.stringify(context.result)), { one: [1, 2, 1], two: [1, 2], whenLoaded: [1, 2] });
});

test('a bundle without the helper it replaces fails the build', () => {
  assert.throws(() => shareEsmFaces('var x = 1;'), /look at both again/);
});
