// find-my-way, Fastify's router, compiles small functions with `new Function` as routes are
// added: a prefix matcher for every static node of the tree, and a parameter-object maker and a
// constraint matcher for every route. For the server's ~800 routes that is about 35 ms of a start,
// and no code cache keeps functions made that way. In the bundle, closures made per node and per
// route do the first two's work, and the constraint matcher is compiled when first used: never,
// for routes without constraints (all of this server's). A find-my-way whose code differs fails
// the build (which the bundle test runs), so that whoever upgrades it looks at these again.
import fs from 'node:fs';
import type { Plugin } from 'esbuild';

interface Replacement {
  file: string;
  /** The compiling code, one match in the file. */
  from: RegExp;
  to: string;
}

const REPLACEMENTS: Replacement[] = [
  {
    // compilePrefixMatch(prefix) for prefixes of 2 to 15 characters. The caller has matched the
    // first character; startsWith checks it again, which holds.
    file: 'find-my-way/lib/node.js',
    from: /\n {2}const lines = \[\]\n[^]*?\n {2}return new Function\('path', 'i', [^\n]*\n/,
    to: `
  return function matchPrefix (path, i) {
    return path.startsWith(prefix, i)
  }
`,
  },
  {
    // The values come by position: the first four as arguments, the rest in extraParams.
    file: 'find-my-way/lib/handler-storage.js',
    from: /\n {2}_compileCreateParamsObject \(params\) \{\n[^]*?new Function\('NullObject'[^\n]*\n {2}\}\n/,
    to: `
  _compileCreateParamsObject (params) {
    const names = params.slice()
    return function _createParamsObject (param0, param1, param2, param3, extraParams) {
      const result = new NullObject()
      for (let i = 0; i < names.length; i++) result[names[i]] = i < 4 ? arguments[i] : extraParams[i - 4]
      return result
    }
  }
`,
  },
  {
    file: 'find-my-way/lib/handler-storage.js',
    from: /\n {2}_compileGetHandlerMatchingConstraints \(constrainer\) \{\n/,
    to: `
  _compileGetHandlerMatchingConstraints (constrainer) {
    this._getHandlerMatchingConstraints = (derivedConstraints) => {
      this._compileGetHandlerMatchingConstraintsNow(constrainer)
      return this._getHandlerMatchingConstraints(derivedConstraints)
    }
  }

  _compileGetHandlerMatchingConstraintsNow (constrainer) {
`,
  },
];

export const routerClosures: Plugin = {
  name: 'router-closures',
  setup(build) {
    for (const file of new Set(REPLACEMENTS.map((r) => r.file))) {
      const filter = new RegExp(`[\\\\/]${file.replaceAll('/', '[\\\\/]').replaceAll('.', '\\.')}$`);
      build.onLoad({ filter }, (args) => {
        let contents = fs.readFileSync(args.path, 'utf8');
        for (const { from, to } of REPLACEMENTS.filter((r) => r.file === file)) {
          if (!from.test(contents)) throw new Error(`${file} is not the code src/bundle/router-closures.ts replaces: look at both again`);
          contents = contents.replace(from, to);
        }
        return { contents, loader: 'js' };
      });
    }
  },
};
