// The layers of src/, read from the import statements of every file (a regular expression over
// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; relative paths
// resolved). The rules (../../../shared/ARCHITECTURE.md, "Layer rules"):
//
// - Layers: routes → services/finders → domain → core/db/git. `src/core` and `src/domain` import
//   no module (src/modules/*); core, db and git (one layer) import nothing from the domain, and db
//   and git no module either.
// - No import cycle between files, nor between modules (the folders of src/modules). Type-only
//   imports (`import type`, `export type`) count too: they are erased at run time, but a cycle of
//   types is still two files that cannot be understood apart. (`import { type A }` is not
//   type-only: Node keeps `import {} from`, which loads the file.)
// - A presenter (`*.presenter.ts`) is pure: it imports nothing from src/db or src/git, except
//   types (`import type`), which name the rows and git objects it shapes without querying or
//   running anything.
// - Only src/git starts processes: `node:child_process` is imported nowhere else (src/runner, a
//   process of its own that runs job scripts, may too, and so may src/bundle, which builds the
//   bundled server in a process of its own).
// - src/runner is a client of the runner protocol over HTTP: it imports nothing of the server but
//   src/version.ts, and the types of src/config.ts (for builtin.ts, which the server starts it by).
// - A module is used from outside (other modules, jobs, the command line) only through its public
//   surface: the files named by their role, `*.service.ts` (writes), `*.finder.ts` (reads),
//   `*.schemas.ts` (entities), `*.presenter.ts` (row → entity), `*.validation.ts` (a model's
//   rules, which writers elsewhere check first), `*.routes.ts` (route plugins) and `*.jobs.ts`
//   (background job kinds, which src/jobs/kinds.ts registers); plus its `index.ts`, where a module
//   declares anything else it offers. Everything else in a module folder is its own business.
// - Only routes and the application's wiring (src/app.ts, src/api-v4.ts) import `*.routes.ts`.
// - A finder never calls another module's finder: reads compose in routes or services.
//
// Test files (`*.test.ts`) are not part of the layers: like the application's wiring, they may
// reach anything they exercise.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Import {
  /** A path relative to the repository (`src/core/errors.ts`), or a package's name (`node:fs`). */
  target: string;
  typeOnly: boolean;
}

/** File (relative to the repository) → what it imports. */
type ImportGraph = ReadonlyMap<string, readonly Import[]>;

const STATIC_IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file's source; `file` is its path relative to the repository. */
function parseImports(file: string, source: string): Import[] {
  const resolve = (specifier: string) => (specifier.startsWith('.') ? path.posix.join(path.posix.dirname(file), specifier) : specifier);
  const imports: Import[] = [];
  for (const [, , type, specifier] of source.matchAll(STATIC_IMPORT)) imports.push({ target: resolve(specifier), typeOnly: type !== undefined });
  for (const [, specifier] of source.matchAll(DYNAMIC_IMPORT)) imports.push({ target: resolve(specifier), typeOnly: false });
  return imports;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.posix.join(dir, name.split(path.sep).join('/')))
    .sort();
}

/** The import graph of src/, test files included (the rules skip them). */
function readGraph(): ImportGraph {
  return new Map(sourceFiles('src').map((file) => [file, parseImports(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))]));
}

const isTest = (file: string) => file.endsWith('.test.ts');
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];
const isRoutes = (file: string) => file.endsWith('.routes.ts');
const isFinder = (file: string) => file.endsWith('.finder.ts');
const PUBLIC_FILE = /(\.service|\.finder|\.schemas|\.presenter|\.validation|\.routes|\.jobs|^index)\.ts$/;
const WIRING = new Set(['src/app.ts', 'src/api-v4.ts']);
const MAY_SPAWN = ['src/git/', 'src/runner/', 'src/bundle/'];
const under = (file: string, ...dirs: string[]) => dirs.some((dir) => file.startsWith(`${dir}/`));

/** One message per broken rule, naming the importer and what it imports. */
function layerViolations(graph: ImportGraph): string[] {
  const violations: string[] = [];
  const edges = [...graph].filter(([file]) => !isTest(file));
  for (const [file, imports] of edges) {
    for (const { target, typeOnly } of imports) {
      const broken = (rule: string) => violations.push(`${file} imports ${target}: ${rule}`);
      const targetModule = moduleOf(target);
      if (under(file, 'src/core', 'src/domain') && targetModule !== undefined) broken(`${file.split('/')[1]} imports no module`);
      if (under(file, 'src/core', 'src/db', 'src/git') && under(target, 'src/domain')) broken(`${file.split('/')[1]} imports nothing from the domain`);
      if (under(file, 'src/db', 'src/git') && targetModule !== undefined) broken(`${file.split('/')[1]} imports no module`);
      if (file.endsWith('.presenter.ts') && under(target, 'src/db', 'src/git') && !typeOnly) broken('a presenter imports only types from db and git');
      if ((target === 'node:child_process' || target === 'child_process') && !MAY_SPAWN.some((dir) => file.startsWith(dir))) broken('only src/git starts processes');
      if (under(file, 'src/runner') && target.startsWith('src/') && !under(target, 'src/runner') && target !== 'src/version.ts' && !(typeOnly && target === 'src/config.ts')) {
        broken('the runner is a client of the API: it imports nothing of the server');
      }
      if (isRoutes(target) && !isRoutes(file) && !WIRING.has(file)) broken('only routes and the wiring register routes');
      if (targetModule !== undefined && targetModule !== moduleOf(file)) {
        if (!PUBLIC_FILE.test(path.posix.basename(target))) broken(`not the public surface of module ${targetModule}`);
        if (isFinder(file) && isFinder(target)) broken("a finder never calls another module's finder");
      }
    }
  }
  // Between files of src/ only: packages take part in no cycle of ours.
  const files = new Map(edges.map(([file, imports]) => [file, imports.map((i) => i.target).filter((target) => graph.has(target))]));
  for (const cycle of cycles(files)) violations.push(`import cycle between files: ${cycle.join(' → ')}`);
  const modules = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = moduleOf(file);
    if (from === undefined) continue;
    const set = modules.get(from) ?? new Set<string>();
    modules.set(from, set);
    for (const target of targets) {
      const to = moduleOf(target);
      if (to !== undefined && to !== from) set.add(to);
    }
  }
  const moduleGraph = new Map([...modules].map(([m, set]) => [m, [...set]]));
  for (const cycle of cycles(moduleGraph)) violations.push(`import cycle between modules: ${cycle.join(' → ')}`);
  return violations;
}

/**
 * One cycle of every strongly connected component with more than one node (or a node importing
 * itself), as a path that returns to its start: Tarjan's algorithm, then a walk inside the component.
 */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components.map((component) => cycleWithin(graph, new Set(component)));
}

/** A shortest path from the component's first node (in sorted order) back to itself. */
function cycleWithin(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

describe('the checker', () => {
  test('parses static, re-exported, side-effect, type-only and dynamic imports, resolving relative paths', () => {
    const source = [
      "import fs from 'node:fs';",
      "import type { A } from '../core/a.ts';",
      'import {',
      '  type B,',
      '  c,',
      "} from './b.ts';",
      "export { d } from './d.ts';",
      "export type { E } from '../git/e.ts';",
      "import './side-effect.ts';",
      "const lazy = await import('../db/lazy.ts');",
      "// not an import from 'x'",
    ].join('\n');
    assert.deepEqual(parseImports('src/modules/m/m.service.ts', source), [
      { target: 'node:fs', typeOnly: false },
      { target: 'src/modules/core/a.ts', typeOnly: true },
      { target: 'src/modules/m/b.ts', typeOnly: false },
      { target: 'src/modules/m/d.ts', typeOnly: false },
      { target: 'src/modules/git/e.ts', typeOnly: true },
      { target: 'src/modules/m/side-effect.ts', typeOnly: false },
      { target: 'src/modules/db/lazy.ts', typeOnly: false },
    ]);
  });

  test('finds every broken rule of a small graph, and nothing in a clean one', () => {
    /** Imports by target; `type:` marks a type-only one. */
    const imports = (...targets: string[]): Import[] =>
      targets.map((target) => (target.startsWith('type:') ? { target: target.slice('type:'.length), typeOnly: true } : { target, typeOnly: false }));
    const clean = new Map([
      ['src/core/errors.ts', imports()],
      ['src/domain/urls.ts', imports('src/core/errors.ts')],
      ['src/modules/a/a.routes.ts', imports('src/modules/a/a.finder.ts', 'src/modules/b/b.service.ts', 'src/modules/b/b.routes.ts')],
      ['src/modules/a/a.finder.ts', imports('src/domain/urls.ts', 'src/modules/a/helpers.ts')],
      ['src/modules/a/helpers.ts', imports()],
      ['src/modules/a/a.presenter.ts', imports('type:src/db/schema.ts', 'type:src/git/commits.ts', 'src/modules/b/b.presenter.ts')],
      ['src/modules/b/b.service.ts', imports('src/git/run.ts', 'src/modules/b/b.validation.ts')],
      ['src/modules/b/b.presenter.ts', imports()],
      ['src/modules/b/b.validation.ts', imports()],
      ['src/modules/b/b.routes.ts', imports()],
      ['src/modules/b/index.ts', imports('src/modules/b/helpers.ts')],
      ['src/modules/b/helpers.ts', imports()],
      ['src/jobs/task.ts', imports('src/modules/b/index.ts', 'src/modules/b/b.service.ts', 'src/modules/b/b.jobs.ts')],
      ['src/git/run.ts', imports('node:child_process', 'src/core/errors.ts')],
      ['src/modules/b/b.jobs.ts', imports()],
      ['src/db/schema.ts', imports()],
      ['src/git/commits.ts', imports()],
      ['src/modules/b/b.test.ts', imports('src/modules/a/helpers.ts', 'node:child_process')],
    ]);
    assert.deepEqual(layerViolations(clean), []);

    const broken = new Map([
      ['src/core/errors.ts', imports('src/modules/a/a.service.ts', 'src/domain/urls.ts')],
      ['src/domain/urls.ts', imports('src/modules/a/a.finder.ts')],
      ['src/git/run.ts', imports('src/core/errors.ts', 'src/domain/urls.ts', 'src/modules/b/b.service.ts')],
      ['src/modules/a/a.service.ts', imports('node:child_process', 'src/modules/b/b.routes.ts')],
      ['src/modules/a/a.finder.ts', imports('src/modules/b/b.finder.ts', 'src/modules/b/helpers.ts', 'type:src/modules/a/types.ts')],
      ['src/modules/a/types.ts', imports('type:src/modules/a/a.finder.ts')],
      ['src/modules/a/a.presenter.ts', imports('src/db/database.ts', 'src/git/run.ts')],
      ['src/modules/b/b.finder.ts', imports('src/modules/a/a.service.ts')],
      ['src/modules/b/b.routes.ts', imports()],
      ['src/modules/b/helpers.ts', imports()],
      ['src/jobs/task.ts', imports('src/modules/b/helpers.ts')],
      ['src/runner/job.ts', imports('src/runner/log.ts', 'src/version.ts', 'type:src/config.ts', 'src/modules/b/b.service.ts', 'src/db/database.ts')],
    ]);
    assert.deepEqual(layerViolations(broken), [
      'src/core/errors.ts imports src/modules/a/a.service.ts: core imports no module',
      'src/core/errors.ts imports src/domain/urls.ts: core imports nothing from the domain',
      'src/domain/urls.ts imports src/modules/a/a.finder.ts: domain imports no module',
      'src/git/run.ts imports src/domain/urls.ts: git imports nothing from the domain',
      'src/git/run.ts imports src/modules/b/b.service.ts: git imports no module',
      'src/modules/a/a.service.ts imports node:child_process: only src/git starts processes',
      'src/modules/a/a.service.ts imports src/modules/b/b.routes.ts: only routes and the wiring register routes',
      "src/modules/a/a.finder.ts imports src/modules/b/b.finder.ts: a finder never calls another module's finder",
      'src/modules/a/a.finder.ts imports src/modules/b/helpers.ts: not the public surface of module b',
      'src/modules/a/a.presenter.ts imports src/db/database.ts: a presenter imports only types from db and git',
      'src/modules/a/a.presenter.ts imports src/git/run.ts: a presenter imports only types from db and git',
      'src/jobs/task.ts imports src/modules/b/helpers.ts: not the public surface of module b',
      'src/runner/job.ts imports src/modules/b/b.service.ts: the runner is a client of the API: it imports nothing of the server',
      'src/runner/job.ts imports src/db/database.ts: the runner is a client of the API: it imports nothing of the server',
      'import cycle between files: src/modules/a/a.finder.ts → src/modules/a/types.ts → src/modules/a/a.finder.ts',
      'import cycle between modules: a → b → a',
    ]);
  });

  test('cycles: one per strongly connected component, as a closed path', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    assert.deepEqual(cycles(graph).map((c) => c.join(' ')).sort(), ['a b c a', 'd d']);
  });
});

test('src/ keeps its layers', () => {
  const violations = layerViolations(readGraph());
  assert.deepEqual(violations, [], `\n${violations.join('\n')}`);
});
