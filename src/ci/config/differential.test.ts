// Differential test: every configuration of test/fixtures/ci-configs is compiled and seeded by
// Quarry (a push to `main`) and listed by gitlab-ci-local (a second, independent parser of the
// same language) in a temporary git work tree; names, stages, when, allow_failure and needs must
// agree. Each remaining difference is one of gitlab-ci-local's known divergences from the platform
// (notes §3.9), named below; anything else fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { compileConfig } from './compile.ts';
import { CiConfigError, includeMessages } from './errors.ts';
import { seedPipeline } from './seed.ts';
import type { CompiledJob, SeededJob } from './types.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = path.join(ROOT, 'test/fixtures/ci-configs');
const GCL = path.join(ROOT, 'node_modules/gitlab-ci-local/dist/index.js');

interface ListedJob {
  name: string;
  stage: string;
  when: string;
  /** `{exit_codes}` as written when the job has them. */
  allow_failure: boolean | { exit_codes: number | number[] };
  needs?: Array<{ job: string; artifacts: boolean; optional: boolean }>;
}

interface Fixture {
  name: string;
  content: string;
  variables: Record<string, string>;
  extraFiles: string[];
}

async function loadFixtures(): Promise<Fixture[]> {
  const names = (await readdir(FIXTURES)).filter((name) => name.endsWith('.yml')).sort();
  return Promise.all(
    names.map(async (name) => {
      const content = await readFile(path.join(FIXTURES, name), 'utf8');
      const header = (key: string) => content.match(new RegExp(`^# ${key}: (.*)$`, 'm'))?.[1].trim().split(/\s+/) ?? [];
      const variables = Object.fromEntries(header('variables').map((pair) => pair.split('=', 2) as [string, string]));
      return { name, content, variables, extraFiles: header('files') };
    }),
  );
}

// One shell per work tree: the base commit is origin/main (gitlab-ci-local diffs against it for
// `changes:`), the fixture's files are the last commit.
const SETUP = `set -e
git init -q -b main
git config user.email ci@example.com
git config user.name CI
git commit -q --allow-empty -m base
git remote add origin https://gitlab.example.com/group/project.git
git update-ref refs/remotes/origin/main HEAD
git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main`;
const COMMIT = 'set -e\ngit add -A\ngit commit -q -m fixture\ngit ls-files';

/** A work tree whose last commit adds the fixture's files on top of an empty `origin/main`. */
async function makeWorkTree(fixture: Fixture): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-ci-diff-'));
  await run('sh', ['-c', SETUP], { cwd: dir });
  await writeFile(path.join(dir, '.gitlab-ci.yml'), fixture.content);
  await cp(path.join(FIXTURES, 'includes'), path.join(dir, 'includes'), { recursive: true });
  for (const file of fixture.extraFiles) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), 'x\n');
  }
  const { stdout } = await run('sh', ['-c', COMMIT], { cwd: dir });
  return { dir, files: stdout.split('\n').filter(Boolean) };
}

async function listWithGitlabCiLocal(dir: string, fixture: Fixture, home: string): Promise<ListedJob[] | { error: string }> {
  // gitlab-ci-local wants relative paths: run it inside the work tree, its home in HOME.
  const args = [GCL, '--list-json'];
  for (const [key, value] of Object.entries(fixture.variables)) args.push('--variable', `${key}=${value}`);
  try {
    const { stdout } = await run(process.execPath, args, { cwd: dir, env: { ...process.env, HOME: home }, timeout: 60_000, maxBuffer: 16 << 20 });
    const start = stdout.indexOf('[');
    return JSON.parse(stdout.slice(start)) as ListedJob[];
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return { error: `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim() || failure.message };
  }
}

async function seedWithQuarry(fixture: Fixture, files: string[]) {
  const config = await compileConfig({
    content: fixture.content,
    resolveInclude: async (ref) => {
      if (ref.type !== 'local' || !existsSync(path.join(FIXTURES, ref.path))) {
        throw new CiConfigError(includeMessages.localMissing(ref.type === 'local' ? ref.location : ref.type));
      }
      return readFile(path.join(FIXTURES, ref.path), 'utf8');
    },
  });
  const seed = await seedPipeline(config, {
    source: 'push',
    ref: 'main',
    refType: 'branch',
    changedPaths: files,
    listPaths: async () => files,
    variables: {
      CI_PIPELINE_SOURCE: 'push',
      CI_COMMIT_BRANCH: 'main',
      CI_COMMIT_REF_NAME: 'main',
      CI_COMMIT_REF_SLUG: 'main',
      CI_DEFAULT_BRANCH: 'main',
      CI_PROJECT_PATH: 'group/project',
      ...fixture.variables,
    },
  });
  return { config, jobs: seed.filteredOut ? [] : seed.jobs };
}

/**
 * gitlab-ci-local names parallel jobs "rspec: [1/3]" (the platform: "rspec 1/3") and joins matrix
 * values with "," (the platform: ", "): compare the platform's spelling.
 */
function platformName(listed: string): string {
  const numbered = /^(.*): \[(\d+)\/(\d+)\]$/.exec(listed);
  if (numbered) return `${numbered[1]} ${numbered[2]}/${numbered[3]}`;
  const matrix = /^(.*): \[(.*)\]$/.exec(listed);
  return matrix ? `${matrix[1]}: [${matrix[2].split(',').map((v) => v.trim()).join(', ')}]` : listed;
}

interface Outcome {
  differences: string[];
  justified: string[];
}

function compare(jobs: SeededJob[], compiled: CompiledJob[], listed: ListedJob[]): Outcome {
  const outcome: Outcome = { differences: [], justified: [] };
  const compiledByName = new Map(compiled.map((job) => [job.name, job]));
  const ours = new Map(jobs.map((job) => [job.name, job]));
  const theirs = new Map(listed.filter((job) => job.when !== 'never').map((job) => [platformName(job.name), job]));
  const baseOf = (name: string) => ours.get(name)?.baseName ?? name;

  for (const [name, their] of theirs) {
    const our = ours.get(name);
    if (our) continue;
    const definition = compiledByName.get(name) ?? compiledByName.get(name.replace(/( \d+\/\d+|: \[.*\])$/, ''));
    const explicitPolicy =
      definition && (definition.except !== null || (definition.only !== null && JSON.stringify(definition.only) !== '{"refs":["branches","tags"]}'));
    // gitlab-ci-local ignores only/except entirely (notes §3.9).
    if (explicitPolicy) outcome.justified.push(`${name}: only/except ignored by gitlab-ci-local`);
    else outcome.differences.push(`${name}: listed by gitlab-ci-local (${their.when}) but not created by Quarry`);
  }
  for (const [name, our] of ours) {
    const their = theirs.get(name);
    if (!their) {
      outcome.differences.push(`${name}: created by Quarry (${our.when}) but not listed by gitlab-ci-local`);
      continue;
    }
    if (our.stage !== their.stage) outcome.differences.push(`${name}: stage ${our.stage} vs ${their.stage}`);
    if (our.when !== their.when) outcome.differences.push(`${name}: when ${our.when} vs ${their.when}`);
    // gitlab-ci-local shows `allow_failure: {exit_codes}` as written; the platform stores false
    // with the codes aside: the same job.
    const theirCodes = typeof their.allow_failure === 'object' ? [their.allow_failure.exit_codes].flat() : null;
    const sameCodes = theirCodes !== null && JSON.stringify(theirCodes) === JSON.stringify(our.allowFailureExitCodes) && !our.allowFailure;
    if (our.allowFailure !== their.allow_failure && !sameCodes) {
      const definition = compiledByName.get(our.baseName);
      // Job-level `when: manual` makes a job optional on the platform; gitlab-ci-local keeps
      // allow_failure false (notes §2.8 and §3.9).
      if (definition && definition.when === 'manual' && !definition.allowFailureDefined && our.when === 'manual') {
        outcome.justified.push(`${name}: manual job's default allow_failure`);
      } else {
        outcome.differences.push(`${name}: allow_failure ${our.allowFailure} vs ${their.allow_failure}`);
      }
    }
    // Quarry lists needs per parallel instance; gitlab-ci-local by the job's base name.
    const ourNeeds = our.needs ? [...new Set(our.needs.map((need) => `${baseOf(need.name)}:${need.artifacts}:${need.optional}`))].sort() : null;
    const theirNeeds = their.needs ? their.needs.map((need) => `${need.job}:${need.artifacts}:${need.optional}`).sort() : null;
    const ourNeedsOrNull = ourNeeds && ourNeeds.length === 0 && !their.needs ? null : ourNeeds;
    if (JSON.stringify(ourNeedsOrNull) !== JSON.stringify(theirNeeds)) {
      const droppedOptional = our.needs && their.needs && their.needs.every((need) => need.optional || ourNeeds?.some((n) => n.startsWith(`${need.job}:`)));
      // A missing optional need is dropped by the platform; gitlab-ci-local still lists it.
      if (droppedOptional) outcome.justified.push(`${name}: optional need of a job not in the pipeline`);
      else outcome.differences.push(`${name}: needs ${JSON.stringify(ourNeedsOrNull)} vs ${JSON.stringify(theirNeeds)}`);
    }
  }
  return outcome;
}

async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

async function probe(): Promise<string | null> {
  if (!existsSync(GCL)) return 'gitlab-ci-local is not installed';
  try {
    await run('git', ['--version']);
    await run(process.execPath, [GCL, '--version'], { timeout: 30_000 });
    return null;
  } catch (error) {
    return `gitlab-ci-local cannot run here: ${(error as Error).message.split('\n')[0]}`;
  }
}

const unavailable = await probe();

test('Quarry and gitlab-ci-local agree on every fixture configuration', { skip: unavailable ?? false, timeout: 600_000 }, async (t) => {
  const fixtures = await loadFixtures();
  assert.ok(fixtures.length >= 60, `the corpus has ${fixtures.length} configurations`);
  const home = await mkdtemp(path.join(tmpdir(), 'quarry-gcl-home-'));
  const report: Array<{ name: string; outcome: Outcome; jobs: number }> = [];
  try {
    await runPool(fixtures, 2, async (fixture) => {
      const { dir, files } = await makeWorkTree(fixture);
      try {
        const [listed, quarry] = await Promise.all([
          listWithGitlabCiLocal(dir, fixture, home),
          seedWithQuarry(fixture, files).catch((error: unknown) => error as Error),
        ]);
        if (quarry instanceof Error) {
          report.push({ name: fixture.name, jobs: 0, outcome: { differences: [`Quarry: ${quarry.message}`], justified: [] } });
        } else if (!Array.isArray(listed)) {
          report.push({ name: fixture.name, jobs: 0, outcome: { differences: [`gitlab-ci-local: ${listed.error.slice(0, 400)}`], justified: [] } });
        } else {
          report.push({ name: fixture.name, jobs: quarry.jobs.length, outcome: compare(quarry.jobs, quarry.config.jobs, listed) });
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  report.sort((a, b) => a.name.localeCompare(b.name));
  const justified = report.flatMap((entry) => entry.outcome.justified.map((line) => `${entry.name}: ${line}`));
  const differences = report.flatMap((entry) => entry.outcome.differences.map((line) => `${entry.name}: ${line}`));
  const identical = report.filter((entry) => entry.outcome.differences.length === 0 && entry.outcome.justified.length === 0).length;
  t.diagnostic(`${report.length} configurations, ${report.reduce((n, e) => n + e.jobs, 0)} jobs; ${identical} identical, ${justified.length} justified divergences`);
  for (const line of justified) t.diagnostic(`justified: ${line}`);
  assert.deepEqual(differences, []);
});
