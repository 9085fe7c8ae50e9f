// find-my-way as the bundle has it (router-closures.ts) finds what find-my-way finds: static
// prefixes, parameters beyond the four passed as arguments, and routes with constraints.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { build } from 'esbuild';
import { routerClosures } from './router-closures.ts';

const require = createRequire(import.meta.url);
type Router = {
  on(method: string, path: string, ...rest: unknown[]): void;
  find(method: string, path: string, constraints?: Record<string, string>): { handler: () => string; params: Record<string, string> } | null;
};
type RouterFactory = (options: Record<string, unknown>) => Router;

async function bundledFindMyWay(): Promise<RouterFactory> {
  const { outputFiles } = await build({
    stdin: { contents: "module.exports = require('find-my-way');", resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    plugins: [routerClosures],
    logLevel: 'silent',
  });
  const code = outputFiles[0].text;
  assert.doesNotMatch(code, /new Function\('path', 'i'|new Function\('NullObject'/);
  const module = { exports: {} as RouterFactory };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports;
}

function routes(factory: RouterFactory) {
  const router = factory({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  const answer = (name: string) => () => name;
  router.on('GET', '/api/v4/projects/:id', answer('project'));
  router.on('GET', '/api/v4/projects/:id/repository/tree', answer('tree'));
  router.on('GET', '/api/v4/projectz', answer('z'));
  router.on('GET', '/a/:p1/:p2/:p3/:p4/:p5/:p6', answer('six'));
  router.on('GET', '/files/:name.:ext', answer('file'));
  router.on('GET', '/c', { constraints: { host: 'x.example' } }, answer('x host'));
  router.on('GET', '/c', answer('any host'));
  const find = (path: string, constraints?: Record<string, string>) => {
    const found = router.find('GET', path, constraints);
    return found && { route: found.handler(), params: { ...found.params } };
  };
  return [
    find('/api/v4/projects/12'),
    find('/api/v4/projects/a%2Fb/repository/tree/'),
    find('/api/v4/projectz'),
    find('/api/v4/projectx'),
    find('/api/v4/project'),
    find('/api/v4/projectsX12'),
    find('/api/v4/projects/1/repositoryXtree'),
    find('/a/1/2/3/4/5/6'),
    find('/files/notes.tar.gz'),
    find('/c', { host: 'x.example' }),
    find('/c', { host: 'y.example' }),
    find('/c'),
  ];
}

test("the bundle's find-my-way finds what find-my-way finds", async () => {
  const found = routes(await bundledFindMyWay());
  assert.deepEqual(found, routes(require('find-my-way') as RouterFactory));
  assert.deepEqual(found.slice(0, 3), [
    { route: 'project', params: { id: '12' } },
    { route: 'tree', params: { id: 'a/b' } },
    { route: 'z', params: {} },
  ]);
  assert.deepEqual(found.slice(3, 7), [null, null, null, null]);
  assert.deepEqual(found[7], { route: 'six', params: { p1: '1', p2: '2', p3: '3', p4: '4', p5: '5', p6: '6' } });
  assert.deepEqual(found.slice(9).map((f) => f?.route), ['x host', 'any host', 'any host']);
});
