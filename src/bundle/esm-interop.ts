// esbuild gives each module that imports a CommonJS module (Node's own included: the bundle
// requires them) an ES module face of it of its own: __toESM copies every export into a new object
// of getters. The server's modules import node:path 58 times, node:crypto 47, node:fs 37...: about
// 9,000 getters and 12 ms of a start. In the bundle, one face per module object is shared; it is
// made again if the object has gained or lost exports since (a module still loading in a cycle).
// The faces are read-only views, as ES module namespaces are, so sharing one changes nothing.

/** esbuild's helper, as it begins in the bundle; the build fails if it changes. */
const HELPER = 'var __toESM = (mod, isNodeMode, target) => (';

const SHARED = `var __toESMShared = [new WeakMap(), new WeakMap()];
var __toESM = (mod, isNodeMode) => {
  if (mod === null || typeof mod !== "object" && typeof mod !== "function") return __toESMEach(mod, isNodeMode);
  const shared = __toESMShared[isNodeMode ? 1 : 0];
  const exports = __getOwnPropNames(mod).length;
  let face = shared.get(mod);
  if (face === void 0 || face.exports !== exports) shared.set(mod, face = { exports, value: __toESMEach(mod, isNodeMode) });
  return face.value;
};
var __toESMEach = (mod, isNodeMode, target) => (`;

export function shareEsmFaces(code: string): string {
  const at = code.indexOf(HELPER);
  if (at < 0 || code.indexOf(HELPER, at + 1) >= 0) throw new Error("esbuild's __toESM is not the code src/bundle/esm-interop.ts replaces: look at both again");
  return code.slice(0, at) + SHARED + code.slice(at + HELPER.length);
}
