// find-my-way, Fastify's router, compiles two small functions with `new Function` as routes are
// added: a prefix matcher for every static node of the tree and a parameter-object maker for
// every route. For the server's ~800 routes that is about 30 ms of a start, and no code cache
// keeps functions made that way. In the bundle, closures made per node and per route do the same
// work. A find-my-way whose code differs fails the build (which the bundle test runs), so that
// whoever upgrades it looks at these again.
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
];

export const routerClosures: Plugin = {
  name: 'router-closures',
  setup(build) {
    for (const { file, from, to } of REPLACEMENTS) {
      const filter = new RegExp(`[\\\\/]${file.replaceAll('/', '[\\\\/]').replaceAll('.', '\\.')}$`);
      build.onLoad({ filter }, (args) => {
        const contents = fs.readFileSync(args.path, 'utf8');
        if (!from.test(contents)) throw new Error(`${file} is not the code src/bundle/router-closures.ts replaces: look at both again`);
        return { contents: contents.replace(from, to), loader: 'js' };
      });
    }
  },
};
